package org.oml.lakewriter.delta.committer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.TableId;

/**
 * One batch {@code (frontier, batchEnd]}, ready to commit: per table, the data files the writer
 * wrote for it and the files a silver MERGE replaces. A retried commit replays exactly this
 * decision and never re-cuts the batch.
 *
 * <p>Invariants: {@code frontier < batchEnd}; tables are unique and sorted by path, which is the
 * order in which they commit. A committable with no tables (every row was already in the lake, the
 * range held only rolled-back seqs, or only retractions that changed nothing) commits nothing but
 * still advances the frontier. {@code retractsWithoutRow} counts the batch's retractions that found
 * no silver row (finding {@code RETRACT_WITHOUT_ROW}); they are in bronze only.
 */
public record DeltaCommittable(
    long frontier, long batchEnd, List<TableCommit> tables, int retractsWithoutRow) {
  public DeltaCommittable {
    if (retractsWithoutRow < 0) {
      throw new IllegalArgumentException("negative retractsWithoutRow " + retractsWithoutRow);
    }
    if (batchEnd <= frontier) {
      throw new IllegalArgumentException(
          "batchEnd " + batchEnd + " must be above frontier " + frontier);
    }
    tables = List.copyOf(Objects.requireNonNull(tables, "tables"));
    TableId previous = null;
    for (TableCommit table : tables) {
      if (previous != null && previous.compareTo(table.table()) >= 0) {
        throw new IllegalArgumentException(
            "tables must be unique and sorted by path: " + previous + " before " + table.table());
      }
      previous = table.table();
    }
  }

  /** A batch without findings. */
  public DeltaCommittable(long frontier, long batchEnd, List<TableCommit> tables) {
    this(frontier, batchEnd, tables, 0);
  }

  /** {@code (frontier, batchEnd]}, the name of the batch in every log line. */
  public String batchName() {
    return "(" + frontier + ", " + batchEnd + "]";
  }

  public long rowCount() {
    return tables.stream().mapToLong(TableCommit::rowCount).sum();
  }

  public int fileCount() {
    return tables.stream().mapToInt(t -> t.files().size()).sum();
  }

  @Override
  public String toString() {
    return "DeltaCommittable"
        + batchName()
        + tables
        + (retractsWithoutRow == 0 ? "" : "{retractsWithoutRow=" + retractsWithoutRow + "}");
  }
}
