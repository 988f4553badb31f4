package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructType;
import java.util.List;
import org.oml.lakewriter.delta.TableRow;

/**
 * Our rows as a Kernel {@link ColumnarBatch}, column-major views over the rows without copying
 * them. Built only from the public {@code ColumnVector} interface, so no Kernel-internal vector
 * class is needed to write Parquet.
 */
final class RowBatch implements ColumnarBatch {
  private final StructType schema;
  private final List<TableRow> rows;

  RowBatch(StructType schema, List<TableRow> rows) {
    this.schema = schema;
    this.rows = List.copyOf(rows);
    for (TableRow row : this.rows) {
      if (row.size() != schema.length()) {
        throw new IllegalArgumentException(
            "row of " + row.size() + " columns for a schema of " + schema.length());
      }
    }
  }

  @Override
  public StructType getSchema() {
    return schema;
  }

  @Override
  public ColumnVector getColumnVector(int ordinal) {
    return new RowColumn(schema.at(ordinal).getDataType(), rows, ordinal);
  }

  @Override
  public int getSize() {
    return rows.size();
  }

  /** One column of the rows. Getters are only called for the column's own type. */
  private static final class RowColumn implements ColumnVector {
    private final DataType type;
    private final List<TableRow> rows;
    private final int ordinal;

    RowColumn(DataType type, List<TableRow> rows, int ordinal) {
      this.type = type;
      this.rows = rows;
      this.ordinal = ordinal;
    }

    private Object at(int rowId) {
      return rows.get(rowId).value(ordinal);
    }

    @Override
    public DataType getDataType() {
      return type;
    }

    @Override
    public int getSize() {
      return rows.size();
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int rowId) {
      return at(rowId) == null;
    }

    @Override
    public int getInt(int rowId) {
      return (Integer) at(rowId);
    }

    @Override
    public long getLong(int rowId) {
      return (Long) at(rowId);
    }

    @Override
    public String getString(int rowId) {
      return (String) at(rowId);
    }

    @Override
    public byte[] getBinary(int rowId) {
      return (byte[]) at(rowId);
    }
  }
}
