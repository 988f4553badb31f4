package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;

/** The saved copy reads back as written, and anything else reads back as nothing saved. */
class KeyCacheTest {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final TableId LINEAGE = TableId.of("acme", TableKind.GOLD_LINEAGE);
  private static final Map<String, List<ArtifactKey>> KEYS =
      Map.of(
          "part-1.parquet",
          List.of(new ArtifactKey("a1", 1), new ArtifactKey("a2", 7)),
          "part-2.parquet",
          List.of(new ArtifactKey("a1", 2)),
          "part-3.parquet",
          List.of());

  @TempDir Path dir;

  @Test
  void whatIsWrittenReadsBackPerTable() throws Exception {
    KeyCache cache = KeyCache.in(dir.toString());
    cache.write(SILVER, KEYS);
    cache.write(LINEAGE, Map.of("l.parquet", List.of(new ArtifactKey("b", 3))));
    assertThat(KeyCache.in(dir.toString()).read(SILVER)).isEqualTo(KEYS);
    assertThat(KeyCache.in(dir.toString()).read(LINEAGE))
        .isEqualTo(Map.of("l.parquet", List.of(new ArtifactKey("b", 3))));
    cache.write(SILVER, Map.of());
    assertThat(cache.read(SILVER)).as("replaced").isEmpty();
  }

  @Test
  void aCacheThatCannotBeWrittenLeavesTheWriterWorking() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("occupied"), "a file, not a directory");
    FakeDeltaTableClient lake = new FakeDeltaTableClient();
    SilverMerge merge = new SilverMerge(lake, KeyCache.in(notADirectory.toString()));
    SilverMerge.Outcome first =
        merge.write("(0, 10]", 10, SILVER, List.of(BatchFoldTest.promoted("a", 1)), List.of());
    assertThat(
            lake.commitRewrite(SILVER, 10, first.commit().files(), first.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
    SilverMerge.Outcome retry =
        merge.write("(10, 20]", 20, SILVER, List.of(BatchFoldTest.promoted("a", 11)), List.of());
    assertThat(retry.promotionsOfExistingKeys()).isEqualTo(1);
    merge.saveKeys(); // KEY_CACHE_NOT_SAVED, logged; nothing thrown
    assertThat(Files.readString(notADirectory)).isEqualTo("a file, not a directory");
  }

  @Test
  void nothingSavedNoDirectoryOrADamagedCopyReadsAsNothing() throws Exception {
    KeyCache cache = KeyCache.in(dir.toString());
    assertThat(cache.read(SILVER)).isEmpty();
    assertThat(KeyCache.in(null).read(SILVER)).isEmpty();
    assertThat(KeyCache.in(null).enabled()).isFalse();

    cache.write(SILVER, KEYS);
    Path file = cache.fileOf(SILVER);
    byte[] whole = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(whole, whole.length - 3)); // torn
    assertThat(cache.read(SILVER)).isEmpty();
    byte[] flipped = whole.clone();
    flipped[20] ^= 1;
    Files.write(file, flipped);
    assertThat(cache.read(SILVER)).isEmpty();
    Files.write(file, new byte[3]);
    assertThat(cache.read(SILVER)).isEmpty();

    // Another table's copy under this table's name.
    cache.write(LINEAGE, KEYS);
    Files.copy(cache.fileOf(LINEAGE), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThat(cache.read(SILVER)).isEmpty();
    assertThat(cache.read(LINEAGE)).isEqualTo(KEYS);
  }
}
