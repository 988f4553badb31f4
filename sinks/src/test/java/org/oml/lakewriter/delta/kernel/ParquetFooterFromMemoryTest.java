package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.defaults.internal.parquet.ParquetStatsReader;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * The shared writer reads each new file's footer back from the bytes it kept while writing: no
 * status request and no read of the file, the same statistics and size as from the file itself,
 * and a footer larger than the kept tail read from the file instead.
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
      assertThat(footerLength(written.get(0)))
          .as("%s footer, with room in the kept tail", kind)
          .isLessThan(SharedConfParquetWriter.TAIL_BYTES / 4);
    }
    assertThat(writer.footersReadFromFiles()).isZero();
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

  @Test
  void theTailHoldsTheLastBytesWrittenAcrossTheRingsWrapAndNothingBefore() throws Exception {
    byte[] ring = new byte[1000];
    Path file = dir.resolve("bytes");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    TailKeepingOutputFile out = new TailKeepingOutputFile(path.getFileSystem(conf), path, ring);
    Random random = new Random(7);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (PositionOutputStream stream = out.create(0)) {
      for (int chunk = 0; chunk < 60; chunk++) {
        byte[] b = new byte[chunk % 13 == 0 ? 2500 : random.nextInt(300)];
        random.nextBytes(b);
        if (chunk % 5 == 0 && b.length > 0) {
          stream.write(b[0]);
          all.write(b[0]);
        }
        stream.write(b, 0, b.length);
        all.write(b, 0, b.length);
      }
    }
    byte[] expected = all.toByteArray();
    assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    assertThat(out.length()).isEqualTo(expected.length);

    InputFile back = out.readBack();
    assertThat(back.length()).isEqualTo(expected.length);
    try (SeekableInputStream in = back.newStream()) {
      byte[] tail = new byte[ring.length];
      in.seek(expected.length - ring.length);
      in.readFully(tail, 0, tail.length);
      assertThat(tail)
          .isEqualTo(Arrays.copyOfRange(expected, expected.length - ring.length, expected.length));
      assertThat(in.read()).isEqualTo(-1);
      in.seek(expected.length - ring.length - 1);
      assertThatThrownBy(in::read).isInstanceOf(TailKeepingOutputFile.NotKept.class);
    }
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

  /** The footer's length, as Parquet stores it before the closing magic bytes. */
  private static int footerLength(DataFileStatus status) throws IOException {
    byte[] file = Files.readAllBytes(Path.of(java.net.URI.create(status.getPath())));
    return ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
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
