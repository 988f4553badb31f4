package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which {@code (artifact_id, version)} keys a table keyed on them holds ({@code silver/memories},
 * and the same way {@code gold/lineage} and {@code gold/workarea_memories}; described here for
 * silver), and which data
 * file holds each key's row: so that a promotion of a key that already has a row changes nothing
 * (silver rule 2: a producer retry never duplicates a row, and never brings a body back for an
 * erased key), and so that a retraction reads and rewrites only the file that holds its key
 * ({@link CopyOnWrite}), whatever the table's size and however random the artifact ids.
 *
 * <p>Per table, built from the lake on the first promotion or retraction that reaches the table
 * after a start (only the two key columns of the live files are read, {@link
 * DeltaTableClient#forEachSilverKeyInFiles}), plus the keys and files of this writer's batches that
 * are written but not committed yet ({@link PendingFiles}); then kept in step with every silver
 * commit this writer hands over (the files it adds, and the files its copy-on-write replaces, whose
 * keys move to the rewritten copies). Every start rebuilds it from the lake, the authority, but
 * takes the keys of the live files that the {@link KeyCache} holds from there instead of reading
 * them: the index is saved there (data file to keys) at most once a {@link #SAVE_INTERVAL_NANOS
 * minute} per table while it changes, and when the writer closes. A key absent from the index is a
 * key the table does not hold.
 *
 * <p><b>The file a key names is a hint checked before use.</b> {@link CopyOnWrite} reads the
 * named files' add actions from the table's latest snapshot ({@link
 * DeltaTableClient#liveFiles}), checks the index against that snapshot ({@link #inStep}), and
 * calls {@link #invalidate} when a named file is neither live nor a pending batch's, or does not
 * hold the key: the next use then rebuilds the index from the lake. A stale index costs a rebuild,
 * never a missed row.
 *
 * <p><b>Someone else's commit.</b> The table can change under the writer (this job's compaction,
 * an OPTIMIZE, a manual repair). The index is checked at most once per checkpoint interval, on the
 * first use after a barrier, or at the barrier itself when the writer reads the table's state
 * anyway: the table's log version must have moved by exactly the number of this writer's commits
 * whose batch end is now at or below the table's txn version, since each of those is one Delta
 * commit. Any other difference means a commit this writer did not make. The commits since the last
 * check are then read from the log: if the others are rearrangements ({@code dataChange = false}:
 * a compaction moves rows between files and changes none), the index follows them by reading the
 * key columns of the files they added only ({@link #caughtUp}); anything else, and the index is
 * rebuilt from the lake (with the still pending batches' keys added again). A commit that lands between the check and the use
 * is seen at the next check; Kernel has no read-conflict detection, and the single-writer rule is
 * what excludes another writer's promotions in that window.
 *
 * <p>Memory: one entry per promoted key of each table in use; see {@code
 * docs/silver-idempotence.md}. One per writer; thread-safe for different tables (see {@link
 * KeyedFiles}).
 */
final class SilverKeyIndex {
  private static final Logger LOG = LoggerFactory.getLogger(SilverKeyIndex.class);

  /**
   * One silver commit of this writer that the table's log version may not count yet: the files it
   * adds (with their keys) and the paths of the files it replaces.
   */
  private record OwnCommit(
      long batchEnd, List<PendingFile> added, Set<String> removed, Set<ArtifactKey> deleted) {}

  private static final class TableKeys {
    /**
     * Each key, to the paths (relative to the table root) of the files that hold its row: one
     * array per file, shared by all of that file's keys, so a key costs no more than in a set.
     * More than one path only when a key has rows in several files (a table written before rule
     * 2, or one write split over several files).
     */
    final Map<ArtifactKey, String[]> keys = new HashMap<>();
    /**
     * Each indexed file's array of its one path, the array of every key whose row is in that file
     * only; so a copy-on-write that replaces a file by its rewrite moves all of the file's keys by
     * changing the path in the array ({@link #renamed}), instead of a map operation per key.
     */
    final Map<String, String[]> files = new HashMap<>();
    /** Some key has rows in several files (an array of its own): no file is renamed then. */
    boolean severalFiles;
    final Deque<OwnCommit> uncounted = new ArrayDeque<>();
    SnapshotId checked;
    long checkedInEpoch;
    boolean stale;
    /** A count of the changes to the keys and files; {@link #saved}: the count the cache holds. */
    long changes;
    long saved = -1;
    /** When this writer may save the index again ({@link #savedOnce}: it saved it before). */
    long nextSaveNanos;
    boolean savedOnce;

    String[] fileArray(String path) {
      return files.computeIfAbsent(path, p -> new String[] {p});
    }

    /** Adds a file to a key's files; a key in a second file gets an array of its own. */
    String[] withFile(String[] before, String[] file) {
      if (before == file) {
        return before; // the key listed twice for one file
      }
      severalFiles = true;
      return concat(before, file);
    }

    /**
     * Moves every key of file {@code from} to {@code to}, which is its rewrite ({@link
     * PendingFile#rewriteOf}: the same keys, less those whose rows the commit deletes, which have
     * left the index already), by changing the path in {@code from}'s array. False, and nothing
     * done, when a key may have rows in several files or {@code from} is not indexed or not
     * replaced by the commit: the keys are then moved one by one.
     */
    boolean renamed(String from, String to, Set<String> removed) {
      if (from == null || severalFiles || !removed.contains(from) || !files.containsKey(from)) {
        return false;
      }
      String[] array = files.remove(from);
      array[0] = to;
      files.put(to, array);
      return true;
    }

    void clear() {
      keys.clear();
      files.clear();
      severalFiles = false;
    }
  }

  /**
   * How often at most a table's index is saved to the {@link KeyCache} while it changes: a restart
   * after a crash reads the files written since the last save (and takes the rest from the copy).
   */
  static final long SAVE_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  /**
   * A save writes the table's whole index, so a large table waits this many times as long as its
   * last save took before the next: saving costs a table at most 0.1% of a writer thread.
   */
  static final int SAVE_COST_FACTOR = 1000;

  private final DeltaTableClient client;
  private final KeyCache cache;
  private final Map<TableId, TableKeys> tables = new ConcurrentHashMap<>();
  private long epoch;
  private final AtomicLong rebuilds = new AtomicLong();
  private final AtomicLong catchUps = new AtomicLong();
  private final AtomicLong filesFromCache = new AtomicLong();

  SilverKeyIndex(DeltaTableClient client, KeyCache cache) {
    this.client = client;
    this.cache = cache;
  }

  /** Drops the index of every table of a tenant prefix; the next use rebuilds it from the lake. */
  void forget(String prefix) {
    tables.keySet().removeIf(t -> t.prefix().equals(prefix));
  }

  /**
   * Those of {@code keys} that the table holds or that a pending batch of this writer creates.
   *
   * @param pending this writer's pending batches of the table, used when the index is (re)built
   */
  Set<ArtifactKey> existing(TableId table, Collection<ArtifactKey> keys, PendingFiles pending)
      throws IOException {
    TableKeys index = current(table, pending);
    Set<ArtifactKey> found = new HashSet<>();
    for (ArtifactKey key : keys) {
      if (index.keys.containsKey(key)) {
        found.add(key);
      }
    }
    return found;
  }

  /**
   * Where the rows of {@code keys} are: per key the table holds (or a pending batch of this writer
   * creates), the paths of the files that hold it, each either live in the table or added by a
   * pending batch. A key the table does not hold is absent.
   */
  Map<ArtifactKey, String[]> locate(
      TableId table, Collection<ArtifactKey> keys, PendingFiles pending) throws IOException {
    TableKeys index = current(table, pending);
    Map<ArtifactKey, String[]> found = new TreeMap<>();
    for (ArtifactKey key : keys) {
      String[] paths = index.keys.get(key);
      if (paths != null) {
        found.put(key, paths);
      }
    }
    return found;
  }

  /**
   * Checks the index against a snapshot the caller has just read (the copy-on-write's, before it
   * trusts the files the index names): false if someone else committed since the index was built
   * or last checked. The index has then either followed those commits from the log ({@link
   * #caughtUp}) or is stale, and the next use rebuilds it; either way the caller's plan named
   * files as they were before, and must be made again.
   */
  boolean inStep(TableId table, SnapshotId snapshot) {
    TableKeys index = tables.get(table);
    if (index == null || index.stale) {
      return false;
    }
    return check(table, index, snapshot);
  }

  /**
   * The index named a file that is not where it said (no longer live, or without the key): it is
   * rebuilt from the lake on its next use.
   */
  void invalidate(TableId table, String why) {
    TableKeys index = tables.get(table);
    if (index != null && !index.stale) {
      LOG.warn("{}: key index is rebuilt from the lake: {}", table, why);
      index.stale = true;
    }
  }

  /**
   * Records a silver commit that this writer hands over for the table (every one, also those that
   * only rewrite): the files it adds, with the keys their rows hold, and the files it replaces. A
   * table not indexed yet is left alone: its index will read the table and the pending batches
   * when it is first needed.
   */
  void handedOver(
      TableId table,
      long batchEnd,
      List<PendingFile> added,
      List<DataFile> removed,
      Set<ArtifactKey> deleted) {
    TableKeys index = tables.get(table);
    if (index != null) {
      Set<String> removedPaths = new HashSet<>();
      removed.forEach(f -> removedPaths.add(f.relativePath()));
      OwnCommit commit =
          new OwnCommit(batchEnd, List.copyOf(added), removedPaths, Set.copyOf(deleted));
      try {
        apply(index, commit);
      } catch (RuntimeException | Error e) {
        index.stale = true; // half applied: rebuilt on its next use, and never saved
        throw e;
      }
      index.uncounted.addLast(commit);
    }
  }

  /**
   * Moves the keys of a commit's added files to those files: a key keeps the files it was in
   * that the commit does not replace, and gains the added files that hold it.
   */
  private static void apply(TableKeys index, OwnCommit commit) {
    index.changes++;
    // A deleted row's key keeps only the files the commit does not replace (none, normally).
    for (ArtifactKey key : commit.deleted()) {
      String[] before = index.keys.get(key);
      if (before != null) {
        String[] kept = without(before, commit.removed());
        if (kept.length == 0) {
          index.keys.remove(key);
        } else {
          index.keys.put(key, kept);
        }
      }
    }
    // A rewrite of a file takes over its keys at once; an append's keys are merged one by one.
    for (PendingFile file : commit.added()) {
      String path = file.file().relativePath();
      if (index.renamed(file.rewriteOf(), path, commit.removed())) {
        continue;
      }
      String[] own = index.fileArray(path);
      for (ArtifactKey key : file.keys()) {
        index.keys.merge(
            key,
            own,
            (before, added) -> {
              String[] kept = without(before, commit.removed());
              return kept.length == 0 ? added : index.withFile(kept, added);
            });
      }
    }
    commit.removed().forEach(index.files::remove);
  }

  private static final String[] NO_PATHS = {};

  private static String[] concat(String[] a, String[] b) {
    String[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static String[] without(String[] paths, Set<String> removed) {
    if (removed.isEmpty()) {
      return paths;
    }
    List<String> kept = new ArrayList<>(paths.length);
    for (String path : paths) {
      if (!removed.contains(path)) {
        kept.add(path);
      }
    }
    return kept.size() == paths.length ? paths : kept.toArray(NO_PATHS);
  }

  /**
   * The table's state as the writer read it at a barrier: checks the index against it, so that the
   * next checkpoint interval's first use need not read it again.
   */
  void observed(TableId table, SnapshotId snapshot) {
    TableKeys index = tables.get(table);
    if (index != null && !index.stale) {
      check(table, index, snapshot);
      index.checkedInEpoch = epoch + 1;
    }
  }

  /** At each checkpoint barrier: every index is checked again on its next use. */
  void barrier() {
    epoch++;
  }

  /** How many times an index was rebuilt because the table changed under the writer. */
  long rebuilds() {
    return rebuilds.get();
  }

  /** How many times an index caught up with rearrangements from the log instead of a rebuild. */
  long catchUps() {
    return catchUps.get();
  }

  /** How many live files' keys the index builds took from the {@link KeyCache}, unread. */
  long filesFromCache() {
    return filesFromCache.get();
  }

  /** Saves every index that changed since it was last saved (the writer is closing). */
  void saveAll() {
    tables.forEach((table, index) -> save(table, index, true));
  }

  /**
   * Saves the index to the {@link KeyCache}, as data file to keys (the keys of pending batches'
   * files included: a file that never commits is not live at the next start, and is ignored), if
   * it changed since it was last saved, it is in step, and (unless {@code now}) the last save is
   * {@link #SAVE_INTERVAL_NANOS} old, or {@link #SAVE_COST_FACTOR} times as old as it took if that
   * is longer. A failed save is a warning: the copy is only a shortcut.
   */
  private void save(TableId table, TableKeys index, boolean now) {
    if (!cache.enabled() || index.stale || index.changes == index.saved) {
      return;
    }
    long at = System.nanoTime();
    if (!now && index.savedOnce && at - index.nextSaveNanos < 0) {
      return;
    }
    Map<String, List<ArtifactKey>> byFile = new HashMap<>(index.files.size() * 2);
    index.keys.forEach(
        (key, paths) -> {
          for (String path : paths) {
            byFile.computeIfAbsent(path, p -> new ArrayList<>()).add(key);
          }
        });
    try {
      cache.write(table, byFile);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "KEY_CACHE_NOT_SAVED {}: {}; the next start reads the table's files", table, e.toString());
    }
    index.saved = index.changes;
    long took = System.nanoTime() - at;
    index.nextSaveNanos = at + Math.max(SAVE_INTERVAL_NANOS, SAVE_COST_FACTOR * took);
    index.savedOnce = true;
  }

  private TableKeys current(TableId table, PendingFiles pending) throws IOException {
    TableKeys index = tables.get(table);
    if (index == null) {
      index = new TableKeys();
      tables.put(table, index);
      load(table, index, pending);
    } else if (index.stale) {
      load(table, index, pending);
    } else if (index.checkedInEpoch != epoch) {
      check(table, index, client.snapshotId(table));
      if (index.stale) {
        load(table, index, pending);
      }
    }
    index.checkedInEpoch = epoch;
    save(table, index, false);
    return index;
  }

  /**
   * True if the table is where this writer's own commits put it; false if it is not, and the index
   * then either followed the other commits from the log or is stale.
   */
  private boolean check(TableId table, TableKeys index, SnapshotId now) {
    int ours = 0;
    for (OwnCommit commit : index.uncounted) {
      if (commit.batchEnd() <= now.txnVersion()) {
        ours++;
      }
    }
    // A table absent when indexed is created (log version 0, no rows) before its first commit.
    long base = index.checked.exists() ? index.checked.version() : 0;
    long expected = base + ours;
    boolean stillAbsent = !now.exists() && !index.checked.exists();
    if (stillAbsent
        || (now.version() == expected && now.txnVersion() >= index.checked.txnVersion())) {
      index.uncounted.removeIf(c -> c.batchEnd() <= now.txnVersion());
      index.checked = now;
      return true;
    }
    if (caughtUp(table, index, now)) {
      return false;
    }
    LOG.warn(
        "{}: key index is rebuilt from the lake: the table is at log version {} (txn {})"
            + " but this writer's commits account for log version {} (txn {} when last checked),"
            + " and the commits between are not all this writer's or rearrangements:"
            + " another engine changed its rows (a repair, a second writer)",
        table,
        now.version(),
        now.txnVersion(),
        expected,
        index.checked.txnVersion());
    index.stale = true;
    return false;
  }

  /**
   * Brings the index to {@code now} from the commits since the last check, read from the log, if
   * each of them is one of this writer's commits (its txn version and exactly the files it added;
   * applied when it was handed over), a rearrangement (every file action {@code dataChange =
   * false}: a compaction, this job's or another engine's OPTIMIZE) or a commit without file
   * actions. A rearrangement's removed files leave the index, and the two key columns of the files
   * it added (those still live) are read. So a compaction costs the files it wrote, not a rebuild
   * of the whole table's index. False, and nothing is trusted, if any commit is something else
   * (another engine's data change), a commit file is gone, one of this writer's commits that the
   * table's txn version covers is not among them, or an added file is no longer live.
   */
  private boolean caughtUp(TableId table, TableKeys index, SnapshotId now) {
    if (!now.exists()
        || !index.checked.exists()
        || now.version() <= index.checked.version()
        || now.txnVersion() < index.checked.txnVersion()) {
      return false;
    }
    try {
      Optional<List<DeltaTableClient.LogCommit>> commits =
          client.commits(table, index.checked.version(), now.version());
      if (commits.isEmpty()) {
        return false;
      }
      Map<Long, OwnCommit> own = new HashMap<>();
      for (OwnCommit commit : index.uncounted) {
        if (commit.batchEnd() <= now.txnVersion()) {
          own.put(commit.batchEnd(), commit);
        }
      }
      Set<String> removed = new HashSet<>();
      Set<String> added = new HashSet<>();
      for (DeltaTableClient.LogCommit commit : commits.get()) {
        if (commit.txnVersion() != DeltaTableClient.NO_VERSION) {
          OwnCommit ours = own.remove(commit.txnVersion());
          if (ours == null || !Set.copyOf(commit.added()).equals(pathsOf(ours))) {
            return false;
          }
        } else if (commit.rearrangesOnly()) {
          for (String path : commit.removed()) {
            if (!added.remove(path)) {
              removed.add(path);
            }
          }
          added.addAll(commit.added());
        } else if (!commit.added().isEmpty() || !commit.removed().isEmpty()) {
          return false;
        }
      }
      if (!own.isEmpty()) {
        return false; // a commit of ours that the txn version covers is not in the log
      }
      // The added files' arrays go into the index as they are read: if this returns false, the
      // caller marks the index stale, and its rebuild starts from nothing.
      Map<ArtifactKey, String[]> moved = new HashMap<>();
      Set<String> read =
          client.forEachKeyInLiveFiles(
              table,
              added,
              (path, key) -> moved.merge(key, index.fileArray(path), index::withFile));
      if (!read.equals(added)) {
        return false;
      }
      for (Iterator<Map.Entry<ArtifactKey, String[]>> it = index.keys.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<ArtifactKey, String[]> entry = it.next();
        String[] kept = without(entry.getValue(), removed);
        if (kept.length == 0) {
          it.remove();
        } else if (kept != entry.getValue()) {
          entry.setValue(kept);
        }
      }
      removed.forEach(index.files::remove);
      moved.forEach((key, paths) -> index.keys.merge(key, paths, index::withFile));
      index.uncounted.removeIf(c -> c.batchEnd() <= now.txnVersion());
      LOG.info(
          "{}: key index caught up from log version {} to {}: {} files rearranged into {}"
              + " (a compaction), {} keys moved",
          table,
          index.checked.version(),
          now.version(),
          removed.size(),
          added.size(),
          moved.size());
      index.checked = now;
      index.changes++;
      catchUps.incrementAndGet();
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.info("{}: key index not caught up from the log ({})", table, e.toString());
      return false;
    }
  }

  private static Set<String> pathsOf(OwnCommit commit) {
    Set<String> paths = new HashSet<>();
    commit.added().forEach(f -> paths.add(f.file().relativePath()));
    return paths;
  }

  private void load(TableId table, TableKeys index, PendingFiles pending) throws IOException {
    long start = System.nanoTime();
    index.stale = true; // until built whole: a load that fails is not used or saved
    index.clear();
    Map<String, List<ArtifactKey>> known = cache.read(table);
    SnapshotId snapshot =
        client.forEachSilverKeyInFiles(
            table,
            known,
            (path, key) -> {
              String[] file = index.fileArray(path);
              String[] before = index.keys.putIfAbsent(key, file);
              if (before != null && !Arrays.asList(before).contains(path)) {
                index.keys.put(key, index.withFile(before, file)); // rows in several files
              }
            });
    int inTable = index.keys.size();
    int filesInTable = index.files.size();
    long fromCache = known.keySet().stream().filter(index.files::containsKey).count();
    filesFromCache.addAndGet(fromCache);
    if (fromCache < filesInTable) {
      index.changes++;
    } else {
      index.saved = index.changes; // the cache holds every live file already
    }
    // This writer's batches the snapshot does not hold yet, in batch order, on top of the table.
    Map<Long, OwnCommit> own = new TreeMap<>();
    for (PendingFiles.Batch batch : pending.batches()) {
      Set<String> removed = new HashSet<>();
      batch.removed().forEach(f -> removed.add(f.relativePath()));
      own.put(
          batch.batchEnd(),
          new OwnCommit(batch.batchEnd(), batch.added(), removed, batch.deleted()));
    }
    index.uncounted.forEach(c -> own.putIfAbsent(c.batchEnd(), c));
    index.uncounted.clear();
    for (OwnCommit commit : own.values()) {
      if (commit.batchEnd() > snapshot.txnVersion()) {
        apply(index, commit);
        index.uncounted.addLast(commit);
      }
    }
    if (index.checked != null) {
      rebuilds.incrementAndGet();
    }
    index.checked = snapshot;
    index.stale = false;
    LOG.info(
        "{}: key index built from log version {} (txn {}): {} keys in {} files of the"
            + " table ({} of them from the key cache), {} more in {} pending batches, {} ms",
        table,
        snapshot.version(),
        snapshot.txnVersion(),
        inTable,
        filesInTable,
        fromCache,
        index.keys.size() - inTable,
        index.uncounted.size(),
        (System.nanoTime() - start) / 1_000_000);
  }
}
