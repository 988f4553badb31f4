package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterJob;

/** The restore point `run` resumes from: the newest one that completed, whatever its kind. */
class CheckpointFinderTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
  @TempDir Path state;

  @Test
  void nothingToResumeInAnEmptyOrMissingStateDir() {
    assertThat(CheckpointFinder.latest(state)).isEmpty();
    assertThat(CheckpointFinder.latest(state.resolve("missing"))).isEmpty();
  }

  @Test
  void aCheckpointDirWithoutMetadataNeverCompleted() throws IOException {
    Files.createDirectories(state.resolve("checkpoints/job1/chk-1"));

    assertThat(CheckpointFinder.latest(state)).isEmpty();
  }

  @Test
  void theNewestCompletedPointWinsWhetherSavepointOrCheckpoint() throws IOException {
    Path chk1 = metadata("checkpoints/job1/chk-1", 1, 10);
    Path savepoint = metadata("savepoints/savepoint-abc", 2, 20);
    assertThat(CheckpointFinder.latest(state).orElseThrow().dir()).isEqualTo(savepoint);
    assertThat(CheckpointFinder.latest(state).orElseThrow().kind()).isEqualTo("savepoint");

    // A later job restored from the savepoint and checkpointed since.
    Path chk5 = metadata("checkpoints/job2/chk-5", 5, 30);
    assertThat(CheckpointFinder.latest(state).orElseThrow().dir()).isEqualTo(chk5);
    assertThat(CheckpointFinder.latest(state).orElseThrow().kind()).isEqualTo("checkpoint");
    assertThat(chk1).exists();
  }

  @Test
  void aResumedCheckpointIsClaimedAndASavepointNever() throws IOException {
    Path chk = metadata("checkpoints/job1/chk-3", 3, 10);
    Path savepoint = metadata("savepoints/savepoint-abc", 4, 20);
    for (Path dir : List.of(chk, savepoint)) {
      Configuration conf = new Configuration();
      LakeWriterJob.restoreFrom(conf, dir);
      assertThat(conf.get(StateRecoveryOptions.SAVEPOINT_PATH)).isEqualTo(dir.toUri().toString());
      assertThat(conf.get(StateRecoveryOptions.RESTORE_MODE))
          .as(dir.getFileName().toString())
          .isEqualTo(dir == chk ? RestoreMode.CLAIM : RestoreMode.NO_CLAIM);
    }
  }

  @Test
  void aHalfWrittenCheckpointIsSkippedForTheNewestReadableOne() throws IOException {
    Path chk5 = metadata("checkpoints/job2/chk-5", 5, 30);
    Files.createDirectories(state.resolve("checkpoints/job2/chk-6")); // killed before _metadata
    Path chk7 = metadata("checkpoints/job2/chk-7", 7, 50);
    byte[] whole = Files.readAllBytes(chk7.resolve("_metadata"));
    Files.write(chk7.resolve("_metadata"), Arrays.copyOf(whole, whole.length / 2)); // truncated
    Files.setLastModifiedTime(chk7.resolve("_metadata"), FileTime.from(T0.plusSeconds(50)));

    assertThat(CheckpointFinder.latest(state).orElseThrow().dir()).isEqualTo(chk5);
  }

  @Test
  void checkpointsDiscardedWhileItLooksAreSkippedNotAnError() throws Exception {
    // A live job discards old checkpoints (and their shared state files) while a second `run`,
    // started by mistake, looks for a restore point before the leader lease refuses it.
    Path kept = metadata("checkpoints/job1/chk-1", 1, 10);
    java.util.concurrent.atomic.AtomicBoolean churning =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicReference<Exception> churnFailure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread churn =
        new Thread(
            () -> {
              try {
                for (int n = 2; churning.get(); n++) {
                  Path chk = metadata("checkpoints/job1/chk-" + n, n, 10 + n);
                  Path shared =
                      Files.createDirectories(state.resolve("checkpoints/job1/shared/" + n));
                  for (int f = 0; f < 20; f++) {
                    Files.writeString(chk.resolve("state-" + f), "x");
                    Files.writeString(shared.resolve("sst-" + f), "x");
                  }
                  delete(chk);
                  delete(shared);
                }
              } catch (Exception e) {
                churnFailure.set(e);
              }
            });
    churn.start();
    try {
      for (int i = 0; i < 300; i++) {
        assertThat(CheckpointFinder.latest(state)).isPresent();
      }
    } finally {
      churning.set(false);
      churn.join();
    }
    assertThat(churnFailure.get()).isNull();
    assertThat(CheckpointFinder.latest(state).orElseThrow().dir()).isEqualTo(kept);
  }

  private static void delete(Path dir) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A directory with the metadata Flink writes for an empty checkpoint, completed at T0 + s. */
  private Path metadata(String dir, long checkpointId, long seconds) throws IOException {
    Path d = Files.createDirectories(state.resolve(dir));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Checkpoints.storeCheckpointMetadata(
        new CheckpointMetadata(checkpointId, List.of(), List.of()), bytes);
    Path m = Files.write(d.resolve("_metadata"), bytes.toByteArray());
    Files.setLastModifiedTime(m, FileTime.from(T0.plusSeconds(seconds)));
    return d;
  }
}
