package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.List;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;

/**
 * A decorator that lets {@code commitsBeforeCrash} commits through and then crashes (an unexpected
 * exception, as a killed process would leave things): the fault hook between two tables of a batch.
 */
public final class FailingTableClient extends ForwardingDeltaTableClient {
  private int commitsLeft;

  public FailingTableClient(DeltaTableClient delegate, int commitsBeforeCrash) {
    super(delegate);
    this.commitsLeft = commitsBeforeCrash;
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    crashIfDue(table, batchEnd);
    return delegate.commit(table, batchEnd, files);
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
    crashIfDue(table, batchEnd);
    return delegate.commitRewrite(table, batchEnd, files, rewrite);
  }

  private void crashIfDue(TableId table, long batchEnd) {
    if (commitsLeft-- <= 0) {
      throw new IllegalStateException(
          "injected crash before committing " + table + " @" + batchEnd);
    }
  }
}
