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
import java.util.stream.LongStream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.testing.flink.RejectOnceCheckpointStorage;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * Issue 13, checkpoint faults of the two-phase commit, in a real Flink job on real Delta tables
 * (see {@code docs/failure-matrix.md}):
 *
 * <ul>
 *   <li>The asynchronous part of a checkpoint fails: the checkpoint storage rejects one state
 *       write. The checkpoint is declined and the job fails over; the batches of that checkpoint,
 *       already written as Parquet files by the writer, are never committed from it, and are
 *       written and committed again after the restore. Every row once.
 *   <li>{@code notifyCheckpointComplete} never arrives: checkpoint N completes, but the sink's task
 *       is stuck before it can handle the notification, so N's committables are in the checkpoint
 *       and not in the lake. The job is cancelled and a NEW job is restored from the retained
 *       checkpoint N: its committer must commit N's committables exactly once (the source resumes
 *       after them, so nothing else would bring those rows back).
 * </ul>
 */
class CheckpointFaultsITCase {
  private static final int BATCHES = 40;

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @Test
  void aFailedAsynchronousCheckpointPartFailsOverAndEveryRowLandsOnce() throws Exception {
    String name = "async-" + System.nanoTime();
    LakeConfig lake = SinkDriver.lake(dir.resolve("lake"));
    Configuration config = base();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = env(config);
    // Each checkpoint opens a few state streams (source split, committables): stream 20 falls in
    // a checkpoint well after the first commits.
    env.getCheckpointConfig()
        .setCheckpointStorage(
            new RejectOnceCheckpointStorage(
                new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri()), name, 20));
    pipeline(env, lake, new StallAfterCheckpoint(name, Long.MAX_VALUE));
    env.execute("async-checkpoint-fault-it");

