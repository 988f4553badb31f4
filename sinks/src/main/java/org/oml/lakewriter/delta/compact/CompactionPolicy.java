package org.oml.lakewriter.delta.compact;

import java.io.Serializable;
import java.time.Duration;

/**
 * When and how the job compacts a table: a table is compacted once it has at least {@code
 * minFiles} live files smaller than {@code smallFileBytes}; they are rewritten into files of about
 * {@code targetFileBytes}, one Delta commit per table. {@code budget} bounds the time spent
 * compacting after one checkpoint's commits (tables idle in that checkpoint go first); a table not
 * reached waits for the next checkpoint.
 *
 * <p>The options are {@code maintenance.compact.enabled}, {@code .min-files}, {@code
 * .small-file-size}, {@code .target-file-size} and {@code .budget-per-checkpoint}.
 */
public record CompactionPolicy(
    boolean enabled, int minFiles, long smallFileBytes, long targetFileBytes, Duration budget)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Off: the job never compacts (the {@code maintain compact} command still can). */
  public static final CompactionPolicy OFF =
      new CompactionPolicy(false, 16, 32L << 20, 128L << 20, Duration.ofSeconds(2));

  public CompactionPolicy {
    if (minFiles < 2) {
      throw new IllegalArgumentException(
          "maintenance.compact.min-files must be at least 2 (one file is already compact), got "
              + minFiles);
    }
    if (targetFileBytes <= 0 || smallFileBytes <= 0) {
      throw new IllegalArgumentException(
          "maintenance.compact.target-file-size and .small-file-size must be positive, got "
              + targetFileBytes
              + " and "
              + smallFileBytes);
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

  /** The same policy with another {@code min-files}. */
  public CompactionPolicy withMinFiles(int files) {
    return new CompactionPolicy(enabled, files, smallFileBytes, targetFileBytes, budget);
  }

  /** The same policy, switched on. */
  public CompactionPolicy on() {
    return new CompactionPolicy(true, minFiles, smallFileBytes, targetFileBytes, budget);
  }
}
