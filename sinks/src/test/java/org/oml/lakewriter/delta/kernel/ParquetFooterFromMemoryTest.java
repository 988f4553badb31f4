package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.defaults.internal.parquet.ParquetStatsReader;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * The shared writer takes each new file's Delta statistics from the footer parquet-java holds in
 * memory and its size from the bytes written: no status request and no read of the file, and the
 * same statistics and size as Kernel's reader finds in the file itself.
 */
class ParquetFooterFromMemoryTest {
  @TempDir Path dir;

  @Test
  void statisticsAndSizeComeFromMemoryAndEqualTheFilesOwn() throws Exception {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    CountingFileIO io = new CountingFileIO(conf);
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, io);
    for (TableKind kind : TableKind.values()) {
      StructType schema = KernelSchemas.structOf(kind);
      List<Column> columns = statsColumns(schema);
      List<DataFileStatus> written =
          writer.write(
              dir.resolve(kind.name()).toUri().toString(), schema,
              ParquetWriterParityITCase.rows(LakeSchemas.of(kind), 200, kind.ordinal()), columns);

      assertThat(written).hasSize(1);
      assertThat(io.statuses).as("status requests").hasValue(0);
      assertThat(io.reads).as("files opened for reading").hasValue(0);
      assertOwnFile(conf, written.get(0), schema, columns);
    }
    // A table without statistics columns: the row count alone.
    StructType schema = KernelSchemas.structOf(TableKind.BRONZE_JOURNAL_EVENTS);
    List<DataFileStatus> written =
        writer.write(
            dir.resolve("none").toUri().toString(), schema,
            ParquetWriterParityITCase.rows(LakeSchemas.of(TableKind.BRONZE_JOURNAL_EVENTS), 7, 0),
            List.of());
    assertOwnFile(conf, written.get(0), schema, List.of());
    assertThat(written.get(0).getStatistics().orElseThrow().serializeAsJson(schema))
        .contains("\"numRecords\":7");
  }

  /**
   * Shapes the ordinary rows do not have, each compared with Kernel's reader on the file: many row
   * groups (merged), a column null in every row, a string too long for parquet-java to keep its
   * min/max in the footer, and empty values.
   */
  @Test
  void statisticsEqualTheFilesOwnForManyRowGroupsAllNullsAndOversizedValues() throws Exception {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    conf.set("parquet.block.size", "2048"); // a few row groups
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    TableKind kind = TableKind.SILVER_MEMORIES;
    LakeSchemas.TableSchema lake = LakeSchemas.of(kind);
    StructType schema = KernelSchemas.structOf(kind);
    List<Column> columns = statsColumns(schema);
    Random random = new Random(11);
    List<TableRow> rows = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      byte[] body = new byte[i % 9 == 0 ? 0 : 200];
      random.nextBytes(body);
      TableRow.Builder row =
          TableRow.builder(lake, 10L + i)
              .set("artifact_id", i == 123 ? "a".repeat(5_000) : "artifact-" + random.nextInt())
              .set("version", i % 5 == 0 ? null : (long) random.nextInt(1_000))
              .set("state", i % 13 == 0 ? "" : "promoted")
              .set("body", body);
      // workarea_id stays null in every row
      rows.add(row.build());
    }

    List<DataFileStatus> written =
        writer.write(dir.resolve("edge").toUri().toString(), schema, rows, columns);

    assertThat(written).hasSize(1);
    assertThat(blocks(conf, written.get(0))).as("row groups").isGreaterThan(2);
    assertOwnFile(conf, written.get(0), schema, columns);
    String json = written.get(0).getStatistics().orElseThrow().serializeAsJson(schema);
    assertThat(json)
        .contains("\"numRecords\":400", "\"workarea_id\":null", "\"workarea_id\":400")
        .doesNotContain("aaaaaaaaaa");
  }

  /** The status as Kernel's own reader sees the file on disk. */
  private static void assertOwnFile(
      Configuration conf, DataFileStatus status, StructType schema, List<Column> columns)
      throws IOException {
    HadoopFileIO plain = new HadoopFileIO(conf);
    FileStatus onDisk = plain.getFileStatus(status.getPath());
    assertThat(status.getSize()).isEqualTo(onDisk.getSize());
    assertThat(status.getModificationTime())
        .isBetween(onDisk.getModificationTime() - 2_000, System.currentTimeMillis());
    assertThat(status.getStatistics().orElseThrow().serializeAsJson(schema))
        .isEqualTo(
            ParquetStatsReader.readDataFileStatistics(
                    plain.newInputFile(status.getPath(), onDisk.getSize()), schema, columns)
                .serializeAsJson(schema))
        .contains("\"numRecords\"", "minValues");
  }

  private static int blocks(Configuration conf, DataFileStatus status) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(status.getPath());
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
      return reader.getFooter().getBlocks().size();
    }
  }

  private static List<Column> statsColumns(StructType schema) {
    return schema.fields().stream().map(f -> new Column(f.getName())).toList();
  }

  /** Counts the status requests and the files opened for reading. */
  private static final class CountingFileIO extends HadoopFileIO {
    final AtomicInteger statuses = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();

    CountingFileIO(Configuration conf) {
      super(conf);
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
      statuses.incrementAndGet();
      return super.getFileStatus(path);
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
      reads.incrementAndGet();
      return super.newInputFile(path, fileSize);
    }
  }
}
