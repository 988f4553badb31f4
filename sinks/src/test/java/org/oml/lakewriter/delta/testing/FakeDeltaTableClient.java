package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;

/**
 * An in-memory lake with the {@link DeltaTableClient} contract: files hold rows until committed, a
 * commit at or below a table's txn version is already applied. Faults are scripted per call.
 */
public final class FakeDeltaTableClient implements DeltaTableClient {
  private final Map<String, List<TableRow>> uncommitted = new HashMap<>();
  private final Map<TableId, List<TableRow>> committed = new TreeMap<>();
  private final Map<TableId, Long> txnVersions = new TreeMap<>();
  private final Map<TableId, RuntimeException> permanentFailures = new HashMap<>();
  private final List<String> log = new ArrayList<>();
  private int transientFailures;
  private int fileCounter;
  private boolean closed;

  /** Seeds a table as if earlier batches had committed up to {@code version}. */
  public FakeDeltaTableClient withTxnVersion(TableId table, long version) {
    txnVersions.put(table, version);
    return this;
  }

  /** The next {@code n} commits throw a transient {@link IOException}. */
  public FakeDeltaTableClient failNextCommits(int n) {
    transientFailures = n;
    return this;
  }

  /** Every commit to {@code table} throws {@code failure}. */
  public FakeDeltaTableClient failCommitsTo(TableId table, RuntimeException failure) {
    permanentFailures.put(table, failure);
    return this;
  }

  @Override
  public long readTxnVersion(TableId table) {
    log.add("read " + table);
    return txnVersions.getOrDefault(table, NO_VERSION);
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) {
    String path = "part-" + (fileCounter++) + ".parquet";
    uncommitted.put(table + "/" + path, List.copyOf(rows));
    log.add("write " + table + " " + rows.size());
    return List.of(new DataFile(path, 100, 1, "{\"numRecords\":" + rows.size() + "}"));
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    if (permanentFailures.containsKey(table)) {
      throw permanentFailures.get(table);
    }
    if (transientFailures > 0) {
      transientFailures--;
      throw new IOException("injected transient failure on " + table);
    }
    if (batchEnd <= txnVersions.getOrDefault(table, NO_VERSION)) {
      log.add("skip " + table + " " + batchEnd);
      return CommitOutcome.ALREADY_APPLIED;
    }
    for (DataFile file : files) {
      committed
          .computeIfAbsent(table, t -> new ArrayList<>())
          .addAll(uncommitted.get(table + "/" + file.relativePath()));
    }
    txnVersions.put(table, batchEnd);
    log.add("commit " + table + " " + batchEnd);
    return CommitOutcome.COMMITTED;
  }

  public List<Long> committedSeqs(TableId table) {
    return committed.getOrDefault(table, List.of()).stream().map(TableRow::seq).toList();
  }

  public long txnVersion(TableId table) {
    return txnVersions.getOrDefault(table, NO_VERSION);
  }

  public List<String> log() {
    return List.copyOf(log);
  }

  public boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
  }
}
