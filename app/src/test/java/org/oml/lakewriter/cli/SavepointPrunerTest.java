package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Item 14 of issue 17: the newest N savepoints are kept, and the next start's never goes. */
class SavepointPrunerTest {
  @TempDir Path state;

  private Path savepoint(String name, long minute) throws Exception {
    Path dir = Files.createDirectories(state.resolve("savepoints").resolve(name));
    Path metadata = Files.writeString(dir.resolve("_metadata"), "m");
    Files.writeString(dir.resolve("state-file"), "s");
    Files.setLastModifiedTime(metadata, FileTime.fromMillis(minute * 60_000));
    return dir;
  }

  @Test
  void keepsTheNewestAndTheOneTheNextStartUsesAndNothingElseOfOthers() throws Exception {
    Path oldest = savepoint("savepoint-aaaa-1", 1);
    Path older = savepoint("savepoint-aaaa-2", 2);
    Path newer = savepoint("savepoint-aaaa-3", 3);
    Path newest = savepoint("savepoint-aaaa-4", 4);
    Path halfWritten = Files.createDirectories(state.resolve("savepoints/savepoint-aaaa-5"));
    Path foreign = Files.createDirectories(state.resolve("savepoints/kept-by-hand"));
    Files.writeString(foreign.resolve("_metadata"), "m");

    assertThat(SavepointPruner.prune(state.resolve("savepoints"), 2, Optional.of(oldest)))
        .containsExactly(older);
    assertThat(oldest).isDirectory(); // the next start's restore point
    assertThat(older).doesNotExist();
    assertThat(newer).isDirectory();
    assertThat(newest).isDirectory();
    assertThat(halfWritten).isDirectory();
    assertThat(foreign).isDirectory();

    assertThat(SavepointPruner.prune(state.resolve("savepoints"), 1, Optional.of(newest)))
        .containsExactlyInAnyOrder(oldest, newer);
    assertThat(SavepointPruner.newestFirst(state.resolve("savepoints"))).containsExactly(newest);
    // Nothing to prune, and no directory at all, are both fine.
    assertThat(SavepointPruner.prune(state.resolve("savepoints"), 3, Optional.empty())).isEmpty();
    assertThat(SavepointPruner.prune(state.resolve("nowhere"), 3, Optional.empty())).isEmpty();
  }
}
