package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeltaTableClient} on Delta Kernel 4.4.0's default engine.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Every data commit carries {@code txn(oml-lakewriter, batchEnd)} and is built from a
 *       snapshot whose recorded txn version is below {@code batchEnd}; Kernel refuses (as {@code
 *       ConcurrentTransactionException}) a commit that loses a race to a commit with a txn version
 *       at or above ours, which we report as {@link CommitOutcome#ALREADY_APPLIED}.
 *   <li>Only tables whose columns equal {@code LakeSchemas} are written or committed to.
 *   <li>A commit never names a data file that is not there (it would make the table unreadable).
 * </ul>
 *
 * <p>Not thread-safe: one instance per writer or committer.
 */
public final class KernelDeltaTableClient implements DeltaTableClient {
  private static final Logger LOG = LoggerFactory.getLogger(KernelDeltaTableClient.class);
  static final String ENGINE_INFO = "oml-lakewriter/0.1";

  /** Conflict retries within one commit; the committer retries the whole call on top. */
  private static final int MAX_COMMIT_RETRIES = 10;

  private final Engine engine;
  private final String lakeRoot;

  /** Transaction state used to write files, per table; fixed for our schema and properties. */
  private final Map<TableId, Row> writeStates = new HashMap<>();

  /**
   * The snapshot each of our own commits produced, used as the base of the next commit to that
   * table instead of listing and replaying the log again. Safe even if another writer committed in
   * between: Kernel then finds the newer commits at commit time and resolves the conflict against
   * them, rejecting ours if one carries our txn at or above {@code batchEnd}. Dropped on any
   * failure, so a retry always starts from the lake.
   */
  private final Map<TableId, Snapshot> lastCommitted = new HashMap<>();

  public KernelDeltaTableClient(LakeConfig config) throws IOException {
    Configuration conf = KernelEngines.hadoopConf(config);
    this.engine = KernelEngines.engine(conf);
    this.lakeRoot = KernelEngines.qualifiedRoot(config, conf);
  }

  /** The table's root URI, e.g. {@code file:/lake/acme/silver/memories}. */
  public String tablePath(TableId table) {
    return lakeRoot + "/" + table.relativePath();
  }

  @Override
  public long readTxnVersion(TableId table) throws IOException {
    return call(table, () -> loadSnapshot(table).map(this::txnVersion).orElse(NO_VERSION));
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
    return call(table, () -> write(table, rows));
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    return call(table, () -> commitFiles(table, batchEnd, files));
  }

  @Override
  public void close() {
    writeStates.clear();
    lastCommitted.clear();
  }

  private List<DataFile> write(TableId table, List<TableRow> rows) throws IOException {
    Row state = writeState(table);
    StructType schema = KernelSchemas.structOf(table.kind());
    FilteredColumnarBatch logical =
        new FilteredColumnarBatch(new RowBatch(schema, rows), Optional.empty());
    CloseableIterator<FilteredColumnarBatch> physical =
        Transaction.transformLogicalData(
            engine, state, KernelEngines.iterator(List.of(logical)), Map.of());
    DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterator<DataFileStatus> written =
        engine
            .getParquetHandler()
            .writeParquetFiles(
                context.getTargetDirectory(), physical, context.getStatisticsColumns())) {
      while (written.hasNext()) {
        files.add(toDataFile(table, schema, written.next()));
      }
    }
    return files;
  }

  private CommitOutcome commitFiles(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    Snapshot cached = lastCommitted.remove(table);
    Snapshot snapshot =
        Optional.ofNullable(cached)
            .or(() -> loadSnapshot(table))
            .orElseThrow(
                () ->
                    new TableUnusableException(
                        table, "vanished after data files were written for txn " + batchEnd, null));
    requireOurColumns(table, snapshot);
    long recorded = txnVersion(snapshot);
    if (batchEnd <= recorded) {
      return CommitOutcome.ALREADY_APPLIED;
    }
    List<DataFileStatus> statuses = statusesOf(table, files);
    try {
      Transaction txn =
          snapshot
              .buildUpdateTableTransaction(ENGINE_INFO, Operation.WRITE)
              .withTransactionId(APP_ID, batchEnd)
              .withMaxRetries(MAX_COMMIT_RETRIES)
              .build(engine);
      Row state = txn.getTransactionState(engine);
      DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
      CloseableIterable<Row> actions =
          CloseableIterable.inMemoryIterable(
              Transaction.generateAppendActions(
                  engine, state, KernelEngines.iterator(statuses), context));
      TransactionCommitResult result = txn.commit(engine, actions);
      LOG.debug("{} committed version {} with txn {}", table, result.getVersion(), batchEnd);
      PostCommitHooks.run(engine, table, batchEnd, result);
      result.getPostCommitSnapshot().ifPresent(s -> lastCommitted.put(table, s));
      return CommitOutcome.COMMITTED;
    } catch (ConcurrentTransactionException e) {
      return CommitOutcome.ALREADY_APPLIED;
    }
  }

  private Row writeState(TableId table) {
    Row state = writeStates.get(table);
    if (state == null) {
      Snapshot snapshot = loadSnapshot(table).orElseGet(() -> createTable(table));
      requireOurColumns(table, snapshot);
      state =
          snapshot
              .buildUpdateTableTransaction(ENGINE_INFO, Operation.WRITE)
              .build(engine)
              .getTransactionState(engine);
      writeStates.put(table, state);
    }
    return state;
  }

  private Snapshot createTable(TableId table) {
    try {
      TransactionCommitResult result =
          TableManager.buildCreateTableTransaction(
                  tablePath(table), KernelSchemas.structOf(table.kind()), ENGINE_INFO)
              .withTableProperties(KernelSchemas.tableProperties(table.kind()))
              .build(engine)
              .commit(engine, CloseableIterable.emptyIterable());
      PostCommitHooks.run(engine, table, NO_VERSION, result);
      LOG.info("{} created at {}", table, tablePath(table));
    } catch (TableAlreadyExistsException | ConcurrentWriteException e) {
      // Created by someone else in the meantime: use theirs, if its columns are ours.
      LOG.info("{} was created concurrently; using it", table);
    }
    return loadSnapshot(table)
        .orElseThrow(() -> new IllegalStateException(table + " missing right after its creation"));
  }

  private Optional<Snapshot> loadSnapshot(TableId table) {
    try {
      return Optional.of(TableManager.loadSnapshot(tablePath(table)).build(engine));
    } catch (TableNotFoundException e) {
      return Optional.empty();
    }
  }

  private long txnVersion(Snapshot snapshot) {
    return snapshot.getLatestTransactionVersion(engine, APP_ID).orElse(NO_VERSION);
  }

  private void requireOurColumns(TableId table, Snapshot snapshot) {
    StructType ours = KernelSchemas.structOf(table.kind());
    if (!KernelSchemas.sameColumns(ours, snapshot.getSchema())) {
      throw new TableUnusableException(
          table,
          "has columns "
              + snapshot.getSchema()
              + " but this writer writes "
              + ours
              + "; migrate the table or point the writer at another lake root",
          null);
    }
  }

  private DataFile toDataFile(TableId table, StructType schema, DataFileStatus status) {
    URI root = new Path(tablePath(table)).toUri();
    URI file = new Path(status.getPath()).toUri();
    String relative = root.relativize(file).getPath();
    if (relative.equals(file.getPath())) {
      throw new IllegalStateException(status.getPath() + " is not below " + root);
    }
    String stats = status.getStatistics().map(s -> s.serializeAsJson(schema)).orElse(null);
    return new DataFile(relative, status.getSize(), status.getModificationTime(), stats);
  }

  private List<DataFileStatus> statusesOf(TableId table, List<DataFile> files) throws IOException {
    StructType schema = KernelSchemas.structOf(table.kind());
    List<DataFileStatus> statuses = new ArrayList<>(files.size());
    for (DataFile file : files) {
      String path = new Path(new Path(tablePath(table)), file.relativePath()).toString();
      requireExists(table, path);
      Optional<DataFileStatistics> stats =
          file.statsJson() == null
              ? Optional.empty()
              : DataFileStatistics.deserializeFromJson(file.statsJson(), schema);
      statuses.add(new DataFileStatus(path, file.sizeBytes(), file.modificationTime(), stats));
    }
    return statuses;
  }

  private void requireExists(TableId table, String path) throws IOException {
    try {
      engine.getFileSystemClient().getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw new TableUnusableException(
          table,
          "data file "
              + path
              + " of an uncommitted batch is gone (vacuumed or deleted); the batch must be"
              + " re-read from the outbox",
          e);
    }
  }

  private <T> T call(TableId table, KernelCall<T> body) throws IOException {
    try {
      return body.run();
    } catch (RuntimeException e) {
      throw KernelFailures.translate(table, e);
    }
  }

  @FunctionalInterface
  private interface KernelCall<T> {
    T run() throws IOException;
  }
}
