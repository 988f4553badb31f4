package org.oml.lakewriter.delta.kernel;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.ColumnType;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableRow;

/**
 * Reads one of our data files column by column with parquet-java's column readers: the file is
 * opened once, its footer read once, and each value goes straight into its {@link TableRow}.
 *
 * <p>Why: a copy-on-write reads every row of the files it rewrites, and so do compaction and the
 * gold MERGE. Kernel's default reader (4.4.0) reads the footer, then opens the file a second time
 * through parquet-java's record reader, which reads the footer again and assembles every value
 * through a converter into Kernel's column vectors, from which {@link ParquetRows} builds the rows;
 * and the client asked for the file's status first, to name a missing one. This reader needs none
 * of that for the files the writer writes: a flat schema of the five column types of {@code
 * LakeSchemas}.
 *
 * <p>Invariant: it returns exactly the rows Kernel's reader returns, or nothing ({@link
 * Optional#empty()}), never an approximation. A file whose schema is not one it can read exactly
 * (a column of ours missing or of another physical type, a nested or repeated column, a timestamp
 * not in UTC microseconds) is left to Kernel's reader, which then reads it as before ({@code
 * ColumnParquetReaderITCase} checks both). Columns of the file that are not ours are not read, as
 * Kernel's reader does not read them. A missing file is a {@link java.io.FileNotFoundException}.
 *
 * <p>Thread-safe: it keeps nothing per file, and each read has its own codec factory.
 */
final class ColumnParquetReader {
  /** Every converter is ignored: values are taken from the column readers, never pushed. */
  private static final PrimitiveConverter IGNORED = new PrimitiveConverter() {};

  private static final GroupConverter NO_RECORDS =
      new GroupConverter() {
        @Override
        public Converter getConverter(int fieldIndex) {
          return IGNORED;
        }

        @Override
        public void start() {}

        @Override
        public void end() {}
      };

  private final Configuration conf;

  ColumnParquetReader(Configuration conf) {
    this.conf = conf;
  }

  /**
   * Every row of the file, in file order; empty if the file's layout is not one this reader reads
   * exactly.
   *
   * @param path the file's absolute URI
   * @param size its length in bytes, from the log (no status request)
   */
  Optional<List<TableRow>> read(TableSchema schema, String path, long size) throws IOException {
    return read(schema, path, size, null);
  }

