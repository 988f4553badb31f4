package org.oml.lakewriter.delta;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where the lake lives and how to reach it: the root URI ({@code file:/...}, {@code s3a://...},
 * {@code abfs://...}) and the Hadoop configuration entries for its filesystem; and the log
 * checkpoint interval that a writing client keeps on its tables ({@code delta.checkpointInterval},
 * see docs/scale.md, "Log checkpoints every 100 commits"), whether each table checkpoints at a
 * phase of its own ("Staggered log checkpoints"), and the interval of its log compaction files
 * ("Log compaction every 10 commits"). Serializable (plain strings, ints and a boolean)
 * because it travels inside the sink to the task managers, where each task builds its own Hadoop
 * {@code Configuration}; that class is not serializable and holds no secrets of ours.
 */
public final class LakeConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The writer's tables are checkpointed every this many commits: at one commit per table per
   * Flink checkpoint, a log checkpoint every 50 s per table at a 500 ms checkpoint interval.
   */
  public static final int DEFAULT_LOG_CHECKPOINT_INTERVAL = 100;

  /**
   * Every this many commits a writing client also writes a log compaction file of the last this
   * many commits, so that a reader replays at most about three times this many log files after the
   * last checkpoint instead of up to {@link #DEFAULT_LOG_CHECKPOINT_INTERVAL}; 0 writes none.
   */
  public static final int DEFAULT_LOG_COMPACTION_INTERVAL = 10;

  private final String lakeRoot;
  private final TreeMap<String, String> hadoopProperties;
  private final int logCheckpointInterval;
  private final int logCompactionInterval;
  private final boolean logCheckpointsStaggered;

  public LakeConfig(String lakeRoot, Map<String, String> hadoopProperties) {
    this(
        lakeRoot,
        hadoopProperties,
        DEFAULT_LOG_CHECKPOINT_INTERVAL,
        DEFAULT_LOG_COMPACTION_INTERVAL,
        true);
  }

  private LakeConfig(
      String lakeRoot,
      Map<String, String> hadoopProperties,
      int interval,
      int compaction,
      boolean staggered) {
    Objects.requireNonNull(lakeRoot, "lakeRoot");
    if (lakeRoot.isBlank()) {
      throw new IllegalArgumentException("lake root is blank");
    }
    if (interval < 1) {
      throw new IllegalArgumentException("log checkpoint interval " + interval + " is below 1");
    }
    if (compaction < 0 || compaction == 1) {
      throw new IllegalArgumentException(
          "log compaction interval " + compaction + " is neither 0 (none) nor at least 2");
    }
    this.lakeRoot =
        lakeRoot.endsWith("/") ? lakeRoot.substring(0, lakeRoot.length() - 1) : lakeRoot;
    this.hadoopProperties = new TreeMap<>(hadoopProperties);
    this.logCheckpointInterval = interval;
    this.logCompactionInterval = compaction;
    this.logCheckpointsStaggered = staggered;
  }

  /** This lake with another log checkpoint interval for the tables a client writes. */
  public LakeConfig withLogCheckpointInterval(int interval) {
    return new LakeConfig(
        lakeRoot, hadoopProperties, interval, logCompactionInterval, logCheckpointsStaggered);
  }

  /** This lake with another log compaction interval (0: none) for the tables a client writes. */
  public LakeConfig withLogCompactionInterval(int interval) {
    return new LakeConfig(
        lakeRoot, hadoopProperties, logCheckpointInterval, interval, logCheckpointsStaggered);
  }

  /**
   * This lake with each table's log checkpoints at a phase of its own within the interval ({@code
   * true}, the default) or at the multiples of the interval, as Delta's writers place them.
   */
  public LakeConfig withLogCheckpointsStaggered(boolean staggered) {
    return new LakeConfig(
        lakeRoot, hadoopProperties, logCheckpointInterval, logCompactionInterval, staggered);
  }

  public static LakeConfig of(String lakeRoot) {
    return new LakeConfig(lakeRoot, Map.of());
  }

  /** The lake root without a trailing slash, as configured (not yet qualified). */
  public String lakeRoot() {
    return lakeRoot;
  }

  public Map<String, String> hadoopProperties() {
    return java.util.Collections.unmodifiableMap(hadoopProperties);
  }

  /** The {@code delta.checkpointInterval} that a writing client creates and keeps its tables at. */
  public int logCheckpointInterval() {
    return logCheckpointInterval;
  }

  /** Every how many commits a writing client writes a log compaction file; 0: never. */
  public int logCompactionInterval() {
    return logCompactionInterval;
  }

  /** Whether each table's log checkpoints are at a phase of its own (see the setter). */
  public boolean logCheckpointsStaggered() {
    return logCheckpointsStaggered;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LakeConfig
        && ((LakeConfig) o).lakeRoot.equals(lakeRoot)
        && ((LakeConfig) o).hadoopProperties.equals(hadoopProperties)
        && ((LakeConfig) o).logCheckpointInterval == logCheckpointInterval
        && ((LakeConfig) o).logCompactionInterval == logCompactionInterval
        && ((LakeConfig) o).logCheckpointsStaggered == logCheckpointsStaggered;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        lakeRoot,
        hadoopProperties,
        logCheckpointInterval,
        logCompactionInterval,
        logCheckpointsStaggered);
  }

  @Override
  public String toString() {
    // Property values may hold credentials (fs.s3a.secret.key): print the keys only.
    return "LakeConfig{root=" + lakeRoot + ", hadoopKeys=" + hadoopProperties.keySet()
        + ", logCheckpointInterval=" + logCheckpointInterval
        + ", logCompactionInterval=" + logCompactionInterval
        + ", logCheckpointsStaggered=" + logCheckpointsStaggered + "}";
  }
}
