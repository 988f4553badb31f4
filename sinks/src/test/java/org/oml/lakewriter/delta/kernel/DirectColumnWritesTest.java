package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * The shared writer hands each row's values straight to parquet-java's column writers. Its files
 * must be the files parquet-java's own {@code ParquetWriter} writes through the record consumer
 * from the same rows and settings, byte for byte; and a file is still cut when its data size
 * reaches the target size.
 */
class DirectColumnWritesTest {
  @TempDir Path dir;

  @Test
  void everyKindsFileIsByteForByteParquetJavasRecordWritersFile() throws Exception {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    for (TableKind kind : TableKind.values()) {
      LakeSchemas.TableSchema lake = LakeSchemas.of(kind);
      StructType schema = KernelSchemas.structOf(kind);
      List<Column> stats =
          lake.names().subList(0, lake.indexedColumns()).stream().map(Column::new).toList();
      List<TableRow> rows = ParquetWriterParityITCase.rows(lake, 700, kind.ordinal());

      List<DataFileStatus> written =
          writer.write(dir.resolve("direct-" + kind).toUri().toString(), schema, rows, stats);
      assertThat(written).hasSize(1);
      Path direct = Path.of(java.net.URI.create(written.get(0).getPath()));

      Path consumer = dir.resolve("consumer-" + kind + ".parquet");
      Set<String> described = new HashSet<>();
      stats.forEach(c -> described.add(c.getNames()[0]));
      OutputFile consumerFile =
          HadoopOutputFile.fromPath(new org.apache.hadoop.fs.Path(consumer.toUri()), conf);
      try (ParquetWriter<TableRow> recordWriter =
          recordConsumerWriter(consumerFile, footerSchema(direct, conf), described, conf)) {
        for (TableRow row : rows) {
          recordWriter.write(row);
        }
      }

      assertThat(Files.readAllBytes(direct))
          .as("%s: the file, byte for byte", kind)
          .isEqualTo(Files.readAllBytes(consumer));
    }
  }

  @Test
  void aFileIsCutWhenItsDataSizeReachesTheTarget() throws Exception {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    long target = 96 * 1024;
    conf.setLong(SharedConfParquetWriter.TARGET_FILE_SIZE_CONF, target);
    conf.setLong("parquet.block.size", 16 * 1024);
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    TableKind kind = TableKind.SILVER_MEMORIES;
    List<TableRow> rows = ParquetWriterParityITCase.rows(LakeSchemas.of(kind), 800, 3);

    List<DataFileStatus> written =
        writer.write(
            dir.resolve("cut").toUri().toString(), KernelSchemas.structOf(kind), rows,
            List.of(new Column("seq")));

    // Bodies average 1 KiB: ~800 KiB of rows in files of ~96 KiB.
    assertThat(written).hasSizeBetween(5, 12);
    List<TableRow> read = new ArrayList<>();
    for (int i = 0; i < written.size(); i++) {
      DataFileStatus file = written.get(i);
      if (i < written.size() - 1) {
        assertThat(file.getSize()).as("file %d", i).isBetween(target / 2, target * 3 / 2);
      }
      read.addAll(
          ParquetRows.read(
              KernelEngines.engine(conf),
              kind,
              FileStatus.of(file.getPath(), file.getSize(), file.getModificationTime())));
    }
    assertThat(read).as("every row once, in order").isEqualTo(rows);
  }

