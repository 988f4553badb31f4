package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.it.support.LakeWriterJobs;

/**
 * The lake writer's task thread handles a checkpoint's completion notice late: the Delta commits
 * (and compaction) run inside that notice, and a cut turn can hold the thread while the next
 * checkpoint's barrier arrives. Flink 1.20's incremental RocksDB snapshot then builds on the
 * checkpoint before the last completed one, and refers to SST uploads of a checkpoint the
 * JobManager has subsumed; with Flink's default of one retained checkpoint those uploads are
 * gone, the JobManager rejects the acknowledgement ("Attempt to reference unknown state"), and
 * nothing commits until the checkpoint expires (seen in {@link AimedKillITCase} on CI).
 *
 * <p>This case forces that lag on a small job, in the in-process cluster that {@code lakewriter
 * run} builds from {@link LakeWriterJob#flinkConfiguration}: keyed RocksDB state that changes at
 * every checkpoint, a timer that holds the task thread, and a chained operator whose completion
 * notice holds it longer than a checkpoint takes. No checkpoint may be aborted or expire, and
 * completions never pause. With {@code LAKEWRITER_TEST_RETAINED_CHECKPOINTS=1} in the environment
 * (Flink's default) it fails: the JobManager rejects acknowledgements and checkpoints expire
 * (docs/dependencies-and-timeouts.md, section 5). The second case does the same right after a
 * resume from a retained checkpoint, as {@code lakewriter run} resumes after a {@code kill -9}.
 */
class LateCheckpointNoticeITCase {
  /** Set to 1 to watch this case fail the way Flink's default does. */
  private static final String RETAINED_OVERRIDE = "LAKEWRITER_TEST_RETAINED_CHECKPOINTS";
  /** Set to NO_CLAIM to watch the resume case fail the way Flink's default does. */
  private static final String RESTORE_MODE_OVERRIDE = "LAKEWRITER_TEST_RESTORE_MODE";

  private static final int COMPLETIONS = 30;
  private static final AtomicLong COMPLETED = new AtomicLong();
  private static final AtomicLong ABORTED = new AtomicLong();
  private static final AtomicLong LONGEST_GAP_MS = new AtomicLong();
  private static final AtomicLong LAST_NOTICE_MS = new AtomicLong();
  private static final AtomicLong FIRST_COMPLETED_ID = new AtomicLong();

  @TempDir Path tmp;

