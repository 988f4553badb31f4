package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.faultfs.FaultFileSystem;
import org.oml.lakewriter.delta.testing.faultfs.StorageFaults;

/**
 * Log compaction files ({@link LakeConfig#logCompactionInterval}) on real Delta tables: a client
 * writes one every interval of commits and a fresh Kernel reader loads the table through them and
 * reads every row once; and the log cleanup ({@link LogCleanup}) that a checkpoint runs, which
 * deletes them with the rest of the log past its retention.
 */
class LogCompactionITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path lake;

  @Test
  void aFreshReaderLoadsTheTableThroughTheLogCompactionFiles() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    assertThat(config.logCompactionInterval())
        .isEqualTo(LakeConfig.DEFAULT_LOG_COMPACTION_INTERVAL)
        .isEqualTo(10);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 45; txn++) { // versions 1..45; the table's creation is 0
        commit(client, txn);
      }
    }
    assertThat(logCompactions())
        .containsExactly(
            "00000000000000000000.00000000000000000009.compacted.json",
            "00000000000000000010.00000000000000000019.compacted.json",
            "00000000000000000020.00000000000000000029.compacted.json",
            "00000000000000000030.00000000000000000039.compacted.json");
    // One run's file holds the adds of its ten commits, one data file each.
    String run = Files.readString(log().resolve(logCompactions().get(1)));
    assertThat(run.lines().filter(l -> l.startsWith("{\"add\"")).count()).isEqualTo(10);

    Snapshot snapshot =
        TableManager.loadSnapshot(lake.resolve(BRONZE.relativePath()).toUri().toString())
            .build(DefaultEngine.create(new Configuration()));
    List<FileStatus> used = ((SnapshotImpl) snapshot).getLogSegment().getCompactions();
    assertThat(used).as("the log segment a fresh reader replays").isNotEmpty();
    assertThat(used.stream().map(f -> Path.of(f.getPath()).getFileName().toString()))
        .isSubsetOf(logCompactions());
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 45).boxed().toList());
  }

  @Test
  void noLogCompactionFilesAtZero() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString()).withLogCompactionInterval(0);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 12; txn++) {
        commit(client, txn);
      }
    }
    assertThat(logCompactions()).isEmpty();
  }

  /**
   * The log is 31 days old up to and with its checkpoint at 20: the checkpoint the hook writes at 30 deletes
   * every log file below 20 (commits, checksums, the checkpoint at 10, log compaction files), and
   * keeps the checkpoint at 20, its commit and everything after. Before the files were old, the
   * checkpoint at 20 deleted nothing. A new client's reader still reads every row once.
   */
  @Test
  void aCheckpointDeletesTheLogFilesPastTheRetention() throws Exception {
    LakeConfig config =
        LakeConfig.of(lake.toUri().toString())
            .withLogCheckpointInterval(10)
            .withLogCheckpointsStaggered(false)
            .withLogCompactionInterval(5);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 25; txn++) {
        commit(client, txn);
      }
    }
    assertThat(versions(".json").get(0)).as("nothing expired yet").isZero();
    assertThat(logCompactions()).hasSize(5); // [0,4] .. [20,24]
    age(21);

    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 26; txn <= 30; txn++) { // version 30 is checkpointed
        commit(client, txn);
      }
    }
    assertThat(versions(".json").get(0)).isEqualTo(20L);
    assertThat(versions(".crc").get(0)).isEqualTo(20L);
    assertThat(versions(".checkpoint.parquet")).containsExactly(20L, 30L);
    assertThat(logCompactions())
        .containsExactly(
            "00000000000000000020.00000000000000000024.compacted.json",
            "00000000000000000025.00000000000000000029.compacted.json");
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 30).boxed().toList());
  }

  /**
   * A long backlog (a table written by a build without the cleanup) goes in bounded runs, oldest
   * first, each a fresh engine over what the last one left: the state is the log itself.
   */
  @Test
  void aBacklogIsDeletedInBoundedRunsOldestFirst() throws Exception {
    LakeConfig config =
        LakeConfig.of(lake.toUri().toString())
            .withLogCheckpointInterval(10)
            .withLogCheckpointsStaggered(false)
            .withLogCompactionInterval(0);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 21; txn++) {
        commit(client, txn);
      }
    }
    age(21); // expired: versions 0..20, with the checkpoints at 10 and 20
    String table = lake.resolve(BRONZE.relativePath()).toUri().toString();
    List<Integer> runs = new java.util.ArrayList<>();
    for (int run = 0; run < 5; run++) {
      org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
      io.delta.kernel.engine.Engine engine = DefaultEngine.create(conf);
      Snapshot latest = TableManager.loadSnapshot(table).build(engine);
      runs.add(LogCleanup.run(engine, table, BRONZE, latest, System.currentTimeMillis(), 15));
      if (run == 0) {
        // In name order: 0.crc, 0.json, 1.crc, ... 7.crc.
        assertThat(versions(".json").get(0)).as("the oldest went first").isEqualTo(7L);
      }
    }
    // 0..19: 20 commits, 20 checksums and the checkpoint at 10 are 41 files.
    assertThat(runs).containsExactly(15, 15, 11, 0, 0);
    assertThat(versions(".json").get(0)).isEqualTo(20L);
    assertThat(versions(".checkpoint.parquet")).containsExactly(20L);
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 21).boxed().toList());
  }

  /**
   * Log compaction files cannot be written (the disk is full for them): every commit stands and the
   * table reads whole; once they can, the next due one is written, by a new client. (Log
   * compaction runs off the commit path; closing a client waits for it.)
   */
  @Test
  void aLogCompactionFileThatCannotBeWrittenFailsNoCommit() throws Exception {
    LakeConfig config = FaultFileSystem.lake(lake).withLogCompactionInterval(5);
    StorageFaults.Fault full =
        StorageFaults.diskFull(lake, path -> path.contains(".compacted.json"), 0, Duration.ofHours(1));
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 12; txn++) {
        commit(client, txn);
      }
    } finally { // closing waits for the background thread
      StorageFaults.remove(full);
    }
    assertThat(full.injected()).as("log compaction writes refused").isPositive();
    assertThat(logCompactions()).isEmpty();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 13; txn <= 15; txn++) {
        commit(client, txn);
      }
    }
    assertThat(logCompactions())
        .containsExactly("00000000000000000010.00000000000000000014.compacted.json");
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 15).boxed().toList());
  }

  /**
   * The log cleanup cannot delete (the store refuses deletes): the checkpoint's commit stands and
   * the expired files stay; the next checkpoint, of a new client with deletes allowed, deletes
   * them. (The cleanup runs off the commit path; closing a client waits for it.)
   */
  @Test
  void aLogCleanupThatCannotDeleteFailsNoCommitAndTheNextCheckpointCatchesUp() throws Exception {
    LakeConfig config =
        FaultFileSystem.lake(lake)
            .withLogCheckpointInterval(10)
            .withLogCheckpointsStaggered(false)
            .withLogCompactionInterval(0);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 25; txn++) {
        commit(client, txn);
      }
    }
    age(21);
    StorageFaults.Fault refused =
        StorageFaults.install(
            new StorageFaults.Fault(
                lake,
                java.util.EnumSet.of(StorageFaults.Op.DELETE),
                path -> path.contains("/_delta_log/"),
                path -> new java.nio.file.AccessDeniedException(path, null, "injected: no delete"),
                0,
                Duration.ofHours(1)));
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 26; txn <= 30; txn++) { // checkpoint at 30: its cleanup is refused
        commit(client, txn);
      }
    } finally { // closing waits for the cleanup
      StorageFaults.remove(refused);
    }
    assertThat(refused.injected()).isPositive();
    assertThat(versions(".json").get(0)).isZero();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 31; txn <= 40; txn++) { // checkpoint at 40
        commit(client, txn);
      }
    }
    assertThat(versions(".json").get(0)).isEqualTo(20L);
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 40).boxed().toList());
  }

  /** Sets the log files below {@code version} 31 days back. */
  private void age(long version) throws Exception {
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(31)));
    try (Stream<Path> files = Files.list(log())) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.matches("\\d{20}\\..*") && Long.parseLong(name.substring(0, 20)) < version) {
          Files.setLastModifiedTime(f, old);
        }
      }
    }
  }

  private static void commit(KernelDeltaTableClient client, long txn) throws Exception {
    assertThat(
            client.commit(
                BRONZE, txn, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(txn))))
        .isEqualTo(CommitOutcome.COMMITTED);
  }

  private Path log() {
    return lake.resolve(BRONZE.relativePath()).resolve("_delta_log");
  }

  private List<String> logCompactions() throws Exception {
    try (Stream<Path> files = Files.list(log())) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".compacted.json"))
          .sorted()
          .toList();
    }
  }

  /** The versions of the log files named {@code <version><suffix>}, in order. */
  private List<Long> versions(String suffix) throws Exception {
    try (Stream<Path> files = Files.list(log())) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}" + java.util.regex.Pattern.quote(suffix)))
          .map(n -> Long.parseLong(n.substring(0, 20)))
          .sorted()
          .toList();
    }
  }
}
