package org.oml.lakewriter.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;

/**
 * What a Flink cluster decides for the job when it is submitted with {@code flink run} or over
 * REST ({@code /jars/{id}/run}): the state backend, the checkpoint and savepoint directories, and
 * the savepoint or checkpoint the job restores from. The job reads them from the execution
 * environment's configuration (the cluster's {@code config.yaml} plus the submission's options)
 * and never replaces them: on a cluster, {@code lakewriter}'s own {@code state.backend} and
 * {@code state.dir} options, which configure {@code lakewriter run}'s in-process cluster, do not
 * apply, and saying so is better than ignoring them silently.
 */
public final class ClusterStateSettings {
  private final String stateBackend;
  private final String checkpointsDir;
  private final String savepointsDir;
  private final String restorePath;
  private final Duration clusterCheckpointInterval;
  private final boolean partitionedIndex;
  private final int retainedCheckpoints;

  private ClusterStateSettings(
      String stateBackend,
      String checkpointsDir,
      String savepointsDir,
      String restorePath,
      Duration clusterCheckpointInterval,
      boolean partitionedIndex,
      int retainedCheckpoints) {
    this.stateBackend = stateBackend;
    this.checkpointsDir = checkpointsDir;
    this.savepointsDir = savepointsDir;
    this.restorePath = restorePath;
    this.clusterCheckpointInterval = clusterCheckpointInterval;
    this.partitionedIndex = partitionedIndex;
    this.retainedCheckpoints = retainedCheckpoints;
  }

  /** Reads the settings from the environment's configuration ({@code env.getConfiguration()}). */
  public static ClusterStateSettings of(ReadableConfig flink) {
    return new ClusterStateSettings(
        flink.get(StateBackendOptions.STATE_BACKEND),
        flink.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).orElse(null),
        flink.getOptional(CheckpointingOptions.SAVEPOINT_DIRECTORY).orElse(null),
        flink.getOptional(StateRecoveryOptions.SAVEPOINT_PATH).orElse(null),
        flink
            .getOptional(
                org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL)
            .orElse(null),
        flink.get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS),
        flink.get(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS));
  }

  /** The savepoint or retained checkpoint the submission restores from ({@code -s}, savepointPath). */
  public Optional<String> restorePath() {
    return Optional.ofNullable(restorePath);
  }

  public String stateBackend() {
    return stateBackend;
  }

  public Optional<String> checkpointsDir() {
    return Optional.ofNullable(checkpointsDir);
  }

  public Optional<String> savepointsDir() {
    return Optional.ofNullable(savepointsDir);
  }

  /** One log line: what the cluster decided, and where the job's state goes. */
  public String describe(LakeWriterConfig cfg) {
    return "cluster state settings: state.backend.type = " + stateBackend
        + ", state.checkpoints.dir = " + (checkpointsDir == null ? "(none)" : checkpointsDir)
        + ", state.savepoints.dir = " + (savepointsDir == null ? "(none)" : savepointsDir)
        + ", checkpoint interval = " + cfg.checkpointInterval()
        + (cfg.isSet(LakeWriterOptions.CHECKPOINT_INTERVAL)
            ? " (" + LakeWriterOptions.CHECKPOINT_INTERVAL.key() + ")"
            : " (" + LakeWriterOptions.CHECKPOINT_INTERVAL.key() + " default)")
        + ", " + (restorePath == null ? "fresh start (no savepoint path)" : "restoring from " + restorePath);
  }

  /**
   * What an operator should change, each naming the option: a cluster without durable checkpoint
   * storage, a heap state backend for a buffer that can grow to millions of rows, RocksDB with
   * whole index blocks or a single retained checkpoint, {@code lakewriter}-only options that a
   * cluster ignores, and a checkpoint interval that differs from the cluster's.
   */
  public List<String> warnings(LakeWriterConfig cfg) {
    List<String> w = new ArrayList<>();
    if (checkpointsDir == null) {
      w.add("CHECKPOINT_STORAGE_VOLATILE: the cluster sets no state.checkpoints.dir, so checkpoints"
          + " live in the JobManager's memory and a JobManager restart loses them (the lake's"
          + " txn versions still prevent duplicates, but the job re-reads from the slot); set"
          + " state.checkpoints.dir in the cluster's config.yaml, as flink-conf/config.yaml does");
    }
    if (!"rocksdb".equalsIgnoreCase(stateBackend)) {
      w.add("HEAP_STATE_BACKEND: state.backend.type = " + stateBackend + ": the cut's buffer lives"
          + " on the TaskManager's heap, and a long-open outbox transaction can exhaust it; set"
          + " state.backend.type: rocksdb in the cluster's config.yaml");
    } else {
      rocksDbWarnings(w);
    }
    for (var option : List.of(LakeWriterOptions.STATE_BACKEND, LakeWriterOptions.STATE_DIR)) {
      if (cfg.isSet(option)) {
        w.add("IGNORED_ON_CLUSTER: " + option.key() + " = " + cfg.get(option) + " configures"
            + " `lakewriter run`'s in-process cluster only; this job uses the cluster's"
            + " state.backend.type and state.checkpoints.dir / state.savepoints.dir");
      }
    }
    if (clusterCheckpointInterval != null
        && !clusterCheckpointInterval.equals(cfg.checkpointInterval())) {
      w.add("CHECKPOINT_INTERVAL_OVERRIDDEN: the job checkpoints every " + cfg.checkpointInterval()
          + " (" + LakeWriterOptions.CHECKPOINT_INTERVAL.key() + "), not the cluster's"
          + " execution.checkpointing.interval = " + clusterCheckpointInterval + ": a checkpoint"
          + " is the lake's commit unit, so the job's option decides");
    }
    return w;
  }

  private void rocksDbWarnings(List<String> w) {
    if (!partitionedIndex) {
      w.add("ROCKSDB_INDEX_NOT_PARTITIONED: " + RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS.key()
          + " is false: while the cut's buffer holds many rows, each of its reads can re-read and"
          + " decompress a whole SST index block, and a catch-up runs several times slower; set it"
          + " to true in the cluster's config.yaml, as flink-conf/config.yaml does");
    }
    if (retainedCheckpoints < LakeWriterJob.RETAINED_CHECKPOINTS) {
      w.add("TOO_FEW_RETAINED_CHECKPOINTS: " + CheckpointingOptions.MAX_RETAINED_CHECKPOINTS.key()
          + " = " + retainedCheckpoints + ": when a checkpoint's completion reaches the task after"
          + " the next checkpoint's barrier (a long Delta commit), Flink 1.20's incremental RocksDB"
          + " snapshot refers to files of the subsumed checkpoint, the JobManager rejects it and"
          + " nothing commits until the checkpoint expires; set it to "
          + LakeWriterJob.RETAINED_CHECKPOINTS + " in the cluster's config.yaml, as"
          + " flink-conf/config.yaml does");
    }
  }
}
