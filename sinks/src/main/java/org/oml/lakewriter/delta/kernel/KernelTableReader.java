package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.Scan;
import io.delta.kernel.ScanBuilder;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.expressions.PredicateEvaluator;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.delta.read.TableStats;

/**
 * Reads lake tables through Kernel's scan API only: scan files, Parquet reads, the scan's selection
 * vectors and the part of a filter that file statistics could not settle. It shares no code with
 * the write path except the engine setup, so a test that reads with it checks what a third-party
 * Delta reader would see, not what the writer believes it wrote.
 */
public final class KernelTableReader {
  private final Configuration conf;
  private final Engine engine;
  private final String lakeRoot;

  public KernelTableReader(LakeConfig lake) throws IOException {
    this.conf = KernelEngines.hadoopConf(lake);
    this.engine = KernelEngines.engine(conf);
    this.lakeRoot = KernelEngines.qualifiedRoot(lake, conf);
  }

  /** Every table under the lake root that has a Delta log, in commit order. */
  public List<TableId> listTables() throws IOException {
    Path root = new Path(lakeRoot);
    FileSystem fs = root.getFileSystem(conf);
    List<TableId> tables = new ArrayList<>();
    if (!fs.exists(root)) {
      return tables;
    }
    for (org.apache.hadoop.fs.FileStatus prefix : fs.listStatus(root)) {
      for (TableKind kind : TableKind.values()) {
        String relative = prefix.getPath().getName() + "/" + kind.path();
        if (prefix.isDirectory() && fs.exists(new Path(new Path(root, relative), "_delta_log"))) {
          parse(relative).ifPresent(tables::add);
        }
      }
    }
    tables.sort(Comparator.naturalOrder());
    return tables;
  }

  /** The table's contents with {@code seq > seqAbove}, or empty if the table does not exist. */
  public Optional<TableContents> read(TableId table, long seqAbove) throws IOException {
    Snapshot snapshot;
    try {
      snapshot = TableManager.loadSnapshot(lakeRoot + "/" + table.relativePath()).build(engine);
    } catch (TableNotFoundException e) {
      return Optional.empty();
    }
    return Optional.of(contents(snapshot, seqAbove));
  }

  /**
   * Time travel: the table's contents as of Delta version {@code version}, or empty if the table
   * does not exist. Fails (Kernel's exception, unwrapped) when the version is gone from the log or
   * one of its data files is gone from the disk: a version VACUUM was allowed to drop.
   */
  public Optional<TableContents> readAt(TableId table, long version) throws IOException {
    Snapshot snapshot;
    try {
      snapshot =
          TableManager.loadSnapshot(lakeRoot + "/" + table.relativePath())
              .atVersion(version)
              .build(engine);
    } catch (TableNotFoundException e) {
      return Optional.empty();
    }
    return Optional.of(contents(snapshot, Long.MIN_VALUE));
  }

  /**
   * The absolute paths of the data files live in Delta version {@code version}; reads the log
   * only.
   */
  public List<String> livePathsAt(TableId table, long version) throws IOException {
    Snapshot snapshot =
        TableManager.loadSnapshot(lakeRoot + "/" + table.relativePath())
            .atVersion(version)
            .build(engine);
    List<String> paths = new ArrayList<>();
    forEachLiveFile(snapshot, engine, file -> paths.add(file.getPath()));
    return paths;
  }

