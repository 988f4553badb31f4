package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.sink.DeltaSinkBuilder;
import org.oml.lakewriter.delta.testing.ListOutbox;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.testing.faultfs.ErrorRecordingClient;
import org.oml.lakewriter.delta.testing.faultfs.FaultFileSystem;
import org.oml.lakewriter.delta.testing.faultfs.StorageFaults;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * Issue 13, lake storage faults (see {@code docs/failure-matrix.md}), in a real Flink job on real
 * Delta tables. The lake is reached through {@link FaultFileSystem} ({@code faultfs:}, the local
 * filesystem with injected faults and the atomic log store); each fault starts once the lake has
 * some history, lasts a while, then clears. Each must end in an error that names the table and the
 * fault, and once it clears every seq is in bronze exactly once, read back over plain {@code file:}
 * by {@link LakeReader}.
 *
 * <ul>
 *   <li>The disk fills: writes of data files and of log entries fail with ENOSPC. The committer
 *       retries in place (Kernel first retries the log write itself); a writer that meets it at a
 *       barrier fails the job over. Both heal once space is back.
 *   <li>{@code _delta_log} cannot be listed or read: the committer retries in place, the writer
 *       fails over; a listing that fails must never read as "no table".
 *   <li>A log checkpoint cannot be written after its commit: the commit stands.
 *   <li>A staged data file vanishes between the writer's barrier and the commit: the commit is
 *       refused (a commit naming a missing file would make the table unreadable), the tenant is
 *       quarantined with the file named, and replayed from the outbox.
 * </ul>
 */
