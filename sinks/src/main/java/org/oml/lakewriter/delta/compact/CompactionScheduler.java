package org.oml.lakewriter.delta.compact;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.oml.lakewriter.delta.Interruption;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, after each checkpoint's commits, which tables the committer compacts, and keeps that
 * off the frontier's critical path.
 *
 * <p>Per table it keeps an estimate of its small files: the count read from the log at the last
 * check, plus the files the committer added since. Only a table whose estimate reaches {@code
 * min-files} is checked (one log read) and compacted, so a checkpoint costs nothing for tables far
 * from the threshold. Tables idle in this checkpoint go first, then the ones it touched; a table
 * is started only while the time spent since the first started is within {@code
 * budget-per-checkpoint}, and the rest wait for the next checkpoint (they stay due).
 *
 * <p>A compaction that fails is logged (finding {@code COMPACTION_FAILED}) and retried at a later
 * checkpoint: it never fails a commit, since it changes no row. One interrupted (the task is being
 * cancelled) ends the round with one INFO line, not a finding per table. Rounds are called on one
 * thread at a time, after every table of the checkpoint has committed: in the job on the {@link
 * BackgroundCompaction}'s thread, beside the committer's next commits; {@link #committed} may be
 * called from the committer's threads meanwhile.
 */
public final class CompactionScheduler implements Compaction {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionScheduler.class);

  private final TableCompactor compactor;
  private final CompactionPolicy policy;
  private final CompactionGuard guard;
  private final LongSupplier nanoTime;
  /** Units written when this committer was made: compaction waits for the writer's next one. */
  private final long unitsAtStart;

  /** Small-file estimate per table this committer has committed to. */
  private final Map<TableId, Integer> estimates = new TreeMap<>();

  private final CompactionStats stats = new CompactionStats();

  public CompactionScheduler(
      TableCompactor compactor,
      CompactionPolicy policy,
      CompactionGuard guard,
      LongSupplier nanoTime) {
    this.compactor = compactor;
    this.policy = policy;
    this.guard = guard;
    this.nanoTime = nanoTime;
    this.unitsAtStart = guard.unitsWritten();
  }

  /** A table took a commit with {@code filesAdded} new files. */
  @Override
  public synchronized void committed(TableId table, int filesAdded) {
    Integer estimate = estimates.get(table);
    // First sight: due at once, so the first check reads the table's real count.
    estimates.put(table, estimate == null ? policy.minFiles() : estimate + filesAdded);
  }

  /** Compacts the due tables on the caller's thread ({@link #afterCheckpoint}). */
  @Override
  public void afterCommits(Set<TableId> touched, TableCompactor.IoCheck beforeCommit) {
    afterCheckpoint(touched, beforeCommit);
  }

  /**
   * Compacts the due tables, idle ones first, within the budget.
   *
   * @param touched the tables this checkpoint committed to
   * @param beforeCommit run before each compaction commit (the lease check); a failure of it ends
   *     this round
   * @return what each started compaction did
   */
  public List<TableCompactor.Result> afterCheckpoint(
      Set<TableId> touched, TableCompactor.IoCheck beforeCommit) {
    if (!policy.enabled() || guard.unitsWritten() <= unitsAtStart) {
      return List.of();
    }
    List<TableId> due = new ArrayList<>();
    synchronized (this) {
      estimates.forEach(
          (table, estimate) -> {
            if (estimate >= policy.minFiles()) {
              due.add(table);
            }
          });
    }
    List<TableId> ordered = new ArrayList<>();
    due.stream().filter(t -> !touched.contains(t)).forEach(ordered::add);
    due.stream().filter(touched::contains).forEach(ordered::add);
    List<TableCompactor.Result> results = new ArrayList<>();
    long started = nanoTime.getAsLong();
    try {
      compactInOrder(ordered, beforeCommit, started, results);
    } finally {
      stats.round((nanoTime.getAsLong() - started) / 1_000_000);
    }
    return results;
  }

  private void compactInOrder(
      List<TableId> ordered,
      TableCompactor.IoCheck beforeCommit,
      long started,
      List<TableCompactor.Result> results) {
    for (TableId table : ordered) {
      if (nanoTime.getAsLong() - started > policy.budget().toNanos()) {
        LOG.debug("compaction budget spent; {} tables wait for the next checkpoint", table);
        break;
      }
      try {
        TableCompactor.Result result = compactor.compact(table, beforeCommit);
        results.add(result);
        stats.result(result);
        int left = compactor.smallFileCount(table);
        synchronized (this) {
          // Files the writer's rewrites hold count only once they are free again.
          estimates.put(table, result.compacted() || left < policy.minFiles() ? left : 0);
        }
      } catch (IOException | RuntimeException e) {
        if (Interruption.surfacedIn(e)) {
          // The task is being cancelled (a stop, a failover): not a storage fault. The table
          // stays due, and the other tables would be interrupted the same way.
          LOG.info(
              "compaction of {} stopped: the task was interrupted; no row changed, the table"
                  + " stays due",
              table);
          Thread.currentThread().interrupt();
          break;
        }
        LOG.warn(
            "finding COMPACTION_FAILED: {}: {}; no row changed, it is tried again at a later"
                + " checkpoint",
            table,
            e.toString());
        stats.failed();
        synchronized (this) {
          estimates.put(table, 0);
        }
        if (e instanceof LeaseCheckFailed) {
          break;
        }
      }
    }
  }

  /** What this scheduler's compactions did (metrics, tests). */
  public CompactionStats stats() {
    return stats;
  }

  /** Thrown by a {@code beforeCommit} check that must end the round (the lease is gone). */
  public static final class LeaseCheckFailed extends RuntimeException {
    public LeaseCheckFailed(Throwable cause) {
      super(cause.getMessage(), cause);
    }
  }
}
