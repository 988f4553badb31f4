package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import java.util.ArrayList;
import java.util.List;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableRow;

/**
 * A batch read from one of our data files, back into {@link TableRow}s: the inverse of {@link
 * RowBatch}. The batch's columns are our schema's, in its order (the file was read with it), and
 * physical names are logical names because our tables never enable column mapping.
 */
final class ParquetRows {
  private ParquetRows() {}

  static List<TableRow> toRows(TableSchema schema, ColumnarBatch batch) {
    int seqColumn = schema.indexOf("seq");
    List<TableRow> rows = new ArrayList<>(batch.getSize());
    for (int row = 0; row < batch.getSize(); row++) {
      ColumnVector seq = batch.getColumnVector(seqColumn);
      if (seq.isNullAt(row)) {
        throw new IllegalStateException("a row without seq in a lake file");
      }
      TableRow.Builder builder = TableRow.builder(schema, seq.getLong(row));
      for (int col = 0; col < schema.columns().size(); col++) {
        if (col != seqColumn) {
          Column column = schema.columns().get(col);
          builder.set(column.name(), valueAt(column, batch.getColumnVector(col), row));
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
      case STRING -> vector.getString(row);
      case LONG, TIMESTAMP -> vector.getLong(row);
      case INT -> vector.getInt(row);
      case BINARY -> vector.getBinary(row);
    };
  }
}
