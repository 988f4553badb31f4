package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.List;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;

/**
 * A decorator that lets {@code commitsBeforeCrash} commits through and then crashes (an unexpected
 * exception, as a killed process would leave things): the fault hook between two tables of a batch.
 */
public final class FailingTableClient implements DeltaTableClient {
  private final DeltaTableClient delegate;
  private int commitsLeft;

  public FailingTableClient(DeltaTableClient delegate, int commitsBeforeCrash) {
    this.delegate = delegate;
    this.commitsLeft = commitsBeforeCrash;
  }

  @Override
  public long readTxnVersion(TableId table) throws IOException {
    return delegate.readTxnVersion(table);
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
    return delegate.writeDataFiles(table, rows);
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    if (commitsLeft-- <= 0) {
      throw new IllegalStateException(
          "injected crash before committing " + table + " @" + batchEnd);
    }
    return delegate.commit(table, batchEnd, files);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
