package org.oml.lakewriter.delta.writer;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.event.Batch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first phase: each batch becomes Parquet files per table, and at the checkpoint barrier
 * ({@link #prepareCommit}) one {@link DeltaCommittable} per batch, in batch order.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Per table, no row at or below the table's txn version (read from the lake on first sight of
 *       the table) is written again; see {@link TableVersions}.
 *   <li>Batches arrive in increasing seq order; one that does not is refused, because committing an
 *       older batch after a newer one would make every table skip it.
 *   <li>Nothing here is visible in the lake: files without a commit are orphans for VACUUM. The
 *       writer keeps no state, since every batch it has written is handed over at each barrier.
 * </ul>
 */
public final class DeltaSinkWriter implements CommittingSinkWriter<Batch, DeltaCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkWriter.class);

  private final DeltaTableClient client;
  private final BatchPlanner planner;
  private final TableVersions versions;
  private List<DeltaCommittable> pending = new ArrayList<>();
  private long lastBatchEnd = Long.MIN_VALUE;

  public DeltaSinkWriter(DeltaTableClient client, Clock clock) {
    this.client = client;
    this.planner = new BatchPlanner(clock);
    this.versions = new TableVersions(client);
  }

  @Override
  public void write(Batch batch, Context context) throws IOException {
    if (batch.frontier() < lastBatchEnd) {
      throw new IllegalStateException(
          "batch ("
              + batch.frontier()
              + ", "
              + batch.batchEnd()
              + "] arrived after a batch ending"
              + " at "
              + lastBatchEnd
              + ": the cut must emit batches in seq order");
    }
    String name = "(" + batch.frontier() + ", " + batch.batchEnd() + "]";
    List<TableCommit> tables = new ArrayList<>();
    for (Map.Entry<TableId, TableWrite> entry : planner.plan(batch).entrySet()) {
      TableCommit commit = writeTable(name, entry.getKey(), entry.getValue());
      if (commit != null) {
        tables.add(commit);
      }
    }
    DeltaCommittable committable = new DeltaCommittable(batch.frontier(), batch.batchEnd(), tables);
    pending.add(committable);
    lastBatchEnd = batch.batchEnd();
    LOG.debug("batch {} prepared: {}", name, committable);
  }

  private TableCommit writeTable(String batch, TableId table, TableWrite write) throws IOException {
    long version = versions.versionOf(table);
    TableWrite fresh = write.above(version);
    int dropped = write.appends().size() - fresh.appends().size();
    if (dropped > 0) {
      LOG.info(
          "batch {} table {}: {} rows at or below txn version {} are already in the lake",
          batch,
          table,
          dropped,
          version);
    }
    if (fresh.isEmpty()) {
      return null;
    }
    List<DataFile> files = client.writeDataFiles(table, fresh.appends());
    return new TableCommit(table, fresh.appends().size(), files);
  }

  @Override
  public void flush(boolean endOfInput) {
    // Files are written per batch in write(); nothing is buffered between batches.
  }

  @Override
  public List<DeltaCommittable> prepareCommit() {
    List<DeltaCommittable> ready = pending;
    pending = new ArrayList<>();
    return ready;
  }

  @Override
  public void close() throws Exception {
    client.close();
  }
}