class LakeStorageFaultsITCase {
  private static final int BATCHES = 40;
  /** Whichever table's read or commit meets the fault first: timing decides, not the test. */
  private static final String ANY_TABLE = "(acme|beta)/(bronze|silver|gold)/[a-z_]+";

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @Test
  void aFullDiskFailsOverUntilSpaceIsBackAndEveryRowLandsOnce() throws Exception {
    String name = "disk-full-" + System.nanoTime();
    StorageFaults.Fault full =
        runUntilTheJobEnds(name, () -> StorageFaults.diskFull(dir, 0, Duration.ofSeconds(2)));

    assertThat(full.injected()).as("writes refused while the disk was full").isPositive();
    assertThat(ErrorRecordingClient.errors(name))
        .as("the failures name the table and the cause")
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsPattern("failure on " + ANY_TABLE)
                    .contains("No space left on device"));
    assertEveryBronzeSeqOnce(SinkDriver.lake(dir));
  }

  /**
   * The disk fills while the writer writes a barrier's data files (the log stays writable, so the
   * writer, not the committer, meets it first): the snapshot phase fails, the job fails over and
   * rewrites the batches from its last checkpoint once space is back.
   */
  @Test
  void aDiskFullAtTheBarrierFailsTheSnapshotOverAndEveryRowLandsOnce() throws Exception {
    String name = "disk-full-barrier-" + System.nanoTime();
    StorageFaults.Fault full =
        runUntilTheJobEnds(
            name,
            () ->
                StorageFaults.diskFull(
                    dir, path -> !path.contains("/_delta_log"), 0, Duration.ofSeconds(2)));

    assertThat(full.injected()).as("data file writes refused").isPositive();
    assertThat(ErrorRecordingClient.errors(name))
        .as("the writer's failure names the table, the file and the cause")
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsPattern("storage failure on (acme|beta)/bronze/journal_events")
                    .contains(".parquet")
                    .contains("No space left on device")
                    .contains("Check the lake storage"));
    assertEveryBronzeSeqOnce(SinkDriver.lake(dir));
  }

  /**
   * The log checkpoint cannot be written (its Parquet file and {@code _last_checkpoint} fail, in
   * the middle of the file) until the first due one was refused: the state a process killed between a log entry and
   * its checkpoint leaves, on every checkpoint due meanwhile. The commit stands (the hook only
   * logs), a half-written checkpoint is never visible, and later checkpoints catch up.
   */
  @Test
  void aLogCheckpointThatCannotBeWrittenLeavesEveryCommitReadable() throws Exception {
    String name = "checkpoint-write-" + System.nanoTime();
    LakeConfig lake = FaultFileSystem.lake(dir).withLogCheckpointInterval(10);
    StorageFaults.Fault full =
        StorageFaults.diskFull(
            dir,
            path -> path.contains(".checkpoint.") || path.endsWith("_last_checkpoint"),
            0,
            Duration.ofMinutes(5));
    try {
      JobClient job =
          start(
              new ErrorRecordingClient.Factory(new KernelTableClientFactory(lake), name),
              noRestarts(),
              CommitBlipMiniClusterITCase::batch,
              null);
      // The space comes back once the first due checkpoint was refused (log version 10 of 40).
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (full.injected() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      StorageFaults.remove(full);
      job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
    } finally {
      StorageFaults.remove(full);
    }

    assertThat(full.injected()).as("checkpoint writes refused").isPositive();
    assertThat(ErrorRecordingClient.errors(name)).as("no commit failed").isEmpty();
    assertEveryBronzeSeqOnce(SinkDriver.lake(dir));
    assertThat(dir.resolve(acme().relativePath()).resolve("_delta_log/_last_checkpoint"))
        .as("a later checkpoint caught up")
        .exists();
  }

  /**
   * {@code _delta_log} cannot be listed or read for 2 s. The committer retries in place; the
   * writer, which reads the log at the barrier (txn versions, the silver key index's snapshot),
   * fails over. An unreadable log must never read as an absent table ({@code SnapshotCache} tells
   * "not found" from "cannot tell"), or the writer would plan every row again.
   */
  @Test
  void anUnreadableLogFailsOverUntilItIsReadableAndEveryRowLandsOnce() throws Exception {
    String name = "log-unreadable-" + System.nanoTime();
    StorageFaults.Fault unreadable =
        runUntilTheJobEnds(
            name, () -> StorageFaults.logUnreadable(dir, 0, Duration.ofSeconds(2)));

    assertThat(unreadable.injected()).as("log reads refused").isPositive();
    assertThat(ErrorRecordingClient.errors(name))
        .as("the failures name the table and the cause")
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsPattern("storage failure on " + ANY_TABLE)
                    .contains("_delta_log is unreadable")
                    .contains("Check the lake storage"));
    assertEveryBronzeSeqOnce(SinkDriver.lake(dir));
  }

  @Test
  void aDataFileThatVanishesBeforeItsCommitIsRefusedAndItsTenantReplayed() throws Exception {
    String name = "vanish-" + System.nanoTime();
    LakeConfig lake = SinkDriver.lake(dir);
    ListOutbox outbox = new ListOutbox(name);
    for (long i = 0; i < BATCHES; i++) {
      outbox.add(CommitBlipMiniClusterITCase.batch(i).events());
    }
    JobClient job =
        start(
            new DeletingBeforeCommit(new KernelTableClientFactory(lake), dir, name),
            noRestarts(),
            CommitBlipMiniClusterITCase::batch,
            outbox);
    job.getJobExecutionResult().get(3, TimeUnit.MINUTES);

    assertThat(DeletingBeforeCommit.DELETED.get(name).get()).as("files deleted").isEqualTo(1);
    assertThat(ErrorRecordingClient.errors(name))
        .as("the refusal names the file and what happens next")
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .contains("beta/bronze/journal_events")
                    .contains(".parquet")
                    .contains("is gone")
                    .contains("re-read from the outbox"));
    assertThat(outbox.reads()).as("beta replayed from the outbox").isPositive();
    assertThat(new LakeQuarantineStore(lake).list()).as("quarantine released").isEmpty();
    assertEveryBronzeSeqOnce(lake);
  }

  private static TableId acme() {
    return TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  }

  /**
   * Starts the job on the fault filesystem, injects a fault (which clears by itself) once acme's
   * bronze reaches seq 50, and waits for the job to end; the fault is removed in any case.
   */
  private StorageFaults.Fault runUntilTheJobEnds(
      String name, java.util.function.Supplier<StorageFaults.Fault> inject) throws Exception {
    LakeConfig lake = FaultFileSystem.lake(dir);
    JobClient job =
        start(
            new ErrorRecordingClient.Factory(new KernelTableClientFactory(lake), name),
            restarts(100),
            CommitBlipMiniClusterITCase::batch,
            null);
    awaitTxn(acme(), 50);
    StorageFaults.Fault fault = inject.get();
    try {
      job.getJobExecutionResult().get(3, TimeUnit.MINUTES);
    } finally {
      StorageFaults.remove(fault);
    }
    return fault;
  }

  private JobClient start(
      DeltaTableClientFactory clients,
      Configuration config,
      GeneratorFunction<Long, Batch> batches,
      ListOutbox outbox)
      throws Exception {
    config.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    DataGeneratorSource<Batch> source =
        new DataGeneratorSource<>(
            batches, BATCHES, RateLimiterStrategy.perCheckpoint(1), StreamTypes.BATCH);
    DeltaSinkBuilder sink =
        DeltaSink.builder().tableClientFactory(clients).frontierListener(FrontierListener.NONE);
    if (outbox != null) {
      sink.quarantineStore(LakeQuarantineStore.factory(SinkDriver.lake(dir))).tenantReplay(outbox);
    }
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "batches")
        .uid("batches")
        .sinkTo(sink.build())
        .uid("delta-sink");
    return env.executeAsync("storage-faults-it");
  }

  private static Configuration restarts(int attempts) {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    return config;
  }

  private static Configuration noRestarts() {
    Configuration config = new Configuration();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return config;
  }

  /** Waits until the table's txn version reaches {@code seq}, read over plain {@code file:}. */
  private void awaitTxn(TableId table, long seq) throws Exception {
    LakeConfig plain = SinkDriver.lake(dir);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      if (Files.isDirectory(dir.resolve(table.relativePath()).resolve("_delta_log"))
          && LakeReader.open(plain).txnVersion(table) >= seq) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(table + " never reached txn " + seq);
  }

  private static void assertEveryBronzeSeqOnce(LakeConfig lake) throws IOException {
    long end = BATCHES * 10L;
    LakeReader reader = LakeReader.open(lake);
    List<Long> all = LongStream.rangeClosed(1, end).boxed().toList();
    TableId beta = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(reader.contents(acme()).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 1).toList());
    assertThat(reader.contents(beta).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 0).toList());
    assertThat(reader.txnVersion(acme())).isEqualTo(end);
    assertThat(reader.txnVersion(beta)).isEqualTo(end);
  }

  /**
   * The committer's client: just before the first commit of {@code beta/bronze} at or after batch
   * end 150, one of the data files the writer staged for it is deleted (an over-eager VACUUM, a
   * lifecycle rule, an operator's clean-up).
   */
  static final class DeletingBeforeCommit extends ErrorRecordingClient.Factory {
    private static final long serialVersionUID = 1L;
    static final Map<String, AtomicInteger> DELETED = new ConcurrentHashMap<>();
    private final String lakeDir;

    DeletingBeforeCommit(KernelTableClientFactory delegate, Path lakeDir, String name) {
      super(delegate, name);
      DELETED.put(name, new AtomicInteger());
      this.lakeDir = lakeDir.toString();
    }

    @Override
    public DeltaTableClient create() throws IOException {
      return new ErrorRecordingClient(delegate.create(), name) {
        @Override
        public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
            throws IOException {
          if (table.prefix().equals("beta")
              && batchEnd >= 150
              && !files.isEmpty()
              && DELETED.get(name).compareAndSet(0, 1)) {
            Path file =
                Path.of(lakeDir, table.relativePath()).resolve(files.get(0).relativePath());
            Files.delete(file);
          }
          return super.commit(table, batchEnd, files);
        }
      };
    }
  }
}