  /**
   * Calls {@code action} with each live data file of {@code snapshot} (path, size, modification
   * time from its add action): one pass over the log, no data file read.
   */
  public static void forEachLiveFile(Snapshot snapshot, Engine engine, Consumer<FileStatus> action)
      throws IOException {
    try (CloseableIterator<FilteredColumnarBatch> scanFiles =
        snapshot.getScanBuilder().build().getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            action.accept(InternalScanFileUtils.getAddFileStatus(fileRows.next()));
          }
        }
      }
    }
  }

  /** The {@code oml-lakewriter} txn version as of Delta version {@code version}, or -1. */
  public long txnVersionAt(TableId table, long version) throws IOException {
    Snapshot snapshot =
        TableManager.loadSnapshot(lakeRoot + "/" + table.relativePath())
            .atVersion(version)
            .build(engine);
    return snapshot.getLatestTransactionVersion(engine, DeltaTableClient.APP_ID).orElse(-1L);
  }

  /** The table's root as a qualified URI ({@code file:/lake/acme/silver/memories}). */
  public String tableRoot(TableId table) {
    return lakeRoot + "/" + table.relativePath();
  }

  /** The Hadoop configuration the reader's engine uses. */
  public Configuration hadoopConf() {
    return conf;
  }

  private TableContents contents(Snapshot snapshot, long seqAbove) throws IOException {
    long txn = snapshot.getLatestTransactionVersion(engine, DeltaTableClient.APP_ID).orElse(-1L);
    ScanBuilder builder = snapshot.getScanBuilder();
    if (seqAbove != Long.MIN_VALUE) {
      builder = builder.withFilter(new Predicate(">", new Column("seq"), Literal.ofLong(seqAbove)));
    }
    Scan scan = builder.build();
    List<Map<String, Object>> rows = new ArrayList<>();
    int files = scanRows(scan, rows);
    rows.sort(Comparator.comparing(r -> (Long) r.get("seq")));
    return new TableContents(snapshot.getVersion(), txn, files, rows);
  }

  /**
   * The paths, relative to the table root, of the live data files of the table's latest snapshot,
   * sorted; empty if the table does not exist. Reads the log only.
   */
  public List<String> filePaths(TableId table) throws IOException {
    String root = lakeRoot + "/" + table.relativePath();
    Snapshot snapshot;
    try {
      snapshot = TableManager.loadSnapshot(root).build(engine);
    } catch (TableNotFoundException e) {
      return List.of();
    }
    java.net.URI rootUri = new Path(root).toUri();
    List<String> paths = new ArrayList<>();
    forEachLiveFile(
        snapshot,
        engine,
        file -> paths.add(rootUri.relativize(new Path(file.getPath()).toUri()).getPath()));
    paths.sort(Comparator.naturalOrder());
    return paths;
  }

  /**
   * The table's {@link TableStats}, or empty if it does not exist. Reads the log only: the live
   * files' sizes come from their add actions, the checkpoint from the log segment a reader loads
   * (Kernel internal, kept in this class with the other internals of the read path).
   */
  private static long checkpointInterval(Snapshot snapshot) {
    String interval = snapshot.getTableProperties().get(KernelSchemas.CHECKPOINT_INTERVAL);
    try {
      return interval == null ? TableStats.DELTA_DEFAULT_CHECKPOINT_INTERVAL : Long.parseLong(interval);
    } catch (NumberFormatException e) {
      return TableStats.DELTA_DEFAULT_CHECKPOINT_INTERVAL;
    }
  }

  public Optional<TableStats> stats(TableId table) throws IOException {
    Snapshot snapshot;
    try {
      snapshot = TableManager.loadSnapshot(lakeRoot + "/" + table.relativePath()).build(engine);
    } catch (TableNotFoundException e) {
      return Optional.empty();
    }
    long txn = snapshot.getLatestTransactionVersion(engine, DeltaTableClient.APP_ID).orElse(-1L);
    Optional<Long> checkpoint =
        ((io.delta.kernel.internal.SnapshotImpl) snapshot)
            .getLogSegment()
            .getCheckpointVersionOpt();
    LongSummaryStatistics sizes = new LongSummaryStatistics();
    forEachLiveFile(snapshot, engine, file -> sizes.accept(file.getSize()));
    Instant committed = Instant.ofEpochMilli(snapshot.getTimestamp(engine));
    return Optional.of(
        new TableStats(
            snapshot.getVersion(),
            txn,
            committed,
            checkpoint,
            checkpointInterval(snapshot),
            sizes.getCount(),
            sizes.getSum()));
  }

  private int scanRows(Scan scan, List<Map<String, Object>> out) throws IOException {
    Row scanState = scan.getScanState(engine);
    StructType readSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);
    Optional<PredicateEvaluator> remaining =
        scan.getRemainingFilter()
            .map(p -> engine.getExpressionHandler().getPredicateEvaluator(readSchema, p));
    int files = 0;
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            readFile(scanState, fileRows.next(), readSchema, remaining, out);
            files++;
          }
        }
      }
    }
    return files;
  }

  private void readFile(
      Row scanState,
      Row scanFile,
      StructType readSchema,
      Optional<PredicateEvaluator> remaining,
      List<Map<String, Object>> out)
      throws IOException {
    FileStatus file = InternalScanFileUtils.getAddFileStatus(scanFile);
    CloseableIterator<ColumnarBatch> physical =
        engine
            .getParquetHandler()
            .readParquetFiles(KernelEngines.iterator(List.of(file)), readSchema, Optional.empty())
            .map(FileReadResult::getData);
    try (CloseableIterator<FilteredColumnarBatch> logical =
        Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
      while (logical.hasNext()) {
        FilteredColumnarBatch batch = logical.next();
        Optional<ColumnVector> selection = batch.getSelectionVector();
        if (remaining.isPresent()) {
          selection = Optional.of(remaining.get().eval(batch.getData(), selection));
        }
        collect(batch.getData(), selection, out);
      }
    }
  }

  private static void collect(
      ColumnarBatch data, Optional<ColumnVector> selection, List<Map<String, Object>> out) {
    StructType schema = data.getSchema();
    for (int row = 0; row < data.getSize(); row++) {
      if (selection.isPresent()
          && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
        continue;
      }
      Map<String, Object> values = new LinkedHashMap<>();
      for (int col = 0; col < schema.length(); col++) {
        ColumnVector vector = data.getColumnVector(col);
        values.put(schema.at(col).getName(), valueAt(vector, row));
      }
      out.add(values);
    }
  }

  private static Object valueAt(ColumnVector vector, int row) {
    if (vector.isNullAt(row)) {
      return null;
    }
    DataType type = vector.getDataType();
    if (type instanceof StringType) {
      return vector.getString(row);
    } else if (type instanceof LongType) {
      return vector.getLong(row);
    } else if (type instanceof IntegerType) {
      return vector.getInt(row);
    } else if (type instanceof BinaryType) {
      return vector.getBinary(row);
    } else if (type instanceof TimestampType) {
      long micros = vector.getLong(row);
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }
    throw new UncheckedIOException(new IOException("unexpected column type " + type));
  }

  private static Optional<TableId> parse(String relativePath) {
    try {
      return Optional.of(TableId.parse(relativePath));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
