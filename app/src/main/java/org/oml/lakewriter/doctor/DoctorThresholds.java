package org.oml.lakewriter.doctor;

import java.time.Duration;
import org.oml.lakewriter.delta.compact.CompactionPolicy;

/**
 * The limits the doctor's checks compare against (docs/doctor.md, "Thresholds"). Each is a {@code
 * lakewriter doctor} option; the defaults are the constants below.
 *
 * @param maxRetainedWalBytes WARN when the slot retains more WAL than this
 * @param maxTickAge FAIL when the horizon row was last ticked longer ago than this
 * @param maxHorizonHold a transaction holding the horizon is a WARN, and a FAIL once older
 * @param maxFrontierAge FAIL when rows wait above the frontier and it has not moved for this long
 * @param maxCommitsWithoutCheckpoint WARN when a table has more commits since its checkpoint;
 *     negative (the default): more than {@link #CHECKPOINT_INTERVALS_BEHIND} times the table's own
 *     {@code delta.checkpointInterval}
 * @param maxSmallFiles WARN when a table has more live files than this ...
 * @param smallFileBytes ... and their average size is below this
 * @param keyedSmallFileBytes ... or, for a table keyed on {@code (artifact_id, version)}, below
 *     this, when lower: their compaction keeps files small on purpose (docs/compaction.md, "Keyed
 *     tables")
 */
public record DoctorThresholds(
    long maxRetainedWalBytes,
    Duration maxTickAge,
    Duration maxHorizonHold,
    Duration maxFrontierAge,
    long maxCommitsWithoutCheckpoint,
    long maxSmallFiles,
    long smallFileBytes,
    long keyedSmallFileBytes) {
  public static final long MAX_RETAINED_WAL_BYTES = 1L << 30;
  public static final Duration MAX_TICK_AGE = Duration.ofMinutes(1);
  public static final Duration MAX_HORIZON_HOLD = Duration.ofMinutes(10);
  public static final Duration MAX_FRONTIER_AGE = Duration.ofMinutes(5);
  /** No fixed number: each table against {@link #CHECKPOINT_INTERVALS_BEHIND} of its intervals. */
  public static final long MAX_COMMITS_WITHOUT_CHECKPOINT = -1;

  /** A table this many of its own checkpoint intervals behind has missed four checkpoints. */
  public static final long CHECKPOINT_INTERVALS_BEHIND = 5;

  /** The most commits {@code table} may have since its checkpoint before the doctor warns. */
  public long maxCommitsWithoutCheckpoint(Facts.LakeTable table) {
    return maxCommitsWithoutCheckpoint >= 0
        ? maxCommitsWithoutCheckpoint
        : CHECKPOINT_INTERVALS_BEHIND * table.checkpointInterval();
  }

  public static final long MAX_SMALL_FILES = 1000;
  public static final long SMALL_FILE_BYTES = 8L << 20;
  /** The small files of a keyed table at the job's default compaction: half its target. */
  public static final long KEYED_SMALL_FILE_BYTES = CompactionPolicy.KEYED_TARGET_FILE_BYTES / 2;

  public static DoctorThresholds defaults() {
    return new DoctorThresholds(
        MAX_RETAINED_WAL_BYTES,
        MAX_TICK_AGE,
        MAX_HORIZON_HOLD,
        MAX_FRONTIER_AGE,
        MAX_COMMITS_WITHOUT_CHECKPOINT,
        MAX_SMALL_FILES,
        SMALL_FILE_BYTES,
        KEYED_SMALL_FILE_BYTES);
  }
}
