package org.oml.lakewriter.app;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.RestoreMode;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.delta.writer.CommitUnitLimits;
import org.oml.lakewriter.deadletter.DeadLetters;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournalSink;
import org.oml.lakewriter.delta.frontier.JdbcFrontierListener;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.lease.LeaderLease;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseKeeper;
import org.oml.lakewriter.lease.LeaseRecord;
import org.oml.lakewriter.identity.JobIdentity;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lake writer job. One job at parallelism one; every operator has a stable uid, so a
 * savepoint taken today restores after tomorrow's upgrade.
 *
 * <pre>
 *  PostgreSQL --pgoutput--> [outbox-cdc-source] --> [batch-cut] --> [delta-sink: writer -> committer]
 *   oml_outbox                                          |              txn(oml-lakewriter, batchEnd)
 *   oml_lake_horizon                                    +--side output--> [dead-letter-journal]
 *                                                                          oml_lake_dead_letter
 * </pre>
 *
 * <p>A row that cannot be applied travels in its batch to the lake's {@code dead_letter} table
 * (committed with the batch: the authority) and, through the cut's side output, to the PostgreSQL
 * dead-letter journal ({@link DeadLetterJournalSink}), inserted once the batch's checkpoint
 * completes. The stream never stops for such a row.
 *
 * <p>Submitted to a session cluster with {@code flink run app/target/oml-lakewriter-app-0.1.0-SNAPSHOT-job.jar
 * --config lakewriter.properties}; run in-process by {@code lakewriter run} and {@code demo}.
 */
public final class LakeWriterJob {
  public static final String SINK_UID = "delta-sink";
  public static final String DEAD_LETTER_UID = "dead-letter-journal";
  private static final Logger LOG = LoggerFactory.getLogger(LakeWriterJob.class);

  private LakeWriterJob() {}

  /**
   * Adds the whole pipeline to the environment, as a new leader-lease holder, with the job's
   * identity read from the database.
   */
  public static void build(StreamExecutionEnvironment env, LakeWriterConfig cfg) {
    build(env, cfg, LeaseHolder.newForThisProcess(), Preflight.identity(cfg));
  }

  /**
   * Adds the whole pipeline to the environment. The job's committer takes the lake's leader lease
   * as {@code holder} (at once if the starting process already took it as that holder, see {@link
   * #acquireLease}), renews it, and commits only while it holds it. The cut records {@code
   * identity} in its state and refuses to restore state recorded under another one.
   *
   * @return the cut's batch stream, for a caller that adds operators of its own
   */
  public static SingleOutputStreamOperator<Batch> build(
      StreamExecutionEnvironment env,
      LakeWriterConfig cfg,
      LeaseHolder holder,
      JobIdentity identity) {
    return build(env, cfg, holder, identity, cfg.get(LakeWriterOptions.KEY_CACHE_DIR));
  }

