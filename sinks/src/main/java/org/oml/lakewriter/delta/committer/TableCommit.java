package org.oml.lakewriter.delta.committer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;

/**
 * The part of a batch that goes to one table: the data files the writer wrote for it, how many rows
 * they hold, for a silver or gold MERGE the {@link Rewrite} whose replaced files the same commit
 * removes (null for an append-only commit), and the lowest seq of the events it applies.
 *
 * <p>The events are exactly the batch's events for this table above the table's txn version when
 * the writer planned it, so committing the files under {@code txn(oml-lakewriter, batchEnd)} applies
 * each of them once, on one condition that the committer checks against the table it commits to:
 * the table's txn version is still below {@code firstSeq}. A table that records a version at or
 * above {@code firstSeq} but below {@code batchEnd} took some of these events from a batch with
 * other bounds (a second writer: docs/second-writer.md), and this commit is refused and planned
 * again ({@code DeltaTableClient#commitEvents}).
 *
 * @param firstSeq the lowest seq of the events this commit applies; {@link #UNCHECKED} for a
 *     commit that applies none, or one restored from a release that did not record it
 */
public record TableCommit(
    TableId table, long rowCount, List<DataFile> files, Rewrite rewrite, long firstSeq) {
  /** No event of the commit can be at or below any txn version: nothing to check. */
  public static final long UNCHECKED = Long.MAX_VALUE;

  public TableCommit {
    Objects.requireNonNull(table, "table");
    files = List.copyOf(files);
    if (rowCount < 0) {
      throw new IllegalArgumentException("negative row count for " + table);
    }
    if (firstSeq < 0) {
      throw new IllegalArgumentException("negative first seq " + firstSeq + " for " + table);
    }
  }

  /** A commit whose first event is not known (tests of other parts, stored committables). */
  public TableCommit(TableId table, long rowCount, List<DataFile> files, Rewrite rewrite) {
    this(table, rowCount, files, rewrite, UNCHECKED);
  }

  /** An append-only commit whose first event is not known. */
  public TableCommit(TableId table, long rowCount, List<DataFile> files) {
    this(table, rowCount, files, null);
  }

  /** This commit, applying events from {@code seq} on. */
  public TableCommit withFirstSeq(long seq) {
    return new TableCommit(table, rowCount, files, rewrite, seq);
  }

  /** The files this commit removes (replaced by their rewritten copies among {@link #files}). */
  public List<DataFile> removes() {
    return rewrite == null ? List.of() : rewrite.removes();
  }

  @Override
  public String toString() {
    return table
        + "["
        + rowCount
        + " rows, "
        + files.size()
        + " files"
        + (rewrite == null ? "" : ", " + rewrite)
        + (firstSeq == UNCHECKED ? "" : ", from seq " + firstSeq)
        + "]";
  }
}
