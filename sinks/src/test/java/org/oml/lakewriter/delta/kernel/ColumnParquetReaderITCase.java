package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * {@link ColumnParquetReader} against Kernel's Parquet reader ({@code ParquetRows} through the
 * engine's handler): the same rows from every table kind's files, written by our writer and by
 * Kernel's, in several row groups; and nothing (so Kernel's reader reads the file) for a layout it
 * does not read exactly.
 */
class ColumnParquetReaderITCase {
  /** Small row groups and pages, so that a file of a few hundred rows has several of each. */
  private static final Map<String, String> SMALL_GROUPS =
      Map.of("parquet.block.size", "65536", "parquet.page.size", "8192");

  @TempDir Path lake;

  @Test
  void readsTheRowsKernelsReaderReadsFromEveryKindAndBothWriters() throws Exception {
    LakeConfig config = new LakeConfig(lake.toUri().toString(), SMALL_GROUPS);
    Configuration conf = KernelEngines.hadoopConf(config);
    Engine engine = KernelEngines.engine(conf);
    ColumnParquetReader reader = new ColumnParquetReader(conf);
    for (boolean ourWriter : new boolean[] {true, false}) {
      try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, ourWriter)) {
        for (TableKind kind : TableKind.values()) {
          TableId table = TableId.of(ourWriter ? "ours" : "kernels", kind);
          TableSchema schema = LakeSchemas.of(kind);
          List<TableRow> rows = ParquetWriterParityITCase.rows(schema, 600, kind.ordinal());
          List<TableRow> read = new ArrayList<>();
          int rowGroups = 0;
          for (DataFile file : client.writeDataFiles(table, rows)) {
            String path = client.tablePath(table) + "/" + file.relativePath();
            Optional<List<TableRow>> ours = reader.read(schema, path, file.sizeBytes());
            assertThat(ours).as("%s, %s", kind, ourWriter).isPresent();
            List<TableRow> kernels =
                ParquetRows.read(
                    engine, kind, FileStatus.of(path, file.sizeBytes(), file.modificationTime()));
            assertThat(ours.get()).as("%s, %s", kind, ourWriter).isEqualTo(kernels);
            assertThat(client.readDataFile(table, file)).isEqualTo(kernels);
            read.addAll(ours.get());
            rowGroups += rowGroups(conf, path);
          }
          assertThat(read).as("%s: every row, in order", kind).isEqualTo(rows);
          if (kind == TableKind.SILVER_MEMORIES) {
            assertThat(rowGroups)
                .as("bodies of up to 2 KiB fill several row groups")
                .isGreaterThan(1);
          }
        }
      }
    }
  }

  /**
   * Files whose layout the reader does not decode exactly: a timestamp in milliseconds, a column
   * of another physical type, a column missing. It returns nothing, and the client's read gives
   * Kernel's rows.
   */
  @Test
  void leavesOtherLayoutsToKernelsReader() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    Configuration conf = KernelEngines.hadoopConf(config);
    Engine engine = KernelEngines.engine(conf);
    TableKind kind = TableKind.DEAD_LETTER;
    TableSchema schema = LakeSchemas.of(kind);
    ColumnParquetReader reader = new ColumnParquetReader(conf);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      TableId table = TableId.of("foreign", kind);
      client.writeDataFiles(table, ParquetWriterParityITCase.rows(schema, 1, 0)); // creates it
      for (Layout layout : Layout.values()) {
        String path = client.tablePath(table) + "/" + layout + ".parquet";
        long size = layout.write(schema, path, conf);
        assertThat(reader.read(schema, path, size)).as(layout.name()).isEmpty();
        DataFile file = new DataFile(layout + ".parquet", size, 0, null);
        List<TableRow> rows = client.readDataFile(table, file);
        assertThat(rows)
            .as(layout.name())
            .isEqualTo(ParquetRows.read(engine, kind, FileStatus.of(path, size, 0)))
            .hasSize(3);
      }
    }
  }

  /**
   * One reader, four threads (the writer's tenants are written in parallel): each read has its own
   * decompressors, since parquet-java's reader releases its codec factory's when it closes.
   * (With one set of read options, and so one codec factory, for all reads, this test fails.)
   */
  @Test
  void readsFromSeveralThreadsAtOnce() throws Exception {
    // A codec with stateful decompressors: one shared between two reads garbles both.
    LakeConfig config =
        new LakeConfig(lake.toUri().toString(), Map.of("parquet.compression", "GZIP"));
    ColumnParquetReader reader = new ColumnParquetReader(KernelEngines.hadoopConf(config));
    TableKind kind = TableKind.SILVER_MEMORIES;
    TableSchema schema = LakeSchemas.of(kind);
    List<List<TableRow>> expected = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      TableId table = TableId.of("threads", kind);
      for (int f = 0; f < 4; f++) {
        List<TableRow> rows = ParquetWriterParityITCase.rows(schema, 80, 100 + f);
        DataFile file = client.writeDataFiles(table, rows).get(0);
        expected.add(rows);
        paths.add(client.tablePath(table) + "/" + file.relativePath());
        sizes.add(file.sizeBytes());
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t;
        readers.add(
            pool.submit(
                () -> {
                  int matched = 0;
                  for (int i = 0; i < 200; i++) {
                    int f = (first + i) % 4;
                    if (reader.read(schema, paths.get(f), sizes.get(f)).orElseThrow()
                        .equals(expected.get(f))) {
                      matched++;
                    }
                  }
                  return matched;
                }));
      }
      for (Future<Integer> read : readers) {
        assertThat(read.get(2, TimeUnit.MINUTES)).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aMissingFileIsFileNotFound() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    ColumnParquetReader reader = new ColumnParquetReader(KernelEngines.hadoopConf(config));
    String path = lake.resolve("none.parquet").toUri().toString();
    assertThatThrownBy(
            () -> reader.read(LakeSchemas.of(TableKind.SILVER_MEMORIES), path, 1_000))
        .isInstanceOf(FileNotFoundException.class);
  }

  private static int rowGroups(Configuration conf, String path) throws Exception {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(path), conf))) {
      return reader.getFooter().getBlocks().size();
    }
  }

  /** Foreign layouts of a table's columns, written with parquet-java's example writer. */
  enum Layout {
    TIMESTAMP_IN_MILLIS,
    LONG_AS_INT32,
    COLUMN_MISSING;

    long write(TableSchema schema, String path, Configuration conf) throws Exception {
      Types.MessageTypeBuilder builder = Types.buildMessage();
      for (LakeSchemas.Column column : schema.columns()) {
        if (this == COLUMN_MISSING && column.name().equals(lastNullable(schema))) {
          continue;
        }
        var field =
            switch (column.type()) {
              case STRING ->
                  Types.optional(PrimitiveTypeName.BINARY)
                      .as(LogicalTypeAnnotation.stringType());
              case BINARY -> Types.optional(PrimitiveTypeName.BINARY);
              case INT -> Types.optional(PrimitiveTypeName.INT32);
              case LONG ->
                  this == LONG_AS_INT32 && column.nullable()
                      ? Types.optional(PrimitiveTypeName.INT32)
                      : Types.optional(PrimitiveTypeName.INT64);
              case TIMESTAMP ->
                  Types.optional(PrimitiveTypeName.INT64)
                      .as(
                          LogicalTypeAnnotation.timestampType(
                              true,
                              this == TIMESTAMP_IN_MILLIS
                                  ? LogicalTypeAnnotation.TimeUnit.MILLIS
                                  : LogicalTypeAnnotation.TimeUnit.MICROS));
            };
        builder.addField(field.named(column.name()));
      }
      MessageType message = builder.named("foreign");
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
      SimpleGroupFactory groups = new SimpleGroupFactory(message);
      try (ParquetWriter<Group> writer =
          ExampleParquetWriter.builder(HadoopOutputFile.fromPath(file, conf))
              .withType(message)
              .build()) {
        for (int i = 1; i <= 3; i++) {
          Group group = groups.newGroup();
          for (LakeSchemas.Column column : schema.columns()) {
            if (!message.containsField(column.name())) {
              continue;
            }
            switch (column.type()) {
              case STRING -> group.append(column.name(), column.name() + i);
              case BINARY ->
                  group.append(column.name(), Binary.fromConstantByteArray(new byte[] {(byte) i}));
              case INT -> group.append(column.name(), i);
              case LONG -> {
                if (this == LONG_AS_INT32 && column.nullable()) {
                  group.append(column.name(), i * 10);
                } else {
                  group.append(column.name(), i * 10L);
                }
              }
              case TIMESTAMP -> group.append(column.name(), 1_700_000_000_000L + i);
            }
          }
          writer.write(group);
        }
      }
      return file.getFileSystem(conf).getFileStatus(file).getLen();
    }

    private static String lastNullable(TableSchema schema) {
      String last = null;
      for (LakeSchemas.Column column : schema.columns()) {
        if (column.nullable()) {
          last = column.name();
        }
      }
      return last;
    }
  }
}