  /**
   * parquet-java's default values-writer factory is one static instance, which every
   * ParquetProperties built in the JVM initializes with its own settings. A layout built once and
   * kept must not take on the settings of a writer built after it: Kernel's log checkpoint writer
   * builds one per checkpoint, with a dictionary for every column.
   */
  @Test
  void thePlainColumnsStayPlainAfterAnotherParquetWriterIsBuilt() throws Exception {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    TableKind kind = TableKind.BRONZE_JOURNAL_EVENTS;
    LakeSchemas.TableSchema lake = LakeSchemas.of(kind);
    // One value per column in every row: a dictionary would pay for every column, if enabled.
    List<TableRow> rows = new ArrayList<>();
    TableRow first = ParquetWriterParityITCase.rows(lake, 1, 5).get(0);
    for (int i = 0; i < 500; i++) {
      rows.add(first);
    }
    List<Column> stats = List.of(new Column("seq"));
    String table = dir.resolve("plain").toUri().toString();
    StructType schema = KernelSchemas.structOf(kind);

    writer.write(table, schema, rows, stats); // the layout is built and kept
    org.apache.parquet.column.ParquetProperties.builder().build(); // another writer's settings
    DataFileStatus second = writer.write(table, schema, rows, stats).get(0);

    try (org.apache.parquet.hadoop.ParquetFileReader reader =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(second.getPath()), conf))) {
      for (var chunk : reader.getFooter().getBlocks().get(0).getColumns()) {
        String column = chunk.getPath().toDotString();
        boolean dictionary = chunk.getEncodings().stream().anyMatch(e -> e.usesDictionary());
        assertThat(dictionary)
            .as("%s: %s", column, chunk.getEncodings())
            .isEqualTo(
                !SharedConfParquetWriter.UNIQUE_VALUE_COLUMNS.contains(column)
                    && first.valueForWrite(lake.indexOf(column)) != null);
      }
    }
  }

  @Test
  void parquetModularEncryptionIsRefusedByName() {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    conf.set("parquet.crypto.factory.class", "org.example.KeyFactory");

    assertThatThrownBy(() -> new SharedConfParquetWriter(conf, new HadoopFileIO(conf)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parquet.crypto.factory.class is set")
        .hasMessageContaining("not supported");
  }

  /**
   * parquet-java's own writer, through the record consumer, with the shared writer's settings:
   * the unique-value columns plain, Parquet statistics only for {@code described}.
   */
  static ParquetWriter<TableRow> recordConsumerWriter(
      OutputFile file, MessageType message, Set<String> described, Configuration conf)
      throws java.io.IOException {
    ConsumerBuilder builder = new ConsumerBuilder(file, new ConsumerWriteSupport(message));
    for (Type field : message.getFields()) {
      if (SharedConfParquetWriter.UNIQUE_VALUE_COLUMNS.contains(field.getName())) {
        builder.withDictionaryEncoding(field.getName(), false);
      }
      if (!described.contains(field.getName())) {
        builder.withStatisticsEnabled(field.getName(), false);
      }
    }
    return builder.withConf(conf).build();
  }

  static MessageType footerSchema(Path file, Configuration conf) throws Exception {
    try (org.apache.parquet.hadoop.ParquetFileReader reader =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), conf))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  /** parquet-java's record consumer route: a null value is an absent field. */
  private static final class ConsumerWriteSupport extends WriteSupport<TableRow> {
    private final MessageType schema;
    private RecordConsumer consumer;

    ConsumerWriteSupport(MessageType schema) {
      this.schema = schema;
    }

    @Override
    public String getName() {
      return SharedConfParquetWriter.WRITER_VALUE;
    }

    @Override
    public WriteContext init(Configuration configuration) {
      return init((ParquetConfiguration) null);
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
      return new WriteContext(
          schema, Map.of(SharedConfParquetWriter.WRITER_KEY, SharedConfParquetWriter.WRITER_VALUE));
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(TableRow row) {
      consumer.startMessage();
      for (int i = 0; i < schema.getFieldCount(); i++) {
        Object value = row.valueForWrite(i);
        if (value == null) {
          continue;
        }
        PrimitiveType field = schema.getType(i).asPrimitiveType();
        consumer.startField(field.getName(), i);
        if (field.getPrimitiveTypeName() == PrimitiveTypeName.BINARY) {
          consumer.addBinary(
              value instanceof String s
                  ? Binary.fromString(s)
                  : Binary.fromConstantByteArray((byte[]) value));
        } else if (field.getPrimitiveTypeName() == PrimitiveTypeName.INT32) {
          consumer.addInteger((Integer) value);
        } else {
          consumer.addLong((Long) value);
        }
        consumer.endField(field.getName(), i);
      }
      consumer.endMessage();
    }
  }

  private static final class ConsumerBuilder
      extends ParquetWriter.Builder<TableRow, ConsumerBuilder> {
    private final ConsumerWriteSupport support;

    ConsumerBuilder(OutputFile file, ConsumerWriteSupport support) {
      super(file);
      this.support = support;
    }

    @Override
    protected ConsumerBuilder self() {
      return this;
    }

    @Override
    protected WriteSupport<TableRow> getWriteSupport(Configuration conf) {
      return support;
    }

    @Override
    protected WriteSupport<TableRow> getWriteSupport(ParquetConfiguration conf) {
      return support;
    }
  }
}
