package org.oml.lakewriter.delta.committer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;

/**
 * The part of a batch that goes to one table: the data files the writer wrote for it, how many rows
 * they hold, and, for a silver MERGE, the {@link Rewrite} whose replaced files the same commit
 * removes (null for an append-only commit). The appended rows are exactly the rows of the batch
 * above the table's txn version when the writer first saw the table, so committing the files under
 * {@code txn(oml-lakewriter, batchEnd)} adds each of those rows once; rewritten files replace the
 * files they were copied from in that same commit.
 */
public record TableCommit(TableId table, long rowCount, List<DataFile> files, Rewrite rewrite) {
  public TableCommit {
    Objects.requireNonNull(table, "table");
    files = List.copyOf(files);
    if (rowCount < 0) {
      throw new IllegalArgumentException("negative row count for " + table);
    }
  }

  /** An append-only commit. */
  public TableCommit(TableId table, long rowCount, List<DataFile> files) {
    this(table, rowCount, files, null);
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
        + "]";
  }
}
