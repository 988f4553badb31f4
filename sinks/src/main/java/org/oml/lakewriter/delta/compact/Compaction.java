package org.oml.lakewriter.delta.compact;

import java.util.Set;
import org.oml.lakewriter.delta.TableId;

/**
 * What the committer tells compaction: each table's commit, and the end of each call's commits.
 * {@link CompactionScheduler} compacts on the caller's thread; {@link BackgroundCompaction} on a
 * thread of its own (the job's).
 */
public interface Compaction extends AutoCloseable {
  /** A table took a commit with {@code filesAdded} new files (from any of the committer's threads). */
  void committed(TableId table, int filesAdded);

  /**
   * Every batch of a commit call has committed: compact the due tables.
   *
   * @param touched the tables the call committed to
   * @param beforeCommit run before each compaction commit (the lease check)
   */
  void afterCommits(Set<TableId> touched, TableCompactor.IoCheck beforeCommit);

  @Override
  default void close() {}
}
