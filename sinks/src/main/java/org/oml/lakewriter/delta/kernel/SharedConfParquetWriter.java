package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.DefaultV2ValuesWriterFactory;
import org.apache.parquet.conf.HadoopParquetConfiguration;
import org.apache.parquet.crypto.EncryptionPropertiesFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter.Mode;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetOutputFormat;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.oml.lakewriter.delta.TableRow;

/**
 * Writes our rows as Parquet data files laid out as Delta Kernel 4.4.0's default writer lays them
 * out ({@code ParquetFileWriter.multiFileWriter}), but with <b>one</b> Hadoop configuration and
 * one codec factory for every file.
 *
 * <p>Why: Kernel's writer builds parquet-java's {@code ParquetWriter} without {@code withConf}, so
 * every file gets {@code new Configuration()}, whose first read (the encryption factory lookup)
 * parses Hadoop's XML defaults: ~20% of all CPU at 64 tenants (docs/scale.md). Kernel 4.4.0 offers
 * no way to pass a configuration in.
 *
 * <p>Invariants, each the same as Kernel's writer, so a file written here and one written by Kernel
 * from the same rows have the same Parquet schema, values and Delta statistics ({@code
 * ParquetWriterParityITCase}):
 *
 * <ul>
 *   <li>Schema: Kernel's mapping for the column types {@code LakeSchemas} uses: string = {@code
 *       BINARY (STRING)}, long = {@code INT64}, int = {@code INT32}, timestamp = {@code INT64
 *       (TIMESTAMP(MICROS, true))}, binary = {@code BINARY}; nullable = {@code OPTIONAL}; message
 *       name {@code DefaultKernelSchema}; no field ids (our schema carries no column-mapping
 *       metadata). Any other type is refused, never approximated.
 *   <li>Writer settings: parquet-java's defaults, overridden by the same {@code parquet.*} Hadoop
 *       keys Kernel reads ({@code parquet.compression}, {@code parquet.block.size}, ...; not
 *       {@code parquet.validation}, as the values go to the column writers by the schema's own
 *       types, see {@link FileRows}), and a new file whenever the data size reaches {@code
 *       delta.kernel.default.parquet.writer.targetMaxFileSize} (128 MiB). One difference: no
 *       dictionary for the columns whose values are unique per row ({@link
 *       #UNIQUE_VALUE_COLUMNS}), see there. Another: Parquet statistics (min, max, null count
 *       per column chunk) only for the Delta statistics columns, the one use anything makes of
 *       them; Kernel's writer keeps them for every column, so its footers carry a copy of the
 *       smallest and largest body (while the two fit in 4 KiB), digest and envelope of every file.
 *   <li>Delta statistics: what Kernel's footer reader ({@code ParquetStatsReader}) computes for the
 *       write context's statistics columns, but from the footer parquet-java holds in memory once
 *       the file is closed ({@link FooterStatistics}), not from the footer serialised and parsed
 *       back. The path is resolved as Kernel resolves it, the size is the bytes written ({@link
 *       DataFileOutput}) and the modification time this writer's clock when the file was closed,
 *       so a data file costs no status request and no read (on object storage a HEAD and one or
 *       two GETs each).
 * </ul>
 *
 * <p>The caller only uses it for a batch Kernel's {@code transformLogicalData} leaves unchanged (no
 * partition columns); anything else goes through Kernel's own writer.
 *
 * <p>Not thread-safe (the codec factory's compressors are reused): one instance per table client.
 */
final class SharedConfParquetWriter {
  static final String TARGET_FILE_SIZE_CONF = "delta.kernel.default.parquet.writer.targetMaxFileSize";
  static final long DEFAULT_TARGET_FILE_SIZE = 128L * 1024 * 1024;

  /** Key of the footer entry naming this writer (Kernel writes its own under another key). */
  static final String WRITER_KEY = "org.oml.lakewriter.parquet-writer";

  static final String WRITER_VALUE = "oml-lakewriter (Kernel-Defaults-4.4.0 layout)";