    assertThat(RejectOnceCheckpointStorage.rejected(name)).as("state writes rejected").isOne();
    assertThat(StallAfterCheckpoint.ATTEMPTS.get(name)).as("the job failed over").isPositive();
    assertEveryBronzeSeqOnce(lake);
  }

  @Test
  void aCheckpointWhoseNotificationNeverArrivesIsCommittedOnceByTheRestoredJob()
      throws Exception {
    String name = "no-notify-" + System.nanoTime();
    LakeConfig lake = SinkDriver.lake(dir.resolve("lake"));
    Path checkpoints = dir.resolve("checkpoints");
    Configuration config = base();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    config.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    StreamExecutionEnvironment env = env(config);
    pipeline(env, lake, new StallAfterCheckpoint(name, 5));
    JobClient first = env.executeAsync("no-notify-it-1");

    long n = await(() -> StallAfterCheckpoint.ARMED.get(name), "a checkpoint to stall after");
    Path chk = checkpoints.resolve(first.getJobID().toHexString()).resolve("chk-" + n);
    await(() -> Files.exists(chk.resolve("_metadata")) ? Boolean.TRUE : null, "chk-" + n);
    Thread.sleep(500); // the JobManager has sent its notification; the stuck task never handles it
    long ended = StallAfterCheckpoint.END.get(name);
    long committed = txnOrNone(lake, acme());
    assertThat(committed)
        .as("checkpoint %s holds batches up to %s that no notification committed", n, ended)
        .isLessThan(ended);
    System.out.printf(
        "no-notify: checkpoint %d completed holding batches up to %d; the lake is at txn %d%n",
        n, ended, committed);
    first.cancel().get(1, TimeUnit.MINUTES);
    await(
        () -> first.getJobStatus().get().isGloballyTerminalState() ? Boolean.TRUE : null,
        "the first job to end");
    assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(txnOrNone(lake, acme())).as("nothing committed by the cancel").isEqualTo(committed);

    Configuration restore = base();
    restore.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    restore.set(StateRecoveryOptions.SAVEPOINT_PATH, chk.toUri().toString());
    StreamExecutionEnvironment second = env(restore);
    pipeline(second, lake, new StallAfterCheckpoint(name + "-restored", Long.MAX_VALUE));
    second.execute("no-notify-it-2");

    assertEveryBronzeSeqOnce(lake);
  }

  static Configuration base() {
    Configuration config = new Configuration();
    config.set(PipelineOptions.GENERIC_TYPES, false);
    return config;
  }

  static StreamExecutionEnvironment env(Configuration config) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    return env;
  }

  static void pipeline(
      StreamExecutionEnvironment env, LakeConfig lake, StallAfterCheckpoint stall) {
    DataGeneratorSource<Batch> source =
        new DataGeneratorSource<>(
            CommitBlipMiniClusterITCase::batch,
            BATCHES,
            RateLimiterStrategy.perCheckpoint(1),
            StreamTypes.BATCH);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "batches")
        .uid("batches")
        .transform("stall", StreamTypes.BATCH, stall)
        .uid("stall")
        .sinkTo(
            DeltaSink.builder()
                .tableClientFactory(new KernelTableClientFactory(lake))
                .frontierListener(FrontierListener.NONE)
                .build())
        .uid("delta-sink");
  }

  static TableId acme() {
    return TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  }

  static long txnOrNone(LakeConfig lake, TableId table) throws IOException {
    return LakeReader.open(lake).contents(table).isPresent()
        ? LakeReader.open(lake).txnVersion(table)
        : -1;
  }

  static <T> T await(java.util.concurrent.Callable<T> probe, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      T value = probe.call();
      if (value != null) {
        return value;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  static void assertEveryBronzeSeqOnce(LakeConfig lake) throws IOException {
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
   * Passes batches through and records the task's attempt number. Once, right after the
   * synchronous snapshot of a checkpoint at or after {@code armAt} that holds at least one new
   * batch, it puts a mail into the task's mailbox that blocks the task's thread until the task is
   * cancelled. The checkpoint's asynchronous part runs on another thread, so the checkpoint
   * completes; its completion notification is a later mail of the same mailbox and is never
   * handled, by this operator or by the sink's committer.
   */
  static final class StallAfterCheckpoint extends AbstractStreamOperatorFactory<Batch>
      implements OneInputStreamOperatorFactory<Batch, Batch> {
    private static final long serialVersionUID = 1L;
    static final Map<String, Long> ARMED = new ConcurrentHashMap<>();
    static final Map<String, Long> END = new ConcurrentHashMap<>();
    static final Map<String, Integer> ATTEMPTS = new ConcurrentHashMap<>();
    /** The end of the first batch each start of the operator saw, in start order. */
    static final Map<String, List<Long>> FIRST_BATCHES = new ConcurrentHashMap<>();
    private final String name;
    private final long armAt;

    StallAfterCheckpoint(String name, long armAt) {
      this.name = name;
      this.armAt = armAt;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<Batch>> T createStreamOperator(
        StreamOperatorParameters<Batch> parameters) {
      Stall stall = new Stall(name, armAt, parameters.getMailboxExecutor());
      stall.setup(
          parameters.getContainingTask(), parameters.getStreamConfig(), parameters.getOutput());
      return (T) stall;
    }

    @Override
    public Class<? extends StreamOperator<?>> getStreamOperatorClass(ClassLoader classLoader) {
      return Stall.class;
    }
  }

  static final class Stall extends AbstractStreamOperator<Batch>
      implements OneInputStreamOperator<Batch, Batch> {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final long armAt;
    private final transient MailboxExecutor mailbox;
    private long lastEnd = Long.MIN_VALUE;
    private long endAtLastSnapshot = Long.MIN_VALUE;
    private boolean seenOne;

    Stall(String name, long armAt, MailboxExecutor mailbox) {
      this.name = name;
      this.armAt = armAt;
      this.mailbox = mailbox;
    }

    @Override
    public void open() throws Exception {
      super.open();
      StallAfterCheckpoint.ATTEMPTS.merge(
          name, getRuntimeContext().getTaskInfo().getAttemptNumber(), Math::max);
    }

    @Override
    public void processElement(StreamRecord<Batch> element) {
      lastEnd = element.getValue().batchEnd();
      if (!seenOne) {
        seenOne = true;
        StallAfterCheckpoint.FIRST_BATCHES
            .computeIfAbsent(name, n -> new java.util.concurrent.CopyOnWriteArrayList<>())
            .add(lastEnd);
      }
      output.collect(element);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
      super.snapshotState(context);
      long id = context.getCheckpointId();
      if (id >= armAt
          && lastEnd > endAtLastSnapshot
          && StallAfterCheckpoint.ARMED.putIfAbsent(name, id) == null) {
        StallAfterCheckpoint.END.put(name, lastEnd);
        mailbox.execute(
            () -> {
              while (true) {
                Thread.sleep(10); // until the cancel interrupts the task
              }
            },
            "stall after checkpoint %s",
            id);
      }
      endAtLastSnapshot = lastEnd;
    }
  }
}
