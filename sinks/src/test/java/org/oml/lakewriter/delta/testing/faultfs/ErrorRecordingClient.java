package org.oml.lakewriter.delta.testing.faultfs;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;

/**
 * Records the message of every failure the writer's and the committer's client calls throw: what
 * the job logs and fails over with, so a test can check that a fault ends in a named error.
 */
public class ErrorRecordingClient extends ForwardingDeltaTableClient {
  private static final Map<String, List<String>> ERRORS = new ConcurrentHashMap<>();
  private final String name;

  public ErrorRecordingClient(DeltaTableClient delegate, String name) {
    super(delegate);
    this.name = name;
  }

  /** The messages recorded under {@code name}, oldest first. */
  public static List<String> errors(String name) {
    return ERRORS.getOrDefault(name, List.of());
  }

  protected final void record(Exception e) {
    ERRORS.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(String.valueOf(e));
  }

  @Override
  public long readTxnVersion(TableId table) throws IOException {
    try {
      return delegate.readTxnVersion(table);
    } catch (IOException | RuntimeException e) {
      record(e);
      throw e;
    }
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
    try {
      return delegate.writeDataFiles(table, rows);
    } catch (IOException | RuntimeException e) {
      record(e);
      throw e;
    }
  }

  @Override
  public Optional<List<DataFile>> rewriteDataFile(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after)
      throws IOException {
    try {
      return delegate.rewriteDataFile(table, file, before, after);
    } catch (IOException | RuntimeException e) {
      record(e);
      throw e;
    }
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    try {
      return delegate.commit(table, batchEnd, files);
    } catch (IOException | RuntimeException e) {
      record(e);
      throw e;
    }
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
    try {
      return delegate.commitRewrite(table, batchEnd, files, rewrite);
    } catch (IOException | RuntimeException e) {
      record(e);
      throw e;
    }
  }

  /** Wraps every client of {@code delegate}. */
  public static class Factory implements DeltaTableClientFactory {
    private static final long serialVersionUID = 1L;
    protected final DeltaTableClientFactory delegate;
    protected final String name;

    public Factory(DeltaTableClientFactory delegate, String name) {
      this.delegate = delegate;
      this.name = name;
      ERRORS.put(name, new CopyOnWriteArrayList<>());
    }

    @Override
    public DeltaTableClient create() throws IOException {
      return new ErrorRecordingClient(delegate.create(), name);
    }
  }
}