  /**
   * As {@link #build(StreamExecutionEnvironment, LakeWriterConfig, LeaseHolder, JobIdentity)},
   * with the writer's key indexes saved in {@code keyCacheDir} between runs (null: not saved).
   */
  public static SingleOutputStreamOperator<Batch> build(
      StreamExecutionEnvironment env,
      LakeWriterConfig cfg,
      LeaseHolder holder,
      JobIdentity identity,
      String keyCacheDir) {
    SingleOutputStreamOperator<Batch> batches =
        (SingleOutputStreamOperator<Batch>)
            OutboxPipeline.batches(
                env,
                cfg.sourceOptions(),
                cfg.get(LakeWriterOptions.BATCH_MAX_ROWS),
                cfg.get(LakeWriterOptions.BATCH_MAX_BYTES).getBytes(),
                cfg.dataKeyCheck(),
                cfg.retryBudget(),
                identity,
                cfg.get(LakeWriterOptions.MIN_TICK_SPACING),
                cfg.get(LakeWriterOptions.CUT_ROW_CACHE).getBytes(),
                cfg.get(LakeWriterOptions.CUT_SNAPSHOT_PHASE_ROWS));
    batches
        .sinkTo(
            DeltaSink.builder()
                .lake(cfg.lake())
                .frontierListener(
                    new JdbcFrontierListener(
                        cfg.jdbcUrl(), cfg.connectionProperties(), cfg.writerId()))
                // A tenant whose table cannot take a batch is held in a durable quarantine in the
                // lake and replayed from the outbox (docs/quarantine.md).
                .tenantReplay(cfg.tenantReplay())
                .maxReplans(cfg.get(LakeWriterOptions.QUARANTINE_MAX_REPLANS))
                .commitUnitLimits(
                    new CommitUnitLimits(
                        cfg.get(LakeWriterOptions.MAX_ROWS_PER_COMMIT),
                        cfg.get(LakeWriterOptions.MAX_BYTES_PER_COMMIT).getBytes()))
                .commitRetry(cfg.commitRetry())
                .commitParallelism(cfg.get(LakeWriterOptions.COMMIT_PARALLELISM))
                .writeParallelism(cfg.get(LakeWriterOptions.WRITE_PARALLELISM))
                // A restart builds its key indexes from the saved copy (docs/key-cache.md).
                .keyCacheDir(keyCacheDir)
                // Small files rewritten after a checkpoint's commits (docs/compaction.md).
                .compaction(cfg.compactionPolicy())
                // The gold zone in the same commits (docs/gold-streaming.md).
                .gold(cfg.get(LakeWriterOptions.GOLD_ENABLED))
                .leaderLease(LeaseKeeper.factory(cfg.leaseSettings(holder)))
                .build())
        .uid(SINK_UID)
        .name("Delta 2PC sink")
        .setParallelism(1);
    // The lake's dead_letter tables (committed with each batch, above) are the authority on what
    // was skipped; this journal is the PostgreSQL copy that operators and the reconciler query.
    DataStream<OutboxEvent> deadLetters = batches.getSideOutput(DeadLetters.TAG);
    deadLetters
        .sinkTo(
            new DeadLetterJournalSink(
                cfg.jdbcUrl(),
                cfg.connectionProperties(),
                cfg.get(LakeWriterOptions.POSTGRES_SCHEMA),
                cfg.writerId(),
                cfg.get(LakeWriterOptions.JOURNAL_RETRY_WINDOW)))
        .uid(DEAD_LETTER_UID)
        .name("dead-letter journal")
        .setParallelism(1);
    return batches;
  }

  /**
   * Completed checkpoints the JobManager keeps. Flink 1.20's incremental RocksDB snapshot may build
   * on the checkpoint before the last completed one: when a task handles the next checkpoint's
   * barrier before the previous checkpoint's completion notice (the committer's Delta commits in
   * that notice hold the task thread), it refers to SST uploads of a checkpoint the JobManager
   * has already subsumed; with one retained checkpoint those uploads are gone, the JobManager
   * rejects the acknowledgement ("Attempt to reference unknown state") and nothing commits until
   * the checkpoint expires. Keeping two covers that lag of one (docs/dependencies-and-timeouts.md,
   * section 5).
   */
  public static final int RETAINED_CHECKPOINTS = 2;

