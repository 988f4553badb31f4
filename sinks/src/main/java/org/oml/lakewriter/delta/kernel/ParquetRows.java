package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * One of our data files, read with the engine's Parquet handler, back into {@link TableRow}s: the
 * inverse of {@link RowBatch}. The file is read with our schema (string columns as their UTF-8
 * bytes), so the batch's columns are its columns in its order; physical names are logical names
 * because a table we rewrite never has column mapping (checked before any rewrite).
 */
final class ParquetRows {
  private ParquetRows() {}

  /**
   * Every row of the file, in file order: through {@link ColumnParquetReader} when it reads the
   * file's layout exactly (every file our writers write), else through the engine's handler. The
   * column reader leaves the string and binary columns not in {@code wanted} (null: all) unread
   * ({@link TableRow#notRead}); the engine's handler reads every column.
   */
  static List<TableRow> read(
      Engine engine,
      ColumnParquetReader columns,
      TableKind kind,
      FileStatus file,
      Set<String> wanted)
      throws IOException {
    TableSchema schema = LakeSchemas.of(kind);
    Optional<List<TableRow>> read = columns.read(schema, file.getPath(), file.getSize(), wanted);
    return read.isPresent() ? read.get() : read(engine, kind, file);
  }

  /** Every row of the file, in file order, through the engine's Parquet handler. */
  static List<TableRow> read(Engine engine, TableKind kind, FileStatus file) throws IOException {
    TableSchema schema = LakeSchemas.of(kind);
    List<TableRow> rows = new ArrayList<>();
    try (CloseableIterator<FileReadResult> results =
        engine
            .getParquetHandler()
            .readParquetFiles(
                KernelEngines.iterator(List.of(file)),
                KernelSchemas.rawStructOf(kind),
                Optional.empty())) {
      while (results.hasNext()) {
        rows.addAll(toRows(schema, results.next().getData()));
      }
    }
    return rows;
  }

  private static List<TableRow> toRows(TableSchema schema, ColumnarBatch batch) {
    int seqColumn = schema.indexOf("seq");
    ColumnVector seq = batch.getColumnVector(seqColumn);
    List<TableRow> rows = new ArrayList<>(batch.getSize());
    for (int row = 0; row < batch.getSize(); row++) {
      if (seq.isNullAt(row)) {
        throw new IllegalStateException("a row without seq in a lake file");
      }
      TableRow.Builder builder = TableRow.builder(schema, seq.getLong(row));
      for (int col = 0; col < schema.columns().size(); col++) {
        if (col != seqColumn) {
          builder.adopt(col, valueAt(schema.columns().get(col), batch.getColumnVector(col), row));
        }
      }
      rows.add(builder.build());
    }
    return rows;
  }

  private static Object valueAt(Column column, ColumnVector vector, int row) {
    if (vector.isNullAt(row)) {
      return null;
    }
    return switch (column.type()) {
      // Read as binary (rawStructOf), decoded by String's own fast path: a string vector's
      // getString goes through a CharsetDecoder and two buffers per value. Both replace
      // malformed input the same way.
      case STRING -> new String(vector.getBinary(row), StandardCharsets.UTF_8);
      case LONG, TIMESTAMP -> vector.getLong(row);
      case INT -> vector.getInt(row);
      // The vector's own array, handed over: the batch is dropped once its rows are built.
      case BINARY -> vector.getBinary(row);
    };
  }
}
