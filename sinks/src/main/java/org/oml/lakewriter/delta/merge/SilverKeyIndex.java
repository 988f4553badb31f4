package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which {@code (artifact_id, version)} keys a {@code silver/memories} table holds, so that a
 * promotion of a key that already has a row changes nothing (silver rule 2: a producer retry never
 * duplicates a row, and never brings a body back for an erased key).
 *
 * <p>Per table, built from the lake on the first promotion that reaches the table after a start
 * (only the two key columns of the live files are read, {@link
 * DeltaTableClient#forEachSilverKey}), plus the keys of this writer's batches that are written but
 * not committed yet ({@link PendingFiles}); then kept in step with every silver commit this writer
 * hands over. It is memory only: every start rebuilds it from the lake, the authority.
 *
 * <p><b>Someone else's commit.</b> The table can change under the writer (an OPTIMIZE, a manual
 * repair). The index is checked at most once per checkpoint interval, on the first use after a
 * barrier, or at the barrier itself when the writer reads the table's state anyway: the table's
 * log version must have moved by exactly the number of this writer's commits whose batch end is
 * now at or below the table's txn version, since each of those is one Delta commit. Any other
 * difference means a commit this writer did not make, and the index is rebuilt from the lake (with
 * the still pending batches' keys added again). A commit that lands between the check and the use
 * is seen at the next check; Kernel has no read-conflict detection, and the single-writer rule is
 * what excludes another writer's promotions in that window.
 *
 * <p>Memory: one entry per promoted key of each table in use; see {@code
 * docs/silver-idempotence.md}. Not thread-safe; one per writer.
 */
final class SilverKeyIndex {
  private static final Logger LOG = LoggerFactory.getLogger(SilverKeyIndex.class);

  /** One silver commit of this writer that the table's log version may not count yet. */
  private record OwnCommit(long batchEnd, Set<ArtifactKey> keys) {}

  private static final class TableKeys {
    final Set<ArtifactKey> keys = new HashSet<>();
    final Deque<OwnCommit> uncounted = new ArrayDeque<>();
    SnapshotId checked;
    long checkedInEpoch;
    boolean stale;
  }

  private final DeltaTableClient client;
  private final Map<TableId, TableKeys> tables = new HashMap<>();
  private long epoch;
  private long rebuilds;

  SilverKeyIndex(DeltaTableClient client) {
    this.client = client;
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
      if (index.keys.contains(key)) {
        found.add(key);
      }
    }
    return found;
  }

  /**
   * Records a silver commit that this writer hands over for the table (every one, also those that
   * only rewrite), with the keys its rows create. A table not indexed yet is left alone: its index
   * will read the table and the pending batches when it is first needed.
   */
  void handedOver(TableId table, long batchEnd, Set<ArtifactKey> created) {
    TableKeys index = tables.get(table);
    if (index != null) {
      index.keys.addAll(created);
      index.uncounted.addLast(new OwnCommit(batchEnd, Set.copyOf(created)));
    }
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
    return rebuilds;
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
    return index;
  }

  private void check(TableId table, TableKeys index, SnapshotId now) {
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
      return;
    }
    LOG.warn(
        "{}: silver key index is rebuilt from the lake: the table is at log version {} (txn {})"
            + " but this writer's commits account for log version {} (txn {} when last checked):"
            + " another engine committed to it (an OPTIMIZE, a repair)",
        table,
        now.version(),
        now.txnVersion(),
        expected,
        index.checked.txnVersion());
    index.stale = true;
  }

  private void load(TableId table, TableKeys index, PendingFiles pending) throws IOException {
    long start = System.nanoTime();
    index.keys.clear();
    SnapshotId snapshot = client.forEachSilverKey(table, index.keys::add);
    int inTable = index.keys.size();
    Map<Long, Set<ArtifactKey>> ownKeys = new HashMap<>(pending.keysByBatch());
    index.uncounted.forEach(c -> ownKeys.merge(c.batchEnd(), c.keys(), SilverKeyIndex::union));
    index.uncounted.clear();
    ownKeys.entrySet().stream()
        .filter(e -> e.getKey() > snapshot.txnVersion())
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              index.keys.addAll(e.getValue());
              index.uncounted.addLast(new OwnCommit(e.getKey(), e.getValue()));
            });
    if (index.checked != null) {
      rebuilds++;
    }
    index.checked = snapshot;
    index.stale = false;
    LOG.info(
        "{}: silver key index built from log version {} (txn {}): {} keys in the table, {} in {}"
            + " pending batches, {} ms",
        table,
        snapshot.version(),
        snapshot.txnVersion(),
        inTable,
        index.keys.size() - inTable,
        index.uncounted.size(),
        (System.nanoTime() - start) / 1_000_000);
  }

  private static Set<ArtifactKey> union(Set<ArtifactKey> a, Set<ArtifactKey> b) {
    Set<ArtifactKey> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }
}