  /**
   * The Flink settings the job relies on: RocksDB (or heap) state with incremental checkpoints,
   * exactly-once checkpoints that are kept on cancel, and no Kryo fallback.
   */
  public static Configuration flinkConfiguration(LakeWriterConfig cfg, Path stateDir) {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, cfg.get(LakeWriterOptions.STATE_BACKEND));
    // The cut's buffer can hold a million rows while catching up, and checkpoints pass between
    // its turns: copy only the RocksDB files that changed, as flink-conf/config.yaml does.
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    // The cut reads its buffer with one point get per row. With one index block per SST file
    // (64 MiB files: ~0.5 MiB of compressed index each), Flink's shared block cache (64 shards of
    // managed memory) cannot keep those blocks, and every get re-read and decompressed a whole
    // index block: a 1M-row catch-up ran 5-17 times slower, at random (docs/scale.md, "the slow
    // mode"). Partitioned indexes load only a 4 KiB partition per get under a pinned top level.
    conf.set(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS, true);
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, RETAINED_CHECKPOINTS);
    if (stateDir != null) {
      conf.set(
          CheckpointingOptions.CHECKPOINTS_DIRECTORY,
          stateDir.resolve("checkpoints").toUri().toString());
      conf.set(
          CheckpointingOptions.SAVEPOINT_DIRECTORY,
          stateDir.resolve("savepoints").toUri().toString());
    }
    conf.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    return conf;
  }

  /**
   * Sets {@code conf} to start the job from {@code dir}: a retained checkpoint
   * ({@code checkpoints/<job>/chk-N}) or a savepoint ({@code savepoints/savepoint-*}).
   *
   * <p>A retained checkpoint is claimed ({@link RestoreMode#CLAIM}): the new job owns it as one of
   * its {@link #RETAINED_CHECKPOINTS}, and Flink deletes it once two newer ones have completed.
   * Unclaimed (Flink's default), it is kept as a savepoint would be, and the JobManager drops its
   * files from its registry as soon as the first new checkpoint completes. A task that handles
   * that completion's notice late (the commits run inside it) takes its next incremental
   * snapshot on the restored checkpoint's files, and the JobManager rejects it ("Attempt to
   * reference unknown state"): nothing commits until it expires (docs/dependencies-and-
   * timeouts.md, section 5). A savepoint stays the operator's and is never claimed.
   */
  public static void restoreFrom(Configuration conf, Path dir) {
    conf.set(StateRecoveryOptions.SAVEPOINT_PATH, dir.toUri().toString());
    RestoreMode mode = isSavepoint(dir) ? RestoreMode.NO_CLAIM : RestoreMode.CLAIM;
    conf.set(StateRecoveryOptions.RESTORE_MODE, mode);
  }

  /** True for a savepoint's directory ({@code savepoint-*}), false for a checkpoint's. */
  public static boolean isSavepoint(Path dir) {
    return dir.getFileName().toString().startsWith("savepoint");
  }

  public static void configure(StreamExecutionEnvironment env, LakeWriterConfig cfg) {
    env.setParallelism(1);
    env.enableCheckpointing(cfg.checkpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
    // A checkpoint whose acknowledgement is lost never completes: until it expires, no further
    // checkpoint starts and nothing is committed. Expire it well before Flink's 10 minutes.
    env.getCheckpointConfig().setCheckpointTimeout(cfg.checkpointTimeout().toMillis());
  }

  /**
   * Takes the lake's leader lease for {@code holder} before the job is started, so that a second
   * writer is refused before it creates a replication slot or touches the lake; waits up to {@code
   * lease.wait} for the lease of a writer that stopped renewing. The job's committer then takes it
   * over as the same holder, without waiting, and renews it; it must start within {@code
   * lease.duration}.
   *
   * @throws org.oml.lakewriter.lease.LeaseHeldException (LEASE_HELD) naming the holder
   */
  public static LeaseRecord acquireLease(
      LakeWriterConfig cfg, LeaseHolder holder, java.util.function.Consumer<String> progress) {
    return acquireLease(cfg, holder, job -> true, progress);
  }

  /**
   * {@link #acquireLease}, for a start that knows which jobs' state it resumes: an expired lease
   * of another job stays reserved to that job's restart for one more {@code lease.duration}
   * ({@link LeaderLease#acquire}).
   */
  public static LeaseRecord acquireLease(
      LakeWriterConfig cfg,
      LeaseHolder holder,
      java.util.function.Predicate<String> resumesJob,
      java.util.function.Consumer<String> progress) {
    try (java.sql.Connection c = Preflight.connect(cfg)) {
      LeaseRecord lease =
          LeaderLease.acquire(
              c,
              cfg.leaseSettings(holder),
              cfg.get(LakeWriterOptions.LEASE_WAIT),
              resumesJob,
              progress);
      LOG.info("leader lease acquired: {}", lease.describe());
      return lease;
    } catch (java.sql.SQLException e) {
      throw new ConfigException(
          "cannot take the leader lease in " + LeaderLease.TABLE + " (" + e.getMessage()
              + "); run `lakewriter init-db` if the table is missing", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigException("interrupted while waiting for the leader lease", e);
    }
  }

  /** Ends {@code holder}'s lease now (a start that failed before the job ran); best effort. */
  public static void releaseLease(LakeWriterConfig cfg, LeaseHolder holder, long epoch) {
    try (java.sql.Connection c = Preflight.connect(cfg)) {
      LeaderLease.release(c, cfg.leaseSettings(holder), epoch);
    } catch (java.sql.SQLException | RuntimeException e) {
      LOG.warn("leader lease not released ({}); it expires after lease.duration", e.toString());
    }
  }

  /**
   * Entry point for {@code flink run} and for a REST submission ({@code /jars/{id}/run}), where
   * it runs on the JobManager in the job's own class loader: {@code --config file}, {@code
   * --<option> value} and {@code --accept-lost-slot}. See docs/session-cluster.md.
   */
  public static void main(String[] args) throws Exception {
    submit(args, batches -> {});
  }

  /**
   * {@link #main}, with {@code extension} given the cut's batch stream to add operators to (a
   * later build's graph; the session-cluster test's "next build" adds one).
   *
   * <p>Runs where the job is submitted: the preflight (contract, slot, lake root) runs here, on
   * the cluster's side for a REST submission, and a restore from a savepoint or checkpoint ({@code
   * -s}, {@code savepointPath}) whose replication slot is gone fails with {@code SLOT_LOST} unless
   * {@code --accept-lost-slot} is given. The cluster's state backend and checkpoint and savepoint
   * directories are used as they are, and logged ({@link ClusterStateSettings}).
   */
  public static void submit(String[] args, Consumer<SingleOutputStreamOperator<Batch>> extension)
      throws Exception {
    ParameterTool params = ParameterTool.fromArgs(args);
    Map<String, String> overrides = new HashMap<>(params.toMap());
    String file = overrides.remove("config");
    boolean acceptLostSlot = flag(overrides.remove(ACCEPT_LOST_SLOT));
    LakeWriterConfig cfg = LakeWriterConfig.load(file == null ? null : Path.of(file), overrides);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    ClusterStateSettings cluster = ClusterStateSettings.of(env.getConfiguration());
    LOG.info("{}", cluster.describe(cfg));
    cluster.warnings(cfg).forEach(w -> LOG.warn("{}", w));
    LeaseHolder holder = LeaseHolder.newForThisProcess();
    LeaseRecord lease = acquireLease(cfg, holder, m -> LOG.info("{}", m));
    try {
      Preflight.check(cfg, cluster.restorePath().isPresent(), acceptLostSlot);
    } catch (RuntimeException e) {
      releaseLease(cfg, holder, lease.epoch());
      throw e;
    }
    LOG.info(
        "preflight passed in {} ({}): contract, slot {} and lake root {}",
        java.lang.management.ManagementFactory.getRuntimeMXBean().getName(),
        cluster.restorePath().map(p -> "restoring from " + p).orElse("fresh start"),
        cfg.get(LakeWriterOptions.SLOT),
        cfg.lakeRoot());
    configure(env, cfg);
    extension.accept(build(env, cfg, holder, Preflight.identity(cfg)));
    LOG.info("submitting the lake writer with {}", cfg);
    env.execute("oml-lakewriter " + cfg.writerId());
  }

  /** {@code --accept-lost-slot} of {@link #main}: the operator acknowledged a lost slot. */
  public static final String ACCEPT_LOST_SLOT = "accept-lost-slot";

  /** A flag given alone ({@code --accept-lost-slot}) or with a value ({@code true}/{@code false}). */
  static boolean flag(String value) {
    if (value == null || value.equals("false")) {
      return false;
    }
    // ParameterTool's NO_VALUE_KEY (protected there): the flag was given without a value.
    if (value.equals("true") || value.equals("__NO_VALUE_KEY")) {
      return true;
    }
    throw new ConfigException(
        "--" + ACCEPT_LOST_SLOT + " takes no value (or true/false), not '" + value + "'");
  }
}
