package org.oml.lakewriter.delta.committer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.TableId;

/**
 * The part of a batch that goes to one table: the data files written for it and how many rows they
 * hold. The files are exactly the rows of the batch above the table's txn version when the writer
 * first saw the table, so committing them under {@code txn(oml-lakewriter, batchEnd)} adds each of
 * those rows once.
 */
public record TableCommit(TableId table, long rowCount, List<DataFile> files) {
  public TableCommit {
    Objects.requireNonNull(table, "table");
    files = List.copyOf(files);
    if (rowCount < 0) {
      throw new IllegalArgumentException("negative row count for " + table);
    }
  }

  @Override
  public String toString() {
    return table + "[" + rowCount + " rows, " + files.size() + " files]";
  }
}
