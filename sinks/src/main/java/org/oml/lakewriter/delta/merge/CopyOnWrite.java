package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;
import org.oml.lakewriter.event.EventKind;

/**
 * Applies per-key changes (silver's retractions, gold's lineage events and recomputed memories) to
 * rows of earlier batches by rewriting the files that hold them. What a key's changes do to its row
 * is the caller's {@link Transition}; this class only finds, reads, rewrites and replaces files, the
 * same way for every table keyed on {@code (artifact_id, version)}.
 *
 * <p>The files that hold a key are those the {@link SilverKeyIndex} names: live files of the
 * table, or files a pending batch of this writer added. Only those are read, so a retraction reads
 * one file however many files the table has and however random its artifact ids (statistics on
 * {@code artifact_id} rule out nothing when ids are random). Rows are matched by key; a file in
 * which some row changes is written again with every row, changed or copied unchanged, and
 * replaced. A file in which nothing changes (only retractions that change nothing) is left alone.
 * A key the index does not hold has no row in the table: nothing is read for it.
 *
 * <p>The index is a hint that is checked before its answer is used. The named files' add actions
 * are read from the table's latest snapshot ({@link DeltaTableClient#liveFiles}, the log only), and
 * the plan is dropped and made again on a rebuilt index when that snapshot shows a commit this
 * writer did not make, when a named file is neither live in it nor a pending batch's (or a pending
 * batch replaces it), or when a named file does not hold the key. After {@value #ATTEMPTS} such
 * attempts the batch fails with an {@link IOException} that names the table.
 */
final class CopyOnWrite {
  /** Plans made before giving up on a table that keeps changing under the writer. */
  static final int ATTEMPTS = 3;

  private final DeltaTableClient client;
  private final SilverKeyIndex index;

  CopyOnWrite(DeltaTableClient client, SilverKeyIndex index) {
    this.client = client;
    this.index = index;
  }

  /**
   * What a key's changes (in seq order) do to its row: the row after them, the same instance when
   * they change nothing, or null when the row leaves the table.
   */
  @FunctionalInterface
  interface Transition<T> {
    TableRow apply(ArtifactKey key, TableRow row, List<T> changes);

    /**
     * The columns whose values {@link #apply} reads for these changes (those of the keys one file
     * holds), besides the key and {@code seq}; null for every column. The other string and binary columns are not read from the file
     * (their values are {@link TableRow#notRead} stand-ins, which {@link TableRow#value} refuses).
     * A column that {@code apply} only sets need not be listed, but if it then holds values not
     * read the file is read a second time, whole.
     */
    default Set<String> reads(Collection<List<T>> changes) {
      return null;
    }
  }

  /** Silver's retractions, applied by {@link StateTransitions} in seq order. */
  static final Transition<Retraction> RETRACTIONS =
      new Transition<>() {
        @Override
        public TableRow apply(ArtifactKey key, TableRow row, List<Retraction> retractions) {
          TableRow merged = row;
          for (Retraction retraction : retractions) {
            merged = StateTransitions.apply(merged, retraction);
          }
          return merged;
        }

        @Override
        public Set<String> reads(Collection<List<Retraction>> changes) {
          // An erase clears the body, so that column is encoded again: read it too.
          for (List<Retraction> retractions : changes) {
            for (Retraction retraction : retractions) {
              if (retraction.kind() == EventKind.ERASE) {
                return StateTransitions.READS_ON_ERASE;
              }
            }
          }
          return StateTransitions.READS;
        }
      };

