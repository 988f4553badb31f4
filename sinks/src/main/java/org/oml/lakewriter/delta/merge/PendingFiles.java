package org.oml.lakewriter.delta.merge;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;

/**
 * The silver files of one table that this writer has written (and replaced) in batches that are not
 * in the table yet: the writer runs ahead of the committer, which commits a batch only after its
 * checkpoint completes. A retraction of a row promoted (or rewritten) by such a batch must find
 * that row in the batch's file, not in the table; a file such a batch replaces is gone for every
 * later batch, although the table still lists it.
 *
 * <p>Which batches are pending is read from the table itself: a batch whose {@code batchEnd} is at
 * or below the table's txn version has been committed, so its files are in the table's snapshot and
 * it is forgotten here ({@link #settle}). Not thread-safe; one per table per writer.
 */
final class PendingFiles {
  /**
   * A file that a pending batch adds, with every key its rows hold (exact, not statistics; a key
   * may be listed more than once), and the path of the file it is a rewrite of (its rows are that
   * file's, changed, less those the batch deletes) or null. The list is taken as it is, not copied
   * (a copy per file was a tenth of a gold append's time): the callers build it for the file and
   * never change it after.
   */
  record PendingFile(DataFile file, List<ArtifactKey> keys, String rewriteOf) {
    PendingFile {
      keys = Collections.unmodifiableList(keys);
    }

    /** A file of appended rows (a rewrite of no file). */
    PendingFile(DataFile file, List<ArtifactKey> keys) {
      this(file, keys, null);
    }
  }

  private record Entry(
      long batchEnd, List<PendingFile> added, List<DataFile> removed, Set<ArtifactKey> deleted) {}

  private final Deque<Entry> entries = new ArrayDeque<>();

  /** Records the silver commit of a batch that the writer has handed (or will hand) over. */
  void record(long batchEnd, List<PendingFile> added, List<DataFile> removed) {
    record(batchEnd, added, removed, Set.of());
  }

  /**
   * Records a commit of a batch that the writer has handed (or will hand) over, in which the rows of
   * {@code deleted} leave the table (their files are among {@code removed}, and no added file holds
   * them): {@code gold/workarea_memories}.
   */
  void record(
      long batchEnd, List<PendingFile> added, List<DataFile> removed, Set<ArtifactKey> deleted) {
    if (!entries.isEmpty() && entries.peekLast().batchEnd() >= batchEnd) {
      throw new IllegalStateException(
          "batch ending at " + batchEnd + " recorded after " + entries.peekLast().batchEnd());
    }
    entries.addLast(
        new Entry(batchEnd, List.copyOf(added), List.copyOf(removed), Set.copyOf(deleted)));
  }

  /** Forgets the batches a table at {@code txnVersion} already holds. */
  void settle(long txnVersion) {
    while (!entries.isEmpty() && entries.peekFirst().batchEnd() <= txnVersion) {
      entries.removeFirst();
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The batchEnd of the oldest pending batch; only when not {@link #isEmpty()}. */
  long oldestBatchEnd() {
    return entries.peekFirst().batchEnd();
  }

  /**
   * The txn version the table will have when every pending batch is in it: the base on which a new
   * batch's rewrite is planned, given the table's current {@code txnVersion} (after {@link
   * #settle}).
   */
  long baseTxnVersion(long txnVersion) {
    return entries.isEmpty() ? txnVersion : Math.max(txnVersion, entries.peekLast().batchEnd());
  }

  /** The pending batches' net effect, in batch order: files added and still live, by path. */
  Map<String, PendingFile> liveAdded() {
    Map<String, PendingFile> live = new LinkedHashMap<>();
    for (Entry entry : entries) {
      entry.removed().forEach(f -> live.remove(f.relativePath()));
      entry.added().forEach(f -> live.put(f.file().relativePath(), f));
    }
    return live;
  }

  /**
   * One pending batch: its end, the files it adds (with their keys), the files it replaces and the
   * keys whose rows it deletes.
   */
  record Batch(
      long batchEnd, List<PendingFile> added, List<DataFile> removed, Set<ArtifactKey> deleted) {}

  /**
   * The pending batches, in batch order: what a key index loaded from the table while these
   * batches are pending must apply on top of the table's keys and files.
   */
  List<Batch> batches() {
    return entries.stream()
        .map(e -> new Batch(e.batchEnd(), e.added(), e.removed(), e.deleted()))
        .toList();
  }

  /** Paths of files in the table that a pending batch replaces. */
  Set<String> removedFromTable() {
    Set<String> added = new HashSet<>();
    Set<String> removed = new HashSet<>();
    for (Entry entry : entries) {
      for (DataFile file : entry.removed()) {
        if (!added.contains(file.relativePath())) {
          removed.add(file.relativePath());
        }
      }
      entry.added().forEach(f -> added.add(f.file().relativePath()));
    }
    return removed;
  }
}
