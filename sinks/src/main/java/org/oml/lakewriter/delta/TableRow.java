package org.oml.lakewriter.delta;

import java.util.Arrays;
import java.util.Objects;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.ColumnType;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;

/**
 * One row of a lake table, its values in the order of its {@link TableSchema}. The {@code seq} is
 * kept beside the values because every decision about a row (skip it below a table's txn version,
 * order it) is made on the seq, never on the columns.
 *
 * <p>Values are {@code String}, {@code Long}, {@code Integer} or {@code byte[]} (timestamps are
 * {@code Long} microseconds); the {@link Builder} checks each against its column type.
 */
public final class TableRow {
  private final long seq;
  private final Object[] values;

  private TableRow(long seq, Object[] values) {
    this.seq = seq;
    this.values = values;
  }

  /**
   * Stand-ins for the values of a string or binary column that a copy-on-write did not read from
   * its file (a silver row's body, digests, principals): compared by reference only. {@link
   * #value} refuses them and the Parquet writer refuses to write them, so they can only reach a
   * new file through a rewrite that copies the column's chunks from the file they stand for.
   */
  private static final String NOT_READ_STRING = new String("(not read)");

  private static final byte[] NOT_READ_BYTES = new byte[0];

  /** The stand-in for an unread value of a column of this type (string or binary). */
  public static Object notRead(ColumnType type) {
    return switch (type) {
      case STRING -> NOT_READ_STRING;
      case BINARY -> NOT_READ_BYTES;
      default -> throw new IllegalArgumentException(type + " columns are always read");
    };
  }

  /** Whether a value is the stand-in for one that was not read ({@link #notRead}). */
  public static boolean isNotRead(Object value) {
    return value == NOT_READ_STRING || value == NOT_READ_BYTES;
  }

  /** Whether any value of this row was not read from its file. */
  public boolean holdsNotRead() {
    for (Object value : values) {
      if (isNotRead(value)) {
        return true;
      }
    }
    return false;
  }

  public static Builder builder(TableSchema schema, long seq) {
    return new Builder(schema, seq);
  }

  /**
   * A row of values that a reader decoded for the schema's column types, in its order, {@code
   * seq} included: the array becomes the row's own (its {@code byte[]} values are not copied), and
   * only the non-nullable columns are checked, not the types, which the decoder gives by
   * construction. For the copy-on-write's reads, where checking each value's type was 5% of the
   * writer's time at a million events (docs/scale.md, stop 52).
   */
  public static TableRow decoded(TableSchema schema, long seq, Object[] values) {
    if (values.length != schema.columns().size()) {
      throw new IllegalArgumentException(
          "row of " + values.length + " columns for a schema of " + schema.columns().size());
    }
    requireSet(schema, values);
    return new TableRow(seq, values);
  }

  private static void requireSet(TableSchema schema, Object[] values) {
    for (int i = 0; i < values.length; i++) {
      Column column = schema.columns().get(i);
      if (!column.nullable() && values[i] == null) {
        throw new IllegalStateException("column " + column.name() + " must be set");
      }
    }
  }

  public long seq() {
    return seq;
  }

  /**
   * A builder that starts from this row's values, laid out by {@code schema}, under a new seq: how
   * a MERGE changes a few columns of a row and copies the rest unchanged.
   */
  public Builder toBuilder(TableSchema schema, long newSeq) {
    if (schema.columns().size() != values.length) {
      throw new IllegalArgumentException(
          "row of " + values.length + " columns for a schema of " + schema.columns().size());
    }
    Builder builder = new Builder(schema, newSeq);
    int seqColumn = schema.indexOf("seq");
    for (int i = 0; i < values.length; i++) {
      if (i != seqColumn) {
        // Byte arrays are never changed in place (value() and set() copy; the Parquet writer only
        // reads valueForWrite()), so sharing them is safe.
        builder.values[i] = values[i];
      }
    }
    return builder;
  }

  public int size() {
    return values.length;
  }

  /** The value at a column position; {@code null} for an absent value. */
  public Object value(int column) {
    Object v = values[column];
    if (isNotRead(v)) {
      throw new IllegalStateException(
          "column " + column + " was not read from its file; read it to use its value");
    }
    return v instanceof byte[] ? ((byte[]) v).clone() : v;
  }

  /**
   * The value at a column position without copying a {@code byte[]}: for the Parquet writer,
   * which only reads it (a silver body is 1 KiB or more, and every row written would copy it).
   * The caller must not change the array.
   */
  public Object valueForWrite(int column) {
    return values[column];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableRow
        && ((TableRow) o).seq == seq
        && Arrays.deepEquals(((TableRow) o).values, values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(seq, Arrays.deepHashCode(values));
  }

  @Override
  public String toString() {
    // Never prints values: a row may carry a body.
    return "TableRow{seq=" + seq + ", columns=" + values.length + "}";
  }

  /** Sets columns by name; unset columns stay null, {@code seq} is always set. */
  public static final class Builder {
    private final TableSchema schema;
    private final long seq;
    private final Object[] values;

    private Builder(TableSchema schema, long seq) {
      this.schema = schema;
      this.seq = seq;
      this.values = new Object[schema.columns().size()];
      values[schema.indexOf("seq")] = seq;
    }

    public Builder set(String column, Object value) {
      int index = schema.indexOf(column);
      checkType(schema.columns().get(index), value);
      values[index] = value instanceof byte[] ? ((byte[]) value).clone() : value;
      return this;
    }

    /**
     * Sets the column at a position to a value the caller hands over: a {@code byte[]} is kept,
     * not copied, so the caller must not hold on to it or change it. For a reader that decodes
     * fresh values from a file and drops its references to them (a silver body is 1 KiB or more).
     */
    public Builder adopt(int column, Object value) {
      checkType(schema.columns().get(column), value);
      values[column] = value;
      return this;
    }

    public TableRow build() {
      requireSet(schema, values);
      return new TableRow(seq, values.clone());
    }

    private static void checkType(Column column, Object value) {
      if (value == null) {
        return;
      }
      boolean ok =
          switch (column.type()) {
            case STRING -> value instanceof String;
            case LONG, TIMESTAMP -> value instanceof Long;
            case INT -> value instanceof Integer;
            case BINARY -> value instanceof byte[];
          };
      if (!ok) {
        throw new IllegalArgumentException(
            "column " + column.name() + " is " + column.type() + ", got " + value.getClass());
      }
    }
  }
}