  /**
   * Columns whose values are (nearly) unique per row: the seq, ids, digests, key ids, envelopes,
   * ciphertext bodies, paths and event times. parquet-java dictionary-encodes every column by
   * default: it hashes each value (a whole 1 KiB body, per row) into a dictionary until the
   * dictionary page outgrows its limit, then re-encodes the page as plain values. For these
   * columns the dictionary never pays, and in B5's profile the hashing and the fall-back were a
   * quarter of the writer thread's samples (docs/scale.md). They are written plain; the
   * low-cardinality columns (tenant, kind, state, workarea, principals) keep their dictionaries.
   * Gold's seqs and times of a row's submission, promotion and validation are unique per row too.
   */
  static final Set<String> UNIQUE_VALUE_COLUMNS =
      Set.of(
          "seq", "artifact_id", "path_at_write", "plaintext_digest", "ciphertext_digest",
          "data_key_id", "envelope", "body", "event_time", "message", "first_failure_time",
          "last_failure_time", "submitted_seq", "submitted_time", "promoted_seq",
          "promoted_time", "validated_seq", "validated_time", "invalidated_seq",
          "invalidated_time");

  private final Configuration conf;
  private final FileIO fileIO;
  private final CodecFactory codecs;
  private final long targetMaxFileSize;
  private final Set<String> plainColumns;
  private final boolean everyColumnStatistics;
  /** The writer settings read from the configuration, for every file. */
  private final CompressionCodecName codec;
  private final long rowGroupSize;
  private final int maxPaddingSize;
  private final Map<LayoutKey, Layout> layouts = new HashMap<>();

  SharedConfParquetWriter(Configuration conf, FileIO fileIO) {
    this(conf, fileIO, UNIQUE_VALUE_COLUMNS, false);
  }

  /**
   * @param plainColumns columns written without a dictionary (the benchmark compares sets)
   * @param everyColumnStatistics Parquet statistics for every column, as Kernel's writer keeps
   *     them, instead of only for the Delta statistics columns (the benchmark compares both)
   */
  SharedConfParquetWriter(
      Configuration conf,
      FileIO fileIO,
      Set<String> plainColumns,
      boolean everyColumnStatistics) {
    this.everyColumnStatistics = everyColumnStatistics;
    this.plainColumns = Set.copyOf(plainColumns);
    this.conf = conf;
    this.fileIO = fileIO;
    // The read that makes Configuration parse its XML defaults, once, here instead of per file.
    if (conf.get(EncryptionPropertiesFactory.CRYPTO_FACTORY_CLASS_PROPERTY_NAME) != null) {
      throw new IllegalArgumentException(
          EncryptionPropertiesFactory.CRYPTO_FACTORY_CLASS_PROPERTY_NAME
              + " is set: Parquet modular encryption of data files is not supported (bodies are"
              + " envelope-encrypted before they reach a file)");
    }
    this.targetMaxFileSize = conf.getLong(TARGET_FILE_SIZE_CONF, DEFAULT_TARGET_FILE_SIZE);
    if (targetMaxFileSize <= 0) {
      throw new IllegalArgumentException(
          "Invalid target Parquet file size: " + TARGET_FILE_SIZE_CONF + "=" + targetMaxFileSize);
    }
    // The keys Kernel's writer reads from the engine's configuration, with parquet-java's
    // ParquetWriter.Builder defaults.
    String compression = conf.get(ParquetOutputFormat.COMPRESSION);
    this.codec =
        compression == null
            ? ParquetWriter.DEFAULT_COMPRESSION_CODEC_NAME
            : CompressionCodecName.fromConf(compression);
    this.rowGroupSize =
        conf.getLong(ParquetOutputFormat.BLOCK_SIZE, ParquetWriter.DEFAULT_BLOCK_SIZE);
    this.maxPaddingSize =
        conf.getInt(ParquetOutputFormat.MAX_PADDING_BYTES, ParquetWriter.MAX_PADDING_SIZE_DEFAULT);
    this.codecs =
        new CodecFactory(
            new HadoopParquetConfiguration(conf),
            conf.getInt(ParquetOutputFormat.PAGE_SIZE, ParquetProperties.DEFAULT_PAGE_SIZE));
  }