  @Test
  void lateCompletionNoticesNeverStallCheckpoints() throws Exception {
    Configuration conf = LakeWriterJob.flinkConfiguration(config(), tmp.resolve("state"));
    String retained = System.getenv(RETAINED_OVERRIDE);
    if (retained != null) {
      conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, Integer.parseInt(retained));
    }
    runUntilCompletions(conf, new KeyedProcessOperator<>(new StateInTimers(true)), COMPLETIONS);
    assertNoStall();
  }

  /**
   * The same lag on the first checkpoint after {@code lakewriter run} resumes from a retained
   * checkpoint (seen in stop 58's outside check after a {@code kill -9}). The keyed operator here
   * never passes the resumed job's first completion notice on to its state backend, as when the
   * next barrier reaches the task before that notice: the backend's next incremental snapshot then
   * builds on the restored checkpoint's files, which the timers leave as they are (a write would
   * soon compact them away). Resumed without a claim (Flink's default,
   * {@code LAKEWRITER_TEST_RESTORE_MODE=NO_CLAIM}), the JobManager has dropped those files from
   * its registry when the first new checkpoint completed, rejects the acknowledgement, and
   * checkpoints stop until it expires. {@link LakeWriterJob#restoreFrom} claims the checkpoint.
   */
  @Test
  void aResumeFromARetainedCheckpointNeverStallsCheckpoints() throws Exception {
    Path state = tmp.resolve("state");
    runUntilCompletions(
        LakeWriterJob.flinkConfiguration(config(), state),
        new KeyedProcessOperator<>(new StateInTimers(true)),
        5);
    List<Path> retained = LakeWriterJobs.completedCheckpoints(state.resolve("checkpoints"));
    assertThat(retained).as("checkpoints retained by the first run").isNotEmpty();
    Path checkpoint = retained.get(retained.size() - 1);

    Configuration conf = LakeWriterJob.flinkConfiguration(config(), state);
    LakeWriterJob.restoreFrom(conf, checkpoint);
    String mode = System.getenv(RESTORE_MODE_OVERRIDE);
    if (mode != null) {
      conf.set(StateRecoveryOptions.RESTORE_MODE, RestoreMode.valueOf(mode));
    }
    runUntilCompletions(conf, new FirstNoticeLost(new StateInTimers(false)), COMPLETIONS);
    assertThat(FIRST_COMPLETED_ID.get())
        .as("the resumed job's first checkpoint follows " + checkpoint.getFileName())
        .isGreaterThan(LakeWriterJobs.checkpointId(checkpoint));
    assertNoStall();
  }

  private LakeWriterConfig config() {
    return LakeWriterConfig.of(
        Map.of(
            "postgres.url", "jdbc:postgresql://localhost/unused",
            "lake.root", tmp.resolve("lake").toString(),
            "checkpoint.interval", "10ms",
            "checkpoint.timeout", "5s"),
        k -> null);
  }

  /**
   * Runs the lagging job, with {@code keyed} as its keyed operator, until {@code completions}
   * checkpoints complete or one is aborted.
   */
  private void runUntilCompletions(
      Configuration conf, KeyedProcessOperator<Long, Long, Long> keyed, int completions)
      throws Exception {
    COMPLETED.set(0);
    ABORTED.set(0);
    LONGEST_GAP_MS.set(0);
    LAST_NOTICE_MS.set(0);
    FIRST_COMPLETED_ID.set(0);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
    LakeWriterJob.configure(env, config());

    env.fromSource(
            // Nearly idle, as a quiet outbox: a barrier finds the keyed task's input empty. The
            // rate limit waits without holding the source's task thread.
            new DataGeneratorSource<>(
                n -> n, Long.MAX_VALUE, RateLimiterStrategy.perSecond(0.2), Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "trickle")
        .uid("trickle")
        .keyBy(n -> n % 64, Types.LONG)
        .transform("keyed-state", Types.LONG, keyed)
        .uid("keyed-state")
        .process(new SlowCompletionNotice())
        .uid("slow-notice")
        .sinkTo(new DiscardingSink<>());

    JobClient job = env.executeAsync("late checkpoint notices");
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (System.nanoTime() < deadline && COMPLETED.get() < completions && ABORTED.get() == 0) {
        Thread.sleep(200);
      }
    } finally {
      job.cancel().get();
    }
    System.out.printf(
        "late checkpoint notices: %d completed from checkpoint %d on, %d aborted, longest gap"
            + " between them %d ms%n",
        COMPLETED.get(), FIRST_COMPLETED_ID.get(), ABORTED.get(), LONGEST_GAP_MS.get());
  }

  private static void assertNoStall() {
    assertThat(LONGEST_GAP_MS.get()).as("longest gap between completions, ms").isLessThan(4000);
    assertThat(ABORTED.get()).as("checkpoints aborted").isZero();
    assertThat(COMPLETED.get()).as("checkpoints completed").isGreaterThanOrEqualTo(COMPLETIONS);
  }

  /**
   * A keyed operator whose state backend never hears of the first checkpoint that completes after
   * it starts: the backend's next snapshot builds on the checkpoint it was restored from, as it
   * does when that notice reaches the task after the next barrier.
   */
  static final class FirstNoticeLost extends KeyedProcessOperator<Long, Long, Long> {
    private transient boolean noticeLost;

    FirstNoticeLost(KeyedProcessFunction<Long, Long, Long> function) {
      super(function);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      if (!noticeLost) {
        noticeLost = true;
        return;
      }
      super.notifyCheckpointComplete(checkpointId);
    }
  }

  /**
   * Starts a chain of timers on the first record. Each timer holds the task thread, like a cut turn
   * or a commit, and writes keyed state, so every checkpoint flushes a new SST file.
   */
  static final class StateInTimers extends KeyedProcessFunction<Long, Long, Long> {
    private final boolean writes;
    private transient MapState<Long, Long> written;
    private transient boolean started;

    /** @param writes false: the timers hold the thread but leave the state's files as they are */
    StateInTimers(boolean writes) {
      this.writes = writes;
    }

    @Override
    public void open(OpenContext context) {
      written =
          getRuntimeContext()
              .getMapState(new MapStateDescriptor<>("written", Types.LONG, Types.LONG));
    }

    @Override
    public void processElement(Long n, Context ctx, Collector<Long> out) throws Exception {
      if (!started) {
        started = true;
        ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime());
      }
      out.collect(n);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out)
        throws Exception {
      // A long mail: a checkpoint completes, and the next barrier arrives, while it runs.
      Thread.sleep(250);
      if (writes) {
        written.put(timestamp, timestamp);
      }
      long next = ctx.timerService().currentProcessingTime() + 50;
      ctx.timerService().registerProcessingTimeTimer(next);
    }
  }

  /** A chained operator whose completion notice takes longer than a checkpoint, like a commit. */
  static final class SlowCompletionNotice extends ProcessFunction<Long, Long>
      implements CheckpointListener {
    @Override
    public void processElement(Long n, Context ctx, Collector<Long> out) {
      out.collect(n);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      long now = System.currentTimeMillis();
      long previous = LAST_NOTICE_MS.getAndSet(now);
      if (previous > 0) {
        LONGEST_GAP_MS.accumulateAndGet(now - previous, Math::max);
      }
      COMPLETED.incrementAndGet();
      FIRST_COMPLETED_ID.compareAndSet(0, checkpointId);
      Thread.sleep(400);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
      ABORTED.incrementAndGet();
    }
  }
}
