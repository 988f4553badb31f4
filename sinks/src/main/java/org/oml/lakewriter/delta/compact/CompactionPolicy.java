package org.oml.lakewriter.delta.compact;

import java.io.Serializable;
import java.time.Duration;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.TableKind;

/**
 * When and how the job compacts a table: a table is compacted once it has at least {@code
 * minFiles} live files smaller than {@code smallFileBytes}; they are rewritten into files of about
 * {@code targetFileBytes}, one Delta commit per table. {@code budget} bounds the time spent
 * compacting after one checkpoint's commits (tables idle in that checkpoint go first); a table not
 * reached waits for the next checkpoint.
 *
 * <p>A table keyed on {@code (artifact_id, version)} (silver, {@code gold/lineage}, {@code
 * gold/workarea_memories}) is compacted into files of at most {@code keyedTargetFileBytes}, and its
 * files below half of that are its small ones: a retraction or a re-promotion rewrites the whole
 * file that holds its key, so the size of those files is the cost of each such row, and capping it
 * keeps that cost flat as the table grows (docs/compaction.md, "Keyed tables").
 *
 * <p>The options are {@code maintenance.compact.enabled}, {@code .min-files}, {@code
 * .small-file-size}, {@code .target-file-size}, {@code .keyed-target-file-size} and {@code
 * .budget-per-checkpoint}.
 */
public record CompactionPolicy(
    boolean enabled,
    int minFiles,
    long smallFileBytes,
    long targetFileBytes,
    long keyedTargetFileBytes,
    Duration budget)
    implements Serializable {
  private static final long serialVersionUID = 2L;

  /** The default of {@code maintenance.compact.keyed-target-file-size}. */
  public static final long KEYED_TARGET_FILE_BYTES = 64L << 10;

  /** Off: the job never compacts (the {@code maintain compact} command still can). */
  public static final CompactionPolicy OFF =
      new CompactionPolicy(
          false, 16, 32L << 20, 128L << 20, KEYED_TARGET_FILE_BYTES, Duration.ofSeconds(2));

  /** A policy whose keyed tables are compacted like the others (no cap of their own). */
  public CompactionPolicy(
      boolean enabled, int minFiles, long smallFileBytes, long targetFileBytes, Duration budget) {
    this(enabled, minFiles, smallFileBytes, targetFileBytes, targetFileBytes, budget);
  }

  public CompactionPolicy {
    if (minFiles < 2) {
      throw new IllegalArgumentException(
          "maintenance.compact.min-files must be at least 2 (one file is already compact), got "
              + minFiles);
    }
    if (targetFileBytes <= 0 || smallFileBytes <= 0 || keyedTargetFileBytes <= 0) {
      throw new IllegalArgumentException(
          "maintenance.compact.target-file-size, .small-file-size and .keyed-target-file-size"
              + " must be positive, got "
              + targetFileBytes
              + ", "
              + smallFileBytes
              + " and "
              + keyedTargetFileBytes);
    }
    if (smallFileBytes > targetFileBytes) {
      throw new IllegalArgumentException(
          "maintenance.compact.small-file-size ("
              + smallFileBytes
              + " bytes) must not exceed maintenance.compact.target-file-size ("
              + targetFileBytes
              + " bytes): a file at the target size would be compacted again and again");
    }
    if (budget == null || budget.isNegative() || budget.isZero()) {
      throw new IllegalArgumentException(
          "maintenance.compact.budget-per-checkpoint must be positive, got " + budget);
    }
  }

  /** The size of the files a compaction of a table of this kind writes. */
  public long targetFileBytes(TableKind kind) {
    return capped(kind) ? keyedTargetFileBytes : targetFileBytes;
  }

  /**
   * Below this size a file of a table of this kind is small: for a capped keyed table, half its
   * target (two such files fit one target-size file) unless {@code small-file-size} is lower.
   */
  public long smallFileBytes(TableKind kind) {
    return capped(kind) ? Math.min(smallFileBytes, keyedTargetFileBytes / 2) : smallFileBytes;
  }

  private boolean capped(TableKind kind) {
    return ArtifactKey.keys(kind) && keyedTargetFileBytes < targetFileBytes;
  }

  /** The same policy with another {@code min-files}. */
  public CompactionPolicy withMinFiles(int files) {
    return new CompactionPolicy(
        enabled, files, smallFileBytes, targetFileBytes, keyedTargetFileBytes, budget);
  }

  /** The same policy, switched on. */
  public CompactionPolicy on() {
    return new CompactionPolicy(
        true, minFiles, smallFileBytes, targetFileBytes, keyedTargetFileBytes, budget);
  }
}
