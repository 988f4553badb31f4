package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.Scan;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Reads a few columns of the live rows of a scan (one built with {@code withReadSchema}, and maybe
 * a statistics filter): only those columns of each selected file are read from Parquet, and rows a
 * deletion vector removed are skipped through the scan's selection vector. Statistics prune files,
 * not rows: the visitor sees every live row of each candidate file and filters values itself.
 */
final class ProjectedScan {
  private ProjectedScan() {}

  /** Receives each live row: the batch holds the read schema's columns, in its order. */
  @FunctionalInterface
  interface RowVisitor {
    void visit(ColumnarBatch data, int row);
  }

  /** Receives each live row and the path of the data file that holds it (the scan's, absolute). */
  @FunctionalInterface
  interface FileRowVisitor {
    void visit(String filePath, ColumnarBatch data, int row);
  }

  /**
   * Like {@link #forEachRow}, for the files {@code accept} accepts (by the scan's absolute path;
   * the others are not read), and names the data file of each row: the same {@code String}
   * instance for every row of one file, so that a caller may keep it once per file.
   *
   * @return how many data files were read
   */
  static int forEachRowOfFile(
      Engine engine, Scan scan, Predicate<String> accept, FileRowVisitor visitor)
      throws IOException {
    Row scanState = scan.getScanState(engine);
    StructType readSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);
    int files = 0;
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            String path = InternalScanFileUtils.getAddFileStatus(scanFile).getPath();
            if (!accept.test(path)) {
              continue;
            }
            RowVisitor rows = (data, row) -> visitor.visit(path, data, row);
            readFile(engine, scanState, scanFile, readSchema, rows);
            files++;
          }
        }
      }
    }
    return files;
  }

  /** @return how many data files were read */
  static int forEachRow(Engine engine, Scan scan, RowVisitor visitor) throws IOException {
    Row scanState = scan.getScanState(engine);
    StructType readSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);
    int files = 0;
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> fileRows = scanFiles.next().getRows()) {
          while (fileRows.hasNext()) {
            readFile(engine, scanState, fileRows.next(), readSchema, visitor);
            files++;
          }
        }
      }
    }
    return files;
  }

  private static void readFile(
      Engine engine, Row scanState, Row scanFile, StructType readSchema, RowVisitor visitor)
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
        ColumnarBatch data = batch.getData();
        for (int row = 0; row < data.getSize(); row++) {
          if (selection.isPresent()
              && (selection.get().isNullAt(row) || !selection.get().getBoolean(row))) {
            continue;
          }
          visitor.visit(data, row);
        }
      }
    }
  }
}
