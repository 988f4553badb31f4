package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;

/**
 * The live files of a table are carried from version to version through our own commits ({@link
 * LiveFileIndex}), on a real table: what the writer and the committer see is at every step what a
 * client of its own reads from the log, and the log is replayed for them only on first use of a
 * table this client did not create and after a log checkpoint, not once per rewrite, commit and
 * compaction check. A commit by anyone
 * else is seen, not hidden by the carried files.
 */
class LiveFileIndexITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path dir;

  @Test
  void theLiveFilesCarriedThroughOurCommitsAreWhatTheLogHolds() throws Exception {
    // A log checkpoint every 10 commits, unstaggered, so that one falls at version 10.
    LakeConfig lake =
        LakeConfig.of(dir.toUri().toString())
            .withLogCheckpointInterval(10)
            .withLogCheckpointsStaggered(false);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake, true, false)) {
      List<DataFile> first = client.writeDataFiles(BRONZE, rows(1, 2));
      client.commit(BRONZE, 10, first);
      assertSameAsTheLog(client, lake);
      assertThat(client.liveScans())
          .as("carried from the table's creation (no file is live before version 0)")
          .isZero();

      // Versions 2 to 9: appends, each carried from the version before.
      for (long batch = 2; batch <= 9; batch++) {
        client.commit(BRONZE, batch * 10, client.writeDataFiles(BRONZE, rows(batch * 10)));
        assertSameAsTheLog(client, lake);
      }
      assertThat(client.liveScans()).as("carried through 8 appends").isZero();

      // Version 10: a rewrite of the first file (a retraction's copy-on-write); Kernel also writes
      // a log checkpoint, after which the next use loads the table again and reads its log once.
      List<DataFile> copy = client.writeDataFiles(BRONZE, rows(1, 2, 100));
      client.commitRewrite(BRONZE, 100, copy, new Rewrite(90, first));
      assertThat(log().resolve("00000000000000000010.checkpoint.parquet")).exists();
      assertSameAsTheLog(client, lake);
      assertThat(client.liveScans()).isEqualTo(1);

      // Version 11: a compaction of every small file, carried as well.
      LiveFiles small = client.smallFiles(BRONZE, Long.MAX_VALUE);
      List<DataFile> removes = new ArrayList<>(small.files().values());
      assertThat(removes).hasSize(9);
      List<DataFile> compacted =
          client.writeDataFiles(BRONZE, rows(1, 2, 100, 20, 30, 40, 50, 60, 70, 80, 90));
      assertThat(client.commitCompaction(BRONZE, removes, compacted)).isTrue();
      assertSameAsTheLog(client, lake);
      assertThat(client.liveFiles(BRONZE, List.of(first.get(0).relativePath())).files())
          .as("the rewritten file is gone")
          .isEmpty();
      assertThat(client.liveScans()).isEqualTo(1);
    }
  }

  /**
   * Another engine replaces a file after our commits carried the live files: the next use sees its
   * commit (the cache's freshness check loads the new version, whose live files are read from the
   * log), so a rewrite planned on the replaced file is refused rather than removing it twice.
   */
  @Test
  void anotherEnginesCommitIsSeenAndARewriteOfTheFileItReplacedIsRefused() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake, true, false)) {
      List<DataFile> first = client.writeDataFiles(BRONZE, rows(1, 2));
      client.commit(BRONZE, 10, first);
      client.commit(BRONZE, 20, client.writeDataFiles(BRONZE, rows(11)));
      String original = first.get(0).relativePath();
      assertThat(client.liveFiles(BRONZE, List.of(original)).files()).containsOnlyKeys(original);
      long scans = client.liveScans();

      String copy = OutOfBandCompaction.replace(dir.resolve(BRONZE.relativePath()), original);
      assertThat(client.liveFiles(BRONZE, List.of(original, copy)).files().keySet())
          .containsExactly(copy);
      assertThat(client.liveScans()).as("the other engine's version is read").isEqualTo(scans + 1);
      assertSameAsTheLog(client, lake);

      List<DataFile> rewritten = client.writeDataFiles(BRONZE, rows(1, 2, 21));
      assertThatThrownBy(
              () -> client.commitRewrite(BRONZE, 30, rewritten, new Rewrite(20, first)))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("no longer live")
          .hasMessageContaining(original);
      assertThat(Files.exists(dir.resolve(BRONZE.relativePath()).resolve(copy))).isTrue();
      assertSameAsTheLog(client, lake);
    }
  }

  private Path log() {
    return dir.resolve(BRONZE.relativePath()).resolve("_delta_log");
  }

  private static List<TableRow> rows(long... seqs) {
    return KernelDeltaTableClientITCase.rows(seqs);
  }

  /** The live files {@code client} sees equal what a client with a cache of its own reads. */
  private static void assertSameAsTheLog(KernelDeltaTableClient client, LakeConfig lake)
      throws Exception {
    Map<String, DataFile> seen = client.smallFiles(BRONZE, Long.MAX_VALUE).files();
    try (KernelDeltaTableClient fresh = new KernelDeltaTableClient(lake, true, false)) {
      LiveFiles read = fresh.smallFiles(BRONZE, Long.MAX_VALUE);
      assertThat(fresh.liveScans()).isEqualTo(1);
      assertThat(seen).isEqualTo(read.files()).isNotEmpty();
      assertThat(client.snapshotId(BRONZE)).isEqualTo(read.snapshot());
    }
  }
}
