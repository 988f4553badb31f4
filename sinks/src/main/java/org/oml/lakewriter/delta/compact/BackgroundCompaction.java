package org.oml.lakewriter.delta.compact;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs compaction rounds on a thread of its own ({@code delta-compactor}), so that a compaction
 * never holds up the committer, whose thread also carries the cut and the checkpoint barrier.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>One round at a time, and at most one more waiting: a request while a round runs is folded
 *       into the next round (its tables count as touched there), never queued once per checkpoint.
 *   <li>A round is a {@link Compaction} run on this thread (the job's: {@link CompactionScheduler},
 *       through a table client of its own, never the committer's). Its commits race the
 *       committer's data commits to the same tables; the table client makes one at a time per
 *       table, and a compaction whose files a data commit removed commits nothing (see {@code
 *       docs/compaction.md}).
 *   <li>Nothing is committed after {@link #close} has begun: the round is interrupted, and each
 *       compaction commit checks first that this is still open (and the lease, as before). {@link
 *       #close} waits for the round to end, up to a bound, before the caller releases the lease.
 *   <li>A round that fails is logged and does not stop later rounds; a failed compaction is tried
 *       again at a later round by the scheduler itself.
 * </ul>
 */
public final class BackgroundCompaction implements Compaction {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundCompaction.class);

  private final Compaction rounds;
  private final AutoCloseable owned;
  private final Duration closeWait;
  private final ExecutorService thread;

  /** Tables touched since the waiting round was requested; null while no round waits. */
  private Set<TableId> waiting;

  private TableCompactor.IoCheck beforeCommit = TableCompactor.IoCheck.NONE;
  private boolean running;
  private volatile boolean closed;

  /**
   * @param rounds what a round runs, on this class's thread
   * @param owned closed after the thread has ended (the compactor's table client); may be null
   * @param closeWait how long {@link #close} waits for a running round
   */
  public BackgroundCompaction(Compaction rounds, AutoCloseable owned, Duration closeWait) {
    this.rounds = rounds;
    this.owned = owned;
    this.closeWait = closeWait;
    this.thread =
        Executors.newSingleThreadExecutor(
            runnable -> {
              Thread t = new Thread(runnable, "delta-compactor");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public void committed(TableId table, int filesAdded) {
    rounds.committed(table, filesAdded);
  }

  /** Requests a round; returns at once. */
  @Override
  public synchronized void afterCommits(Set<TableId> touched, TableCompactor.IoCheck check) {
    if (closed) {
      return;
    }
    beforeCommit = check;
    if (waiting != null) {
      waiting.addAll(touched);
      return;
    }
    waiting = new HashSet<>(touched);
    thread.execute(this::round);
  }

  private void round() {
    Set<TableId> touched;
    TableCompactor.IoCheck check;
    synchronized (this) {
      if (waiting == null) {
        return; // closed before it started
      }
      touched = waiting;
      check = beforeCommit;
      waiting = null;
      running = true;
    }
    try {
      rounds.afterCommits(
          touched,
          () -> {
            if (closed) {
              throw new CompactionScheduler.LeaseCheckFailed(
                  new InterruptedException("the committer is closing"));
            }
            check.run();
          });
    } catch (RuntimeException | Error e) {
      LOG.warn(
          "finding COMPACTION_FAILED: a compaction round failed ({}); no row changed, the next"
              + " round tries again",
          e.toString(),
          e);
    } finally {
      synchronized (this) {
        running = false;
        notifyAll();
      }
    }
  }

  /** Waits until no round runs or waits, up to {@code timeout} (tests); true if idle. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (true) {
        if (waiting == null && !running) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      waiting = null;
    }
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "the compaction round did not end within {} of close; it commits nothing more",
            closeWait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    rounds.close();
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        LOG.warn("closing the compactor's table client: {}", e.toString());
      }
    }
  }
}
