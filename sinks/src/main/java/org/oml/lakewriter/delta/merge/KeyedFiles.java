package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy-on-write machinery shared by every table keyed on {@code (artifact_id, version)} that
 * one writer MERGEs into ({@code silver/memories}, {@code gold/lineage}, {@code
 * gold/workarea_memories}): per table the {@link SilverKeyIndex} (key to the files that hold it),
 * the {@link PendingFiles} of batches handed over but not committed yet, and the {@link
 * CopyOnWrite} that rewrites only the files the index names. What a key's changes do to its row is
 * the caller's ({@link CopyOnWrite.Transition}); this class keeps the index and the pending files
 * in step with every commit the caller hands over ({@link #record}).
 *
 * <p>One per writer. Thread-safe for different tables, as the writer uses it: a unit's tenants are
 * planned in parallel, each tenant's tables by one task; {@link #barrier} and {@link #forget} run
 * between units, on the writer's thread.
 */
public final class KeyedFiles {
  private static final Logger LOG = LoggerFactory.getLogger(KeyedFiles.class);

  private final DeltaTableClient client;
  private final SilverKeyIndex keys;
  private final CopyOnWrite copyOnWrite;
  private final Map<TableId, PendingFiles> pending = new ConcurrentHashMap<>();
  private final AtomicLong recordedUpTo = new AtomicLong(Long.MIN_VALUE);
  private long handedOverUpTo = Long.MIN_VALUE;

  public KeyedFiles(DeltaTableClient client) {
    this(client, KeyCache.NONE);
  }

  /** With the keys of the tables' files saved in {@code cache} between runs. */
  public KeyedFiles(DeltaTableClient client, KeyCache cache) {
    this.client = client;
    this.keys = new SilverKeyIndex(client, cache);
    this.copyOnWrite = new CopyOnWrite(client, keys);
  }

  PendingFiles pending(TableId table) {
    return pending.computeIfAbsent(table, t -> new PendingFiles());
  }

  /** Those of {@code keys} that have a row in the table or in a pending batch of this writer. */
  public Set<ArtifactKey> existing(TableId table, Collection<ArtifactKey> keys) throws IOException {
    if (keys.isEmpty()) {
      return Set.of();
    }
    return this.keys.existing(table, keys, pending(table));
  }

  /**
   * Applies {@code changes} (per key, in seq order) to the rows the table (or a pending batch)
   * holds for their keys, rewriting only the files that hold them; see {@link CopyOnWrite}.
   */
  <T> CopyOnWrite.Result rewrite(
      TableId table,
      SortedMap<ArtifactKey, List<T>> changes,
      CopyOnWrite.Transition<T> transition)
      throws IOException {
    return copyOnWrite.rewrite(table, changes, pending(table), transition);
  }

  /**
   * The current rows of {@code keys} (table or pending batch), read from the files the index names
   * and nothing else; a key without a row is absent.
   */
  public Map<ArtifactKey, TableRow> read(TableId table, Collection<ArtifactKey> keys)
      throws IOException {
    Map<ArtifactKey, TableRow> rows = new HashMap<>();
    if (!keys.isEmpty()) {
      // A copy-on-write whose transition changes nothing: it reads the named files, writes none.
      SortedMap<ArtifactKey, List<Object>> wanted = new java.util.TreeMap<>();
      keys.forEach(k -> wanted.put(k, List.of()));
      rewrite(
          table,
          wanted,
          (key, row, none) -> {
            rows.put(key, row);
            return row;
          });
    }
    return rows;
  }

  /**
   * Every row of the table as it will be once this writer's pending batches have committed: the
   * live files no pending batch replaces, then the pending batches' live files. Reads every column
   * of every file: for rare events only (a workarea validation, see docs/gold-streaming.md).
   */
  public void forEachRow(TableId table, java.util.function.Consumer<TableRow> rows)
      throws IOException {
    PendingFiles own = pending(table);
    org.oml.lakewriter.delta.LiveFiles all = client.smallFiles(table, Long.MAX_VALUE);
    own.settle(all.snapshot().txnVersion());
    Set<String> replaced = own.removedFromTable();
    Map<String, PendingFile> added = own.liveAdded();
    for (DataFile file : all.files().values()) {
      if (!replaced.contains(file.relativePath()) && !added.containsKey(file.relativePath())) {
        client.readDataFile(table, file).forEach(rows);
      }
    }
    for (PendingFile file : added.values()) {
      client.readDataFile(table, file.file()).forEach(rows);
    }
  }

  /**
   * Records one commit the caller hands over for the table: the files it adds (each with the keys
   * its rows hold), the files it replaces, and the keys whose rows it deletes.
   */
  void record(
      TableId table,
      long batchEnd,
      List<PendingFile> added,
      List<DataFile> removes,
      Set<ArtifactKey> deleted) {
    pending(table).record(batchEnd, added, removes, deleted);
    keys.handedOver(table, batchEnd, added, removes, deleted);
    recordedUpTo.accumulateAndGet(batchEnd, Math::max);
  }

  /** The pending files of every written but uncommitted batch of a prefix's tables are forgotten. */
  public void forget(String prefix) {
    pending.keySet().removeIf(t -> t.prefix().equals(prefix));
    // The key index counted the keys of those pending batches, which will never commit now.
    keys.forget(prefix);
  }

  /**
   * At each checkpoint barrier: forgets the pending files of batches handed over at an earlier
   * barrier that their tables now hold, so that the writer's memory of pending files stays about
   * one checkpoint deep.
   */
  public void barrier() {
    for (Iterator<Map.Entry<TableId, PendingFiles>> it = pending.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<TableId, PendingFiles> entry = it.next();
      PendingFiles files = entry.getValue();
      if (!files.isEmpty() && files.oldestBatchEnd() <= handedOverUpTo) {
        try {
          SnapshotId snapshot = client.snapshotId(entry.getKey());
          files.settle(snapshot.txnVersion());
          keys.observed(entry.getKey(), snapshot);
        } catch (IOException | RuntimeException e) {
          LOG.debug(
              "{}: pending files kept, txn version unreadable ({})", entry.getKey(), e.toString());
        }
      }
      if (files.isEmpty()) {
        it.remove();
      }
    }
    handedOverUpTo = recordedUpTo.get();
    keys.barrier();
  }

  long rebuilds() {
    return keys.rebuilds();
  }

  long filesFromKeyCache() {
    return keys.filesFromCache();
  }

  /** Saves the key index of every table that changed since its last save (see {@link KeyCache}). */
  public void saveKeys() {
    keys.saveAll();
  }

  long catchUps() {
    return keys.catchUps();
  }

  /** The key of each row, in row order (null for a row without one). */
  static List<ArtifactKey> keysOf(TableId table, List<TableRow> rows) {
    List<ArtifactKey> keys = new ArrayList<>(rows.size());
    for (TableRow row : rows) {
      keys.add(ArtifactKey.of(table.kind(), row));
    }
    return keys;
  }

  /** Writes appended rows as files of the table, each attributed every key of the rows. */
  List<PendingFile> append(TableId table, List<TableRow> rows) throws IOException {
    List<PendingFile> added = new ArrayList<>();
    if (!rows.isEmpty()) {
      List<ArtifactKey> rowKeys = keysOf(table, rows);
      rowKeys.removeIf(Objects::isNull);
      for (DataFile file : client.writeDataFiles(table, rows)) {
        added.add(new PendingFile(file, rowKeys));
      }
    }
    return added;
  }
}
