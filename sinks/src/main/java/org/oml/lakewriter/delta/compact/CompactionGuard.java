package org.oml.lakewriter.delta.compact;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.TableId;

/**
 * What keeps a compaction from pulling a file out from under a copy-on-write the writer has
 * planned but the committer has not committed yet (the writer runs ahead of the committer by up to
 * a few checkpoints): such a rewrite's commit removes the file it read, and would be refused at
 * commit time once a compaction had removed it first (its tenant then goes to quarantine and is
 * replayed from the outbox: nothing lost or duplicated, but a replay for nothing).
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>The writer plans a silver or gold rewrite while holding the table's lock ({@link #lock})
 *       and records the files it replaces ({@link #planned}) before releasing it. The compactor
 *       (on a thread of its own) takes the same lock twice: to choose its files, leaving out the
 *       pending removals, and from checking the pending removals again to the end of its commit;
 *       it reads and writes the files in between without the lock. So either the rewrite was
 *       planned before the compactor chose, and its files are left out; or it was planned before
 *       the compactor's commit, and the compaction commits nothing if it shares a file; or the
 *       compaction committed first, and the plan sees the compacted table (its index check sees a
 *       commit it did not make, and it re-plans on the compacted copy). The writer waits at most
 *       for a compaction's commit, never for its reads and writes.
 *   <li>A recorded removal is forgotten once the table's txn version reaches its batch: the
 *       rewrite has committed (or was already applied), and its files are no longer live.
 *   <li>The committer compacts only once a writer has written a commit unit after the committer
 *       was made ({@link #unitWritten}): the committables Flink restores are committed while the
 *       committer initializes, before the writer of that attempt gets its first batch, and the
 *       compactor does not know which files those remove.
 * </ul>
 *
 * <p>One guard per lake root per class loader (the sink's writer and committer run in the same
 * TaskManager JVM and class loader at parallelism 1, as for the snapshot cache). Thread-safe.
 */
public final class CompactionGuard {
  private static final Map<String, CompactionGuard> GUARDS = new ConcurrentHashMap<>();

  private final Map<TableId, ReentrantLock> locks = new ConcurrentHashMap<>();
  /** Per table: batchEnd to the paths that batch's rewrite removes. */
  private final Map<TableId, TreeMap<Long, Set<String>>> removals = new HashMap<>();

  private final AtomicLong units = new AtomicLong();

  /** The guard of a lake, shared by every writer and committer of it in this class loader. */
  public static CompactionGuard of(String lakeRoot) {
    return GUARDS.computeIfAbsent(lakeRoot, r -> new CompactionGuard());
  }

  /** A guard of its own (tests). */
  public static CompactionGuard unshared() {
    return new CompactionGuard();
  }

  /** The lock a rewrite's planning and a compaction of the table hold. */
  public ReentrantLock lock(TableId table) {
    return locks.computeIfAbsent(table, t -> new ReentrantLock());
  }

  /** The writer has planned a rewrite for {@code batchEnd} that replaces {@code removed}. */
  public synchronized void planned(TableId table, long batchEnd, Iterable<DataFile> removed) {
    Set<String> paths = new HashSet<>();
    removed.forEach(f -> paths.add(f.relativePath()));
    if (!paths.isEmpty()) {
      removals
          .computeIfAbsent(table, t -> new TreeMap<>())
          .computeIfAbsent(batchEnd, b -> new HashSet<>())
          .addAll(paths);
    }
  }

  /**
   * The files a planned rewrite not yet in a table at {@code txnVersion} replaces; the ones at or
   * below it are forgotten.
   */
  public synchronized Set<String> pendingRemovals(TableId table, long txnVersion) {
    TreeMap<Long, Set<String>> byBatch = removals.get(table);
    if (byBatch == null) {
      return Set.of();
    }
    Iterator<Long> done = byBatch.headMap(txnVersion, true).keySet().iterator();
    while (done.hasNext()) {
      done.next();
      done.remove();
    }
    Set<String> all = new HashSet<>();
    byBatch.values().forEach(all::addAll);
    return all;
  }

  /** A writer of this lake wrote a commit unit (its plans are recorded here from now on). */
  public long unitWritten() {
    return units.incrementAndGet();
  }

  /** How many commit units the writers of this lake have written so far. */
  public long unitsWritten() {
    return units.get();
  }
}