  /**
   * Writes the rows under {@code directory} (a table root) into one or more new files and returns
   * their statuses with statistics of {@code statsColumns}; no file for no rows.
   */
  List<DataFileStatus> write(
      String directory, StructType schema, List<TableRow> rows, List<Column> statsColumns)
      throws IOException {
    List<DataFileStatus> written = new ArrayList<>();
    Layout layout = layoutOf(schema, statsColumns);
    int next = 0;
    for (int fileNumber = 0; next < rows.size(); fileNumber++) {
      String path =
          new Path(directory, String.format("%s-%03d.parquet", UUID.randomUUID(), fileNumber))
              .toString();
      Path hadoopPath = new Path(path);
      DataFileOutput file = new DataFileOutput(hadoopPath.getFileSystem(conf), hadoopPath);
      ParquetMetadata footer;
      try {
        FileRows out = new FileRows(file, layout);
        try (out.file) {
          next = out.write(rows, next);
          out.end();
        }
        footer = out.file.getFooter(); // complete once the file is ended
      } catch (IOException e) {
        throw new IOException("Failed to write the Parquet file: " + path, e);
      }
      written.add(
          new DataFileStatus(
              fileIO.resolvePath(path),
              file.length(),
              System.currentTimeMillis(),
              Optional.of(FooterStatistics.of(footer, schema, statsColumns))));
    }
    return written;
  }

  /**
   * The new version of one of our data files after a copy-on-write changed some of its rows: the
   * same rows in the same order ({@code after.get(i)} replaces {@code before.get(i)}, the rows the
   * old file holds), with statistics of {@code statsColumns}. A column chunk in which no row of its
   * row group changed is copied from the old file byte for byte (its pages, encodings, codec and
   * statistics; not its page index, which would cost a read per column on object storage); only
   * the chunks of the changed columns are encoded again, with the layout's settings. A retraction
   * changes {@code state} and {@code seq} of a silver row, so its 1 KiB body, digests and envelope
   * are not encoded again.
   *
   * <p>Empty, and nothing written, when the old file is not laid out as this writer lays out
   * {@code schema} (another schema, a file not written by this writer, or row counts that do not
   * match): the caller then writes the rows whole.
   *
   * @param oldPath the old file's absolute URI
   * @param oldSize its length in bytes, from the log (no status request)
   */
  Optional<DataFileStatus> rewrite(
      String directory,
      StructType schema,
      String oldPath,
      long oldSize,
      List<TableRow> before,
      List<TableRow> after,
      List<Column> statsColumns)
      throws IOException {
    if (before.size() != after.size() || after.isEmpty()) {
      return Optional.empty();
    }
    Layout layout = layoutOf(schema, statsColumns);
    Path old = new Path(URI.create(oldPath));
    HadoopInputFile input =
        HadoopInputFile.fromStatus(
            new org.apache.hadoop.fs.FileStatus(oldSize, false, 1, 0, 0, old), conf);
    try (ParquetFileReader reader =
        ParquetFileReader.open(input, HadoopReadOptions.builder(conf).build())) {
      ParquetMetadata oldFooter = reader.getFooter();
      if (!layout.schema().equals(oldFooter.getFileMetaData().getSchema())
          || !WRITER_VALUE.equals(oldFooter.getFileMetaData().getKeyValueMetaData().get(WRITER_KEY))
          || !laidOut(oldFooter.getBlocks(), layout.columns(), after.size())) {
        return Optional.empty();
      }
      List<BlockMetaData> blocks = oldFooter.getBlocks();
      boolean[][] copied = new boolean[blocks.size()][layout.columns().length];
      int first = 0;
      for (int block = 0; block < blocks.size(); block++) {
        int rows = Math.toIntExact(blocks.get(block).getRowCount());
        for (int col = 0; col < layout.columns().length; col++) {
          copied[block][col] = unchanged(before, after, first, rows, col);
          if (!copied[block][col] && holdsNotRead(after, first, rows, col)) {
            return Optional.empty(); // a changed column with values this rewrite does not have
          }
        }
        first += rows;
      }
      String path =
          new Path(directory, String.format("%s-%03d.parquet", UUID.randomUUID(), 0)).toString();
      Path hadoopPath = new Path(path);
      DataFileOutput file = new DataFileOutput(hadoopPath.getFileSystem(conf), hadoopPath);
      ParquetMetadata footer;
      try (SeekableInputStream from = input.newStream();
          ParquetFileWriter writer =
              new ParquetFileWriter(
                  file, layout.schema(), Mode.CREATE, rowGroupSize, maxPaddingSize, null,
                  layout.props())) {
        writer.start();
        first = 0;
        for (int block = 0; block < blocks.size(); block++) {
          int rows = Math.toIntExact(blocks.get(block).getRowCount());
          writer.startBlock(rows);
          for (int col = 0; col < layout.columns().length; col++) {
            if (copied[block][col]) {
              writer.appendColumnChunk(
                  layout.columns()[col],
                  from,
                  blocks.get(block).getColumns().get(col),
                  null,
                  null,
                  null);
            } else {
              encode(writer, layout, col, after, first, rows);
            }
          }
          writer.endBlock();
          first += rows;
        }
        writer.end(footerEntries(layout));
        footer = writer.getFooter();
      } catch (IOException e) {
        throw new IOException("Failed to rewrite the Parquet file " + oldPath + " as " + path, e);
      }
      return Optional.of(
          new DataFileStatus(
              fileIO.resolvePath(path),
              file.length(),
              System.currentTimeMillis(),
              Optional.of(FooterStatistics.of(footer, schema, statsColumns))));
    }
  }