  <T> Result rewrite(
      TableId table,
      SortedMap<ArtifactKey, List<T>> onEarlierRows,
      PendingFiles pending,
      Transition<T> transition)
      throws IOException {
    int filesRead = 0;
    // A hash map: looked up for every row read (the sorted map costs a comparison per level).
    Map<ArtifactKey, List<T>> byKey = new HashMap<>(onEarlierRows);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      Map<ArtifactKey, String[]> where = index.locate(table, onEarlierRows.keySet(), pending);
      Set<String> named = new TreeSet<>();
      where.values().forEach(paths -> named.addAll(List.of(paths)));
      LiveFiles live = client.liveFiles(table, named);
      pending.settle(live.snapshot().txnVersion());
      if (!index.inStep(table, live.snapshot())) {
        continue;
      }
      Map<String, DataFile> files = resolve(table, named, live, pending);
      if (files == null) {
        continue;
      }
      Map<String, Set<ArtifactKey>> placed = placed(where);
      Map<DataFile, FileRows> rows = new LinkedHashMap<>();
      for (Map.Entry<String, DataFile> file : files.entrySet()) {
        List<List<T>> changes =
            placed.get(file.getKey()).stream().map(onEarlierRows::get).toList();
        Set<String> columns = columnsRead(transition.reads(changes));
        rows.put(
            file.getValue(),
            FileRows.of(
                table,
                columns == null
                    ? client.readDataFile(table, file.getValue())
                    : client.readDataFile(table, file.getValue(), columns)));
        filesRead++;
      }
      if (!holdTheirKeys(table, placed, files, rows, byKey.keySet())) {
        continue;
      }
      Result result = new Result(pending.baseTxnVersion(live.snapshot().txnVersion()));
      result.filesRead = filesRead;
      for (Map.Entry<DataFile, FileRows> file : rows.entrySet()) {
        rewriteFile(table, file.getKey(), file.getValue(), byKey, transition, result);
      }
      return result;
    }
    throw new IOException(
        table
            + ": the key index did not match the table in "
            + ATTEMPTS
            + " plans in a row, although it was rebuilt from the lake each time: another engine"
            + " keeps committing to the table (the writer must be its only writer); the batch is"
            + " retried");
  }

  /**
   * The named files, by path: a pending batch's file, or else a live file of the table that no
   * pending batch replaces; null (and the index invalidated) if a named file is neither.
   */
  private Map<String, DataFile> resolve(
      TableId table, Set<String> named, LiveFiles live, PendingFiles pending) {
    Map<String, PendingFile> pendingAdded = pending.liveAdded();
    Set<String> replaced = pending.removedFromTable();
    Map<String, DataFile> files = new LinkedHashMap<>();
    for (String path : named) {
      PendingFile own = pendingAdded.get(path);
      DataFile file =
          own != null ? own.file() : replaced.contains(path) ? null : live.files().get(path);
      if (file == null) {
        index.invalidate(
            table,
            "it names data file "
                + path
                + ", which is neither live at table version "
                + live.snapshot().version()
                + " nor written by a pending batch of this writer");
        return null;
      }
      files.put(path, file);
    }
    return files;
  }

  /** The keys the index places in each named file, by the file's path. */
  private static Map<String, Set<ArtifactKey>> placed(Map<ArtifactKey, String[]> where) {
    Map<String, Set<ArtifactKey>> byFile = new HashMap<>();
    where.forEach(
        (key, paths) -> {
          for (String path : paths) {
            byFile.computeIfAbsent(path, p -> new HashSet<>()).add(key);
          }
        });
    return byFile;
  }

  /**
   * True if every named file holds every key the index placed in it, and holds no other key with
   * changes (a file's columns are read for the changes of the keys placed in it); else invalidates
   * the index.
   */
  private boolean holdTheirKeys(
      TableId table,
      Map<String, Set<ArtifactKey>> placed,
      Map<String, DataFile> files,
      Map<DataFile, FileRows> rows,
      Set<ArtifactKey> changed) {
    for (Map.Entry<String, DataFile> file : files.entrySet()) {
      String path = file.getKey();
      Set<ArtifactKey> own = placed.get(path);
      Set<ArtifactKey> found = new HashSet<>();
      for (ArtifactKey key : rows.get(file.getValue()).keys()) {
        if (key == null || !changed.contains(key)) {
          continue; // every key the index places in a file has changes
        }
        if (!own.contains(key)) {
          index.invalidate(
              table, "it does not place " + key + " in data file " + path + ", which holds it");
          return false;
        }
        found.add(key);
      }
      if (found.size() != own.size()) {
        own.stream()
            .filter(key -> !found.contains(key))
            .findFirst()
            .ifPresent(
                key ->
                    index.invalidate(
                        table, "it places " + key + " in data file " + path + ", which lacks it"));
        return false;
      }
    }
    return true;
  }

  /** A file's rows as read, and the key of each (null for a row without one). */
  private record FileRows(List<TableRow> rows, List<ArtifactKey> keys) {
    static FileRows of(TableId table, List<TableRow> rows) {
      return new FileRows(rows, KeyedFiles.keysOf(table, rows));
    }
  }

  /** The columns to read for the transition: its own, the key's and {@code seq}; null: all. */
  private static Set<String> columnsRead(Set<String> reads) {
    if (reads == null) {
      return null;
    }
    Set<String> columns = new HashSet<>(reads);
    columns.addAll(List.of("artifact_id", "version", "seq"));
    return columns;
  }

  /**
   * Row for row (no row leaves the file), the new version is made from the old file, its unchanged
   * column chunks copied ({@link DeltaTableClient#rewriteDataFile}). When the client cannot, the
   * file is read whole if it was not (some values were left unread) and its rows are written.
   */
  private <T> void rewriteFile(
      TableId table,
      DataFile file,
      FileRows read,
      Map<ArtifactKey, List<T>> onEarlierRows,
      Transition<T> transition,
      Result result)
      throws IOException {
    List<TableRow> rows = read.rows();
    Applied applied = apply(read, onEarlierRows, transition, result);
    if (!applied.changed) {
      return;
    }
    Optional<List<DataFile>> copied =
        applied.rows.size() == rows.size()
            ? client.rewriteDataFile(table, file, rows, applied.rows)
            : Optional.empty();
    List<DataFile> written;
    if (copied.isPresent()) {
      written = copied.get();
    } else {
      if (rows.stream().anyMatch(TableRow::holdsNotRead)) {
        FileRows whole = FileRows.of(table, client.readDataFile(table, file));
        applied = apply(whole, onEarlierRows, transition, result);
      }
      written = applied.rows.isEmpty() ? List.of() : client.writeDataFiles(table, applied.rows);
    }
    // The rows of one write may be split over several files; each is attributed every key.
    String rewriteOf = written.size() == 1 ? file.relativePath() : null;
    for (DataFile added : written) {
      result.added.add(new PendingFile(added, applied.keys, rewriteOf));
    }
    result.removes.add(file);
    result.rowsRewritten += applied.rows.size();
  }

  /** A file's rows after the changes to them, and their keys. */
  private record Applied(List<TableRow> rows, List<ArtifactKey> keys, boolean changed) {}

  private static <T> Applied apply(
      FileRows read,
      Map<ArtifactKey, List<T>> onEarlierRows,
      Transition<T> transition,
      Result result) {
    List<TableRow> rows = read.rows();
    List<TableRow> out = new ArrayList<>(rows.size());
    List<ArtifactKey> keys = new ArrayList<>(rows.size());
    boolean changed = false;
    for (int i = 0; i < rows.size(); i++) {
      TableRow row = rows.get(i);
      ArtifactKey key = read.keys().get(i);
      TableRow merged = row;
      List<T> changes = key == null ? null : onEarlierRows.get(key);
      if (changes != null) {
        result.found.add(key);
        merged = transition.apply(key, row, changes);
        changed |= merged != row;
      }
      if (merged == null) {
        continue; // the row leaves the table (gold/workarea_memories)
      }
      out.add(merged);
      if (key != null) {
        keys.add(key);
      }
    }
    return new Applied(out, keys, changed);
  }

  /** What the rewrite read, replaced and wrote, and the table state it was planned on. */
  static final class Result {
    final long baseTxnVersion;
    final List<DataFile> removes = new ArrayList<>();
    final List<PendingFile> added = new ArrayList<>();
    final Set<ArtifactKey> found = new HashSet<>();
    int filesRead;
    long rowsRewritten;

    Result(long baseTxnVersion) {
      this.baseTxnVersion = baseTxnVersion;
    }
  }
}
