package org.oml.lakewriter.delta.read;

import java.time.Instant;
import java.util.Optional;

/**
 * What the log of one lake table says about its health, read without opening a data file: its
 * Delta version, the txn version for {@code oml-lakewriter} ({@code -1} if none), when the latest
 * version was committed, the version of the checkpoint a reader starts from (empty if it must
 * replay the whole log), its {@code delta.checkpointInterval} (Delta's default 10 when unset), and
 * its live data files' count and total size.
 */
public record TableStats(
    long tableVersion,
    long txnVersion,
    Instant lastCommitAt,
    Optional<Long> checkpointVersion,
    long checkpointInterval,
    long fileCount,
    long totalFileBytes) {
  /** Delta's {@code delta.checkpointInterval} when a table does not set it. */
  public static final long DELTA_DEFAULT_CHECKPOINT_INTERVAL = 10;

  /** Commits a reader replays on top of the checkpoint (all of them, without one). */
  public long commitsSinceCheckpoint() {
    return tableVersion - checkpointVersion.orElse(-1L);
  }

  /** The live files' average size in bytes, 0 without files. */
  public long averageFileBytes() {
    return fileCount == 0 ? 0 : totalFileBytes / fileCount;
  }
}