  /**
   * As {@link #read(TableSchema, String, long)}, but the string and binary columns not in {@code
   * wanted} (null: every column) are not read: their chunks are neither fetched nor decoded, and
   * each of their values is {@link TableRow#notRead} (for a copy-on-write that copies the chunks).
   */
  Optional<List<TableRow>> read(TableSchema schema, String path, long size, Set<String> wanted)
      throws IOException {
    Path hadoopPath = new Path(URI.create(path));
    org.apache.hadoop.fs.FileStatus status =
        new org.apache.hadoop.fs.FileStatus(size, false, 1, 0, 0, hadoopPath);
    // Options per read: they hold the codec factory, whose decompressors the reader releases when
    // it closes, so two reads at once must not share them.
    ParquetReadOptions options = HadoopReadOptions.builder(conf).build();
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromStatus(status, conf), options)) {
      FileMetaData meta = reader.getFooter().getFileMetaData();
      MessageType fileSchema = meta.getSchema();
      ColumnDescriptor[] columns = columnsOf(schema, fileSchema);
      if (columns == null) {
        return Optional.empty();
      }
      boolean[] read = new boolean[columns.length];
      for (int col = 0; col < columns.length; col++) {
        Column column = schema.columns().get(col);
        read[col] =
            wanted == null
                || wanted.contains(column.name())
                || (column.type() != ColumnType.STRING && column.type() != ColumnType.BINARY);
      }
      MessageType requested = requested(fileSchema, columns, read);
      reader.setRequestedSchema(requested);
      List<TableRow> rows = new ArrayList<>(Math.toIntExact(reader.getRecordCount()));
      int seqColumn = schema.indexOf("seq");
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        int count = Math.toIntExact(pages.getRowCount());
        ColumnReadStoreImpl store =
            new ColumnReadStoreImpl(pages, NO_RECORDS, requested, meta.getCreatedBy());
        Object[][] values = new Object[columns.length][];
        for (int col = 0; col < columns.length; col++) {
          Column column = schema.columns().get(col);
          values[col] =
              read[col]
                  ? readColumn(store.getColumnReader(columns[col]), columns[col], column, count)
                  : notRead(column, count);
        }
        for (int row = 0; row < count; row++) {
          Object seq = values[seqColumn][row];
          if (seq == null) {
            throw new IllegalStateException("a row without seq in a lake file");
          }
          Object[] rowValues = new Object[columns.length];
          for (int col = 0; col < columns.length; col++) {
            rowValues[col] = values[col][row];
          }
          rows.add(TableRow.decoded(schema, (Long) seq, rowValues));
        }
      }
      return Optional.of(rows);
    }
  }

  private static Object[] readColumn(
      ColumnReader reader, ColumnDescriptor descriptor, Column column, int count) {
    int present = descriptor.getMaxDefinitionLevel();
    Object[] values = new Object[count];
    for (int row = 0; row < count; row++) {
      if (reader.getCurrentDefinitionLevel() == present) {
        values[row] =
            switch (column.type()) {
              // As ParquetRows decodes them: String's own decoder, the same replacement.
              case STRING -> new String(bytes(reader.getBinary()), StandardCharsets.UTF_8);
              case BINARY -> bytes(reader.getBinary());
              case LONG, TIMESTAMP -> reader.getLong();
              case INT -> reader.getInteger();
            };
      }
      reader.consume();
    }
    return values;
  }

  private static Object[] notRead(Column column, int count) {
    Object[] values = new Object[count];
    Arrays.fill(values, TableRow.notRead(column.type()));
    return values;
  }

  /** A fresh array: a value may be a slice of a page or of a dictionary. */
  private static byte[] bytes(Binary binary) {
    byte[] bytes = new byte[binary.length()];
    binary.toByteBuffer().get(bytes);
    return bytes;
  }

  /**
   * Our columns' descriptors in the file, in our order; {@code null} if any of them is not there
   * as a top-level column of the physical type (and time unit) this reader decodes exactly.
   */
  private static ColumnDescriptor[] columnsOf(TableSchema schema, MessageType file) {
    List<Column> ours = schema.columns();
    ColumnDescriptor[] columns = new ColumnDescriptor[ours.size()];
    for (int i = 0; i < ours.size(); i++) {
      Column column = ours.get(i);
      if (!file.containsField(column.name())) {
        return null;
      }
      Type field = file.getType(column.name());
      if (!field.isPrimitive()
          || field.isRepetition(Type.Repetition.REPEATED)
          || !readsExactly(column, field.asPrimitiveType())) {
        return null;
      }
      columns[i] = file.getColumnDescription(new String[] {column.name()});
    }
    return columns;
  }

  private static boolean readsExactly(Column column, PrimitiveType field) {
    PrimitiveTypeName physical = field.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = field.getLogicalTypeAnnotation();
    return switch (column.type()) {
      // Strings are read as their bytes, as ParquetRows reads them (rawStructOf).
      case STRING, BINARY -> physical == PrimitiveTypeName.BINARY;
      case LONG -> physical == PrimitiveTypeName.INT64 && plainOrSigned(logical, 64);
      case INT -> physical == PrimitiveTypeName.INT32 && plainOrSigned(logical, 32);
      case TIMESTAMP ->
          physical == PrimitiveTypeName.INT64
              && logical instanceof TimestampLogicalTypeAnnotation timestamp
              && timestamp.getUnit() == TimeUnit.MICROS
              && timestamp.isAdjustedToUTC();
    };
  }

  /** No annotation, or a signed integer of the column's own width. */
  private static boolean plainOrSigned(LogicalTypeAnnotation logical, int bits) {
    return logical == null
        || (logical instanceof IntLogicalTypeAnnotation integer
            && integer.getBitWidth() == bits
            && integer.isSigned());
  }

  /** The file's schema cut down to the columns read, so a row group reads only their chunks. */
  private static MessageType requested(
      MessageType file, ColumnDescriptor[] columns, boolean[] read) {
    Types.MessageTypeBuilder builder = Types.buildMessage();
    for (int col = 0; col < columns.length; col++) {
      if (read[col]) {
        builder.addField(file.getType(columns[col].getPath()[0]));
      }
    }
    return builder.named(file.getName());
  }
}
