package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.gold.GoldTransitions;

/**
 * The rows of each {@code gold/workareas} table as they will be once this writer's pending batches
 * have committed: the table is tiny (one row per validated or invalidated workarea) and read
 * whole, and every batch that changes it rewrites it whole (all its files replaced by one), so the
 * rows after the last pending batch are simply that batch's rows.
 *
 * <p>Memory only, rebuilt from the lake: when no batch of this writer is pending for the table and
 * its snapshot is not the one last read (a commit of this writer landed, or someone else's), the
 * table is read again. A pending batch's rows are trusted: its commit is refused unless the table
 * is then exactly where it was planned ({@link org.oml.lakewriter.delta.Rewrite}). One per writer;
 * thread-safe for different tables (see {@link KeyedFiles}).
 */
final class WorkareaFiles {
  /** The table's rows by workarea id, the files that hold them, and the txn version they are at. */
  record Current(Map<String, TableRow> rows, List<DataFile> files, long txnVersion) {}

  private record Pending(long batchEnd, Map<String, TableRow> rows, List<DataFile> files) {}

  private static final class Table {
    SnapshotId loaded;
    Current read;
    final Deque<Pending> pending = new ArrayDeque<>();
  }

  private final DeltaTableClient client;
  private final Map<TableId, Table> tables = new ConcurrentHashMap<>();

  WorkareaFiles(DeltaTableClient client) {
    this.client = client;
  }

  /** The table's rows after every pending batch of this writer. */
  Current current(TableId table) throws IOException {
    Table t = tables.computeIfAbsent(table, k -> new Table());
    SnapshotId now = client.snapshotId(table);
    while (!t.pending.isEmpty() && t.pending.peekFirst().batchEnd() <= now.txnVersion()) {
      t.pending.removeFirst();
    }
    if (!t.pending.isEmpty()) {
      Pending last = t.pending.peekLast();
      return new Current(last.rows(), last.files(), last.batchEnd());
    }
    if (!now.equals(t.loaded)) {
      t.read = read(table, now);
      t.loaded = now;
    }
    return t.read;
  }

  private Current read(TableId table, SnapshotId now) throws IOException {
    if (!now.exists()) {
      return new Current(Map.of(), List.of(), now.txnVersion());
    }
    LiveFiles all = client.smallFiles(table, Long.MAX_VALUE);
    Map<String, TableRow> rows = new TreeMap<>();
    for (DataFile file : all.files().values()) {
      for (TableRow row : client.readDataFile(table, file)) {
        rows.merge(
            GoldTransitions.workareaId(row), row, (a, b) -> a.seq() >= b.seq() ? a : b);
      }
    }
    return new Current(
        rows, new ArrayList<>(all.files().values()), all.snapshot().txnVersion());
  }

  /** A batch of this writer replaces the table's files with {@code files}, holding {@code rows}. */
  void record(TableId table, long batchEnd, Map<String, TableRow> rows, List<DataFile> files) {
    tables
        .computeIfAbsent(table, k -> new Table())
        .pending
        .addLast(new Pending(batchEnd, Map.copyOf(rows), List.copyOf(files)));
  }

  void forget(String prefix) {
    tables.keySet().removeIf(t -> t.prefix().equals(prefix));
  }
}
