package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;

/**
 * Applies retractions to rows of earlier batches by rewriting the files that hold them.
 *
 * <p>The files that can hold a key are the table's live files whose statistics do not rule the key
 * out (Kernel's filtered scan), minus those a pending batch already replaces, plus the pending
 * batches' own files that hold the key. Each candidate is read whole. Statistics prune files, not
 * rows, so rows are matched here by key; a file in which some row changes is written again with
 * every row, changed or copied unchanged, and replaced. A file in which nothing changes (no row of
 * the key, or only retractions that change nothing) is left alone, so a retraction touches one file
 * per file that holds its key, however large the table is.
 */
final class CopyOnWrite {
  private final DeltaTableClient client;

  CopyOnWrite(DeltaTableClient client) {
    this.client = client;
  }

  Result rewrite(
      TableId table, SortedMap<ArtifactKey, List<Retraction>> onEarlierRows, PendingFiles pending)
      throws IOException {
    CandidateFiles inTable = client.filesThatMayHold(table, onEarlierRows.keySet());
    pending.settle(inTable.txnVersion());
    Result result = new Result(pending.baseTxnVersion(inTable.txnVersion()));
    for (DataFile file : candidates(inTable, pending, onEarlierRows.keySet())) {
      rewriteFile(table, file, onEarlierRows, result);
    }
    return result;
  }

  private static List<DataFile> candidates(
      CandidateFiles inTable, PendingFiles pending, Set<ArtifactKey> keys) {
    Set<String> replaced = pending.removedFromTable();
    List<DataFile> files = new ArrayList<>();
    for (DataFile file : inTable.files()) {
      if (!replaced.contains(file.relativePath())) {
        files.add(file);
      }
    }
    for (PendingFile file : pending.liveAdded().values()) {
      if (!Collections.disjoint(file.keys(), keys)) {
        files.add(file.file());
      }
    }
    return files;
  }

  private void rewriteFile(
      TableId table, DataFile file, Map<ArtifactKey, List<Retraction>> onEarlierRows, Result result)
      throws IOException {
    List<TableRow> rows = client.readDataFile(table, file);
    result.filesRead++;
    List<TableRow> out = new ArrayList<>(rows.size());
    Set<ArtifactKey> keys = new HashSet<>();
    boolean changed = false;
    for (TableRow row : rows) {
      ArtifactKey key = ArtifactKey.ofSilverRow(row);
      TableRow merged = row;
      List<Retraction> retractions = key == null ? null : onEarlierRows.get(key);
      if (retractions != null) {
        result.found.add(key);
        for (Retraction retraction : retractions) {
          merged = StateTransitions.apply(merged, retraction);
        }
        changed |= merged != row;
      }
      out.add(merged);
      if (key != null) {
        keys.add(key);
      }
    }
    if (!changed) {
      return;
    }
    // The rows of one write may be split over several files; each is attributed every key.
    for (DataFile written : client.writeDataFiles(table, out)) {
      result.added.add(new PendingFile(written, keys));
    }
    result.removes.add(file);
    result.rowsRewritten += out.size();
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