  /** One row group after another, each with one chunk per column in schema order. */
  private static boolean laidOut(List<BlockMetaData> blocks, ColumnDescriptor[] columns, int rows) {
    long total = 0;
    for (BlockMetaData block : blocks) {
      if (block.getColumns().size() != columns.length) {
        return false;
      }
      for (int col = 0; col < columns.length; col++) {
        if (!block.getColumns().get(col).getPath().equals(ColumnPath.get(columns[col].getPath()))) {
          return false;
        }
      }
      total += block.getRowCount();
    }
    return total == rows;
  }

  private static boolean unchanged(
      List<TableRow> before, List<TableRow> after, int first, int rows, int col) {
    for (int row = first; row < first + rows; row++) {
      TableRow b = before.get(row);
      TableRow a = after.get(row);
      if (a != b) {
        Object x = b.valueForWrite(col);
        Object y = a.valueForWrite(col);
        if (x != y && !Objects.deepEquals(x, y)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean holdsNotRead(List<TableRow> rows, int first, int count, int col) {
    for (int row = first; row < first + count; row++) {
      if (TableRow.isNotRead(rows.get(row).valueForWrite(col))) {
        return true;
      }
    }
    return false;
  }

  /** Column {@code col} of {@code rows} rows from {@code first}, encoded as a whole write does. */
  private void encode(
      ParquetFileWriter writer, Layout layout, int col, List<TableRow> after, int first, int rows)
      throws IOException {
    ColumnDescriptor column = layout.columns()[col];
    MessageType one = new MessageType(layout.schema().getName(), column.getPrimitiveType());
    ParquetProperties props = layout.props();
    int defined = layout.defined()[col];
    try (ColumnChunkPageWriteStore pages =
            new ColumnChunkPageWriteStore(
                codecs.getCompressor(codec),
                one,
                props.getAllocator(),
                props.getColumnIndexTruncateLength(),
                props.getPageWriteChecksumEnabled());
        ColumnWriteStore store = props.newColumnWriteStore(one, pages)) {
      ColumnWriter values = store.getColumnWriter(one.getColumns().get(0));
      for (int row = first; row < first + rows; row++) {
        Object value = after.get(row).valueForWrite(col);
        writeValue(values, layout.kinds()[col], defined, column, value);
        store.endRecord();
      }
      store.flush();
      pages.flushToFileWriter(writer);
    }
  }

  /** The footer's key-value entries: the layout's, and those naming this writer. */
  private static Map<String, String> footerEntries(Layout layout) {
    Map<String, String> metadata = new HashMap<>(layout.props().getExtraMetaData());
    metadata.put(WRITER_KEY, WRITER_VALUE);
    metadata.put(ParquetWriter.OBJECT_MODEL_NAME_PROP, WRITER_VALUE);
    return metadata;
  }

  private record LayoutKey(StructType schema, Set<String> described) {}

  /**
   * A schema's Parquet layout and writer properties, worked out once: parquet-java's writer builds
   * them again for every file.
   */
  private record Layout(
      MessageType schema,
      ParquetProperties props,
      ColumnDescriptor[] columns,
      ValueKind[] kinds,
      int[] defined) {}

  private Layout layoutOf(StructType schema, List<Column> statsColumns) {
    Set<String> described = new HashSet<>();
    statsColumns.forEach(column -> described.add(column.getNames()[0]));
    return layouts.computeIfAbsent(
        new LayoutKey(schema, described),
        key -> {
          MessageType message = schemaOf(schema);
          ParquetProperties.Builder props = ParquetProperties.builder();
          String pageSize = conf.get(ParquetOutputFormat.PAGE_SIZE);
          if (pageSize != null) {
            props.withPageSize(Integer.parseInt(pageSize));
          }
          String dictionaryPageSize = conf.get(ParquetOutputFormat.DICTIONARY_PAGE_SIZE);
          if (dictionaryPageSize != null) {
            props.withDictionaryPageSize(Integer.parseInt(dictionaryPageSize));
          }
          String dictionary = conf.get(ParquetOutputFormat.ENABLE_DICTIONARY);
          if (dictionary != null) {
            props.withDictionaryEncoding(Boolean.parseBoolean(dictionary));
          }
          String writerVersion = conf.get(ParquetOutputFormat.WRITER_VERSION);
          WriterVersion version =
              writerVersion == null
                  ? ParquetProperties.DEFAULT_WRITER_VERSION
                  : WriterVersion.fromString(writerVersion);
          // A values-writer factory of this layout's own: parquet-java's default one is a static
          // singleton that every ParquetProperties built anywhere in the JVM (Kernel's checkpoint
          // writer, a parquet-java ParquetWriter) initializes with its own settings, and the last
          // one built wins. With it, the plain columns below were dictionary-encoded again as soon
          // as another writer had been built after this layout (docs/scale.md, stop 50).
          props
              .withWriterVersion(version)
              .withValuesWriterFactory(
                  version == WriterVersion.PARQUET_2_0
                      ? new DefaultV2ValuesWriterFactory()
                      : new DefaultV1ValuesWriterFactory());
          for (Type field : message.getFields()) {
            if (plainColumns.contains(field.getName())) {
              props.withDictionaryEncoding(field.getName(), false);
            }
            if (!everyColumnStatistics && !described.contains(field.getName())) {
              props.withStatisticsEnabled(field.getName(), false);
            }
          }
          ColumnDescriptor[] columns = message.getColumns().toArray(new ColumnDescriptor[0]);
          int[] defined = new int[columns.length];
          for (int i = 0; i < columns.length; i++) {
            defined[i] = columns[i].getMaxDefinitionLevel();
          }
          return new Layout(message, props.build(), columns, kindsOf(schema), defined);
        });
  }

  /**
   * One file's rows, written straight into parquet-java's column writers: for our flat schemas
   * (every column a top-level primitive, optional or required) a row is one value or null per
   * column, and the record consumer's per-field bookkeeping that parquet-java's {@code
   * ParquetWriter} goes through adds nothing to the bytes. Row groups are cut as parquet-java's
   * writer cuts them (buffered size against {@code parquet.block.size}), and the file when its
   * data size reaches the target file size; both are checked at row counts estimated from the
   * average row's size, as parquet-java does, instead of after every row.
   */
  private final class FileRows {
    final ParquetFileWriter file;
    private final Layout layout;
    private final ColumnWriter[] writers;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore columns;
    private int rowGroupOrdinal;
    private long records;
    private long nextCheck;
    private long nextRowGroupSize = rowGroupSize;
    private long lastRowGroupEnd;

    FileRows(OutputFile output, Layout layout) throws IOException {
      this.layout = layout;
      this.file =
          new ParquetFileWriter(
              output, layout.schema(), Mode.CREATE, rowGroupSize, maxPaddingSize, null,
              layout.props());
      file.start();
      this.writers = new ColumnWriter[layout.columns().length];
      startRowGroup();
    }

    private void startRowGroup() {
      ParquetProperties props = layout.props();
      pages =
          new ColumnChunkPageWriteStore(
              codecs.getCompressor(codec),
              layout.schema(),
              props.getAllocator(),
              props.getColumnIndexTruncateLength(),
              props.getPageWriteChecksumEnabled(),
              null,
              rowGroupOrdinal);
      columns = props.newColumnWriteStore(layout.schema(), pages, pages);
      for (int i = 0; i < writers.length; i++) {
        writers[i] = columns.getColumnWriter(layout.columns()[i]);
      }
      records = 0;
      nextCheck = 1;
    }

    /** Writes rows from {@code next} until the file is full; the index of the first not written. */
    int write(List<TableRow> rows, int next) throws IOException {
      ValueKind[] kinds = layout.kinds();
      int[] definedLevels = layout.defined();
      do {
        TableRow row = rows.get(next++);
        if (row.size() != kinds.length) {
          throw new IllegalArgumentException(
              "row of " + row.size() + " columns for a schema of " + kinds.length);
        }
        for (int i = 0; i < kinds.length; i++) {
          writeValue(
              writers[i], kinds[i], definedLevels[i], layout.columns()[i], row.valueForWrite(i));
        }
        columns.endRecord();
        records++;
      } while (next < rows.size() && (records < nextCheck || !full()));
      return next;
    }

    /**
     * At a check: true once the file's data size reaches the target; cuts a row group when its
     * buffered size is within two rows of the limit; otherwise schedules the next check halfway
     * to the nearer limit, at the average row's size.
     */
    private boolean full() throws IOException {
      long buffered = columns.getBufferedSize();
      if (lastRowGroupEnd + buffered >= targetMaxFileSize) {
        return true;
      }
      long rowSize = Math.max(1, buffered / records);
      if (buffered > nextRowGroupSize - 2 * rowSize) {
        flushRowGroup();
        lastRowGroupEnd = file.getPos();
        startRowGroup();
        return false;
      }
      long room =
          Math.min(nextRowGroupSize - buffered, targetMaxFileSize - lastRowGroupEnd - buffered);
      long most = layout.props().getMaxRowCountForPageSizeCheck();
      nextCheck = records + Math.max(1, Math.min(room / rowSize / 2, most));
      return false;
    }

    private void flushRowGroup() throws IOException {
      try {
        if (records > 0) {
          rowGroupOrdinal++;
          file.startBlock(records);
          columns.flush();
          pages.flushToFileWriter(file);
          file.endBlock();
          nextRowGroupSize = Math.min(file.getNextRowGroupSize(), rowGroupSize);
        }
      } finally {
        columns.close();
        pages.close();
      }
    }

    /** The last row group and the footer, with the entries naming this writer. */
    void end() throws IOException {
      flushRowGroup();
      file.end(footerEntries(layout));
    }
  }

  /**
   * One value (or null) of a row into its column writer, by the column's value kind; a null in a
   * required column and a value not read from its file are refused.
   */
  private static void writeValue(
      ColumnWriter writer, ValueKind kind, int defined, ColumnDescriptor column, Object value) {
    if (value == null) {
      if (defined == 0) {
        throw new IllegalArgumentException(
            "column " + column.getPath()[0] + " is required but null");
      }
      writer.writeNull(0, 0);
      return;
    }
    if (TableRow.isNotRead(value)) {
      throw new IllegalStateException(
          "column "
              + column.getPath()[0]
              + " holds a value not read from its file; a whole write needs every value");
    }
    switch (kind) {
      case STRING -> writer.write(Binary.fromString((String) value), 0, defined);
      case LONG -> writer.write((Long) value, 0, defined);
      case INT -> writer.write((Integer) value, 0, defined);
      case BINARY -> writer.write(Binary.fromConstantByteArray((byte[]) value), 0, defined);
    }
  }

  static MessageType schemaOf(StructType schema) {
    List<Type> fields = new ArrayList<>(schema.length());
    for (StructField field : schema.fields()) {
      fields.add(parquetType(field));
    }
    return new MessageType("DefaultKernelSchema", fields);
  }

  private static Type parquetType(StructField field) {
    Type.Repetition repetition =
        field.isNullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
    DataType type = field.getDataType();
    if (type instanceof StringType) {
      return Types.primitive(PrimitiveTypeName.BINARY, repetition)
          .as(LogicalTypeAnnotation.stringType())
          .named(field.getName());
    } else if (type instanceof LongType) {
      return Types.primitive(PrimitiveTypeName.INT64, repetition).named(field.getName());
    } else if (type instanceof IntegerType) {
      return Types.primitive(PrimitiveTypeName.INT32, repetition).named(field.getName());
    } else if (type instanceof TimestampType) {
      return Types.primitive(PrimitiveTypeName.INT64, repetition)
          .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS))
          .named(field.getName());
    } else if (type instanceof BinaryType) {
      return Types.primitive(PrimitiveTypeName.BINARY, repetition).named(field.getName());
    }
    throw new IllegalArgumentException(
        "column "
            + field.getName()
            + " has type "
            + type
            + ", which this Parquet writer does not lay out; add it next to Kernel's mapping");
  }

  /** How each column's value reaches its column writer. */
  private enum ValueKind {
    STRING,
    LONG,
    INT,
    BINARY
  }

  private static ValueKind[] kindsOf(StructType schema) {
    ValueKind[] kinds = new ValueKind[schema.length()];
    for (int i = 0; i < kinds.length; i++) {
      DataType type = schema.at(i).getDataType();
      kinds[i] =
          type instanceof StringType
              ? ValueKind.STRING
              : type instanceof IntegerType
                  ? ValueKind.INT
                  : type instanceof BinaryType ? ValueKind.BINARY : ValueKind.LONG;
    }
    return kinds;
  }
}
