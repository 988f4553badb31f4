package org.oml.lakewriter.delta.kernel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * Many small data files (no commits) written by Kernel's own Parquet writer and by the
 * shared-configuration writer, in alternating rounds in one JVM. Excluded from the default build;
 * run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=ParquetWriterBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.files=512 -Dbench.rows=20 -Dbench.tables=64 -Dbench.rounds=3]
 * </pre>
 */
@Tag("benchmark")
class ParquetWriterBenchmark {
  private static final int FILES = Integer.getInteger("bench.files", 512);
  private static final int ROWS = Integer.getInteger("bench.rows", 20);
  private static final int TABLES = Integer.getInteger("bench.tables", 64);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);

  @Test
  void kernelWriterVersusSharedConfiguration() throws Exception {
    run(false, 64); // warm-up: JIT, Hadoop, Kernel
    run(true, 64);
    System.out.printf(
        Locale.ROOT,
        "%nParquetWriterBenchmark: %d files x %d rows over %d bronze tables, %d rounds%n",
        FILES,
        ROWS,
        TABLES,
        ROUNDS);
    for (int round = 1; round <= ROUNDS; round++) {
      double kernel = run(false, FILES);
      double shared = run(true, FILES);
      System.out.printf(
          Locale.ROOT,
          "  round %d: Kernel's writer %.2f ms/file, shared configuration %.2f ms/file,"
              + " ratio %.2f%n",
          round,
          kernel,
          shared,
          kernel / shared);
    }
  }

  /**
   * Files of bronze, silver and gold lineage rows written by parquet-java's own writer through its
   * record consumer, built per file (the shared writer before stop 49), and by the shared writer's
   * direct column writes, alternating in one JVM; both take the Delta statistics from the footer.
   * Run with {@code -Dtest=ParquetWriterBenchmark#directColumnWrites [-Dbench.direct-rows=500
   * -Dbench.direct-files=200 -Dbench.direct-kinds=BRONZE_JOURNAL_EVENTS,GOLD_LINEAGE]}.
   */
  @Test
  void directColumnWrites() throws Exception {
    int rowsPerFile = Integer.getInteger("bench.direct-rows", 500);
    int files = Integer.getInteger("bench.direct-files", 200);
    Path dir = Files.createTempDirectory("parquet-bench-direct");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    SharedConfParquetWriter direct = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    List<TableKind> kinds =
        java.util.Arrays.stream(
                System.getProperty(
                        "bench.direct-kinds", "BRONZE_JOURNAL_EVENTS,SILVER_MEMORIES,GOLD_LINEAGE")
                    .split(","))
            .map(TableKind::valueOf)
            .toList();
    System.out.printf(
        Locale.ROOT,
        "%nParquetWriterBenchmark: %d files x %d rows a round, each of %s%n",
        files, rowsPerFile, kinds);
    for (int round = 0; round <= ROUNDS; round++) {
      long[] nanos = new long[2];
      for (TableKind kind : kinds) {
        LakeSchemas.TableSchema schema = LakeSchemas.of(kind);
        StructType struct = KernelSchemas.structOf(kind);
        List<TableRow> rows =
            kind == TableKind.SILVER_MEMORIES
                ? silverRows(schema, rowsPerFile)
                : ParquetWriterParityITCase.rows(schema, rowsPerFile, kind.ordinal());
        List<Column> stats =
            schema.names().subList(0, schema.indexedColumns()).stream().map(Column::new).toList();
        Set<String> described = new HashSet<>(schema.names().subList(0, schema.indexedColumns()));
        Map<StructType, MessageType> messages = new HashMap<>();
        HadoopFileIO fileIO = new HadoopFileIO(conf);
        for (int f = 0; f < files; f++) {
          // What the shared writer did for a file before stop 49, in the same steps.
          long start = System.nanoTime();
          MessageType message =
              messages.computeIfAbsent(struct, SharedConfParquetWriter::schemaOf);
          org.apache.hadoop.fs.Path path =
              new org.apache.hadoop.fs.Path(
                  dir.resolve("c").toString(),
                  String.format("%s-%03d.parquet", UUID.randomUUID(), 0));
          DataFileOutput out = new DataFileOutput(path.getFileSystem(conf), path);
          ParquetWriter<TableRow> consumer =
              DirectColumnWritesTest.recordConsumerWriter(out, message, described, conf);
          try (consumer) {
            for (TableRow row : rows) {
              consumer.write(row);
            }
          }
          new DataFileStatus(
              fileIO.resolvePath(path.toString()),
              out.length(),
              System.currentTimeMillis(),
              Optional.of(FooterStatistics.of(consumer.getFooter(), struct, stats)));
          nanos[0] += System.nanoTime() - start;
          start = System.nanoTime();
          List<DataFileStatus> written =
              direct.write(dir.resolve("d").toString(), struct, rows, stats);
          nanos[1] += System.nanoTime() - start;
          Files.delete(Path.of(path.toString()));
          Files.delete(Path.of(java.net.URI.create(written.get(0).getPath())));
        }
      }
      if (round > 0) { // round 0 warms up
        double perRowConsumer = nanos[0] / 1e3 / files / rowsPerFile / kinds.size();
        double perRowDirect = nanos[1] / 1e3 / files / rowsPerFile / kinds.size();
        System.out.printf(
            Locale.ROOT,
            "  round %d: record consumer %.2f us/row, direct column writes %.2f us/row,"
                + " ratio %.2f%n",
            round, perRowConsumer, perRowDirect, perRowDirect / perRowConsumer);
      }
    }
  }

  /**
   * Silver files of realistic rows (random ids and digests, 1 KiB ciphertext bodies) written by
   * the shared writer with and without dictionaries for the unique-value columns, alternating in
   * one JVM. Run with {@code -Dtest=ParquetWriterBenchmark#plainUniqueValueColumns}.
   */
  @Test
  void plainUniqueValueColumns() throws Exception {
    int rowsPerFile = Integer.getInteger("bench.silver-rows", 5_000);
    int files = Integer.getInteger("bench.silver-files", 8);
    Path dir = Files.createTempDirectory("parquet-bench-dict");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    SharedConfParquetWriter plain =
        new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    SharedConfParquetWriter dictionary =
        new SharedConfParquetWriter(conf, new HadoopFileIO(conf), Set.of(), false);
    LakeSchemas.TableSchema schema = LakeSchemas.of(TableKind.SILVER_MEMORIES);
    StructType struct = KernelSchemas.structOf(TableKind.SILVER_MEMORIES);
    List<TableRow> rows = silverRows(schema, rowsPerFile);
    List<Column> stats = List.of(new Column("seq"), new Column("artifact_id"));
    for (int round = 0; round <= ROUNDS; round++) {
      long[] nanos = new long[2];
      for (int f = 0; f < files; f++) {
        SharedConfParquetWriter[] writers = {dictionary, plain};
        for (int w = 0; w < 2; w++) {
          long start = System.nanoTime();
          writers[w].write(dir.resolve("w" + w).toString(), struct, rows, stats);
          nanos[w] += System.nanoTime() - start;
        }
      }
      if (round > 0) { // round 0 warms up
        double perRowDict = nanos[0] / 1e3 / files / rowsPerFile;
        double perRowPlain = nanos[1] / 1e3 / files / rowsPerFile;
        System.out.printf(
            Locale.ROOT,
            "  round %d: %d silver files x %d rows: dictionary for every column %.2f us/row,"
                + " unique-value columns plain %.2f us/row, ratio %.2f%n",
            round, files, rowsPerFile, perRowDict, perRowPlain, perRowDict / perRowPlain);
      }
    }
  }

  /**
   * Silver files of the keyed cap's size (60 rows of 1 KiB bodies) written by the shared writer
   * with Parquet statistics for every column, as Kernel's writer keeps them, and only for the Delta
   * statistics columns, alternating in one JVM. Run with {@code
   * -Dtest=ParquetWriterBenchmark#statisticsOnlyForStatsColumns [-Dbench.stats-rows=60
   * -Dbench.stats-files=2000]}.
   */
  @Test
  void statisticsOnlyForStatsColumns() throws Exception {
    int rowsPerFile = Integer.getInteger("bench.stats-rows", 60);
    int files = Integer.getInteger("bench.stats-files", 2_000);
    Path dir = Files.createTempDirectory("parquet-bench-stats");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    Set<String> plain = SharedConfParquetWriter.UNIQUE_VALUE_COLUMNS;
    SharedConfParquetWriter[] writers = {
      new SharedConfParquetWriter(conf, new HadoopFileIO(conf), plain, true),
      new SharedConfParquetWriter(conf, new HadoopFileIO(conf), plain, false)
    };
    LakeSchemas.TableSchema schema = LakeSchemas.of(TableKind.SILVER_MEMORIES);
    StructType struct = KernelSchemas.structOf(TableKind.SILVER_MEMORIES);
    List<TableRow> rows = silverRows(schema, rowsPerFile);
    List<Column> stats =
        schema.names().subList(0, schema.indexedColumns()).stream().map(Column::new).toList();
    System.out.printf(
        Locale.ROOT,
        "%nParquetWriterBenchmark: %d silver files x %d rows a round, statistics columns %s%n",
        files, rowsPerFile, stats);
    for (int round = 0; round <= ROUNDS; round++) {
      long[] nanos = new long[2];
      long[] bytes = new long[2];
      for (int f = 0; f < files; f++) {
        for (int w = 0; w < 2; w++) {
          long start = System.nanoTime();
          List<DataFileStatus> written =
              writers[w].write(dir.resolve("w" + w).toString(), struct, rows, stats);
          nanos[w] += System.nanoTime() - start;
          bytes[w] += written.get(0).getSize();
        }
      }
      if (round > 0) { // round 0 warms up
        double every = nanos[0] / 1e3 / files;
        double described = nanos[1] / 1e3 / files;
        System.out.printf(
            Locale.ROOT,
            "  round %d: statistics of every column %.1f us/file (%,d bytes), of the statistics"
                + " columns only %.1f us/file (%,d bytes), ratio %.2f%n",
            round, every, bytes[0] / files, described, bytes[1] / files, described / every);
      }
    }
  }

  /**
   * A real silver file's footer (its Thrift bytes, as parquet-java writes them, a byte or a few at
   * a time) written into new files through parquet-java's own {@code HadoopOutputFile} stream (the
   * data file stream before stop 48) and through {@link DataFileOutput}'s buffered one,
   * alternating in one JVM. Run with {@code -Dtest=ParquetWriterBenchmark#footerThroughTheStream
   * [-Dbench.footers=5000]}.
   */
  @Test
  void footerThroughTheStream() throws Exception {
    int footers = Integer.getInteger("bench.footers", 5_000);
    Path dir = Files.createTempDirectory("parquet-bench-footer");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    List<DataFileStatus> written =
        new SharedConfParquetWriter(conf, new HadoopFileIO(conf))
            .write(
                dir.resolve("source").toString(),
                KernelSchemas.structOf(TableKind.SILVER_MEMORIES),
                silverRows(LakeSchemas.of(TableKind.SILVER_MEMORIES), 60),
                List.of(new Column("artifact_id"), new Column("version")));
    org.apache.hadoop.fs.Path source = new org.apache.hadoop.fs.Path(written.get(0).getPath());
    FileSystem fs = source.getFileSystem(conf);
    ParquetMetadata footer;
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(source, conf))) {
      footer = reader.getFooter();
    }
    FileMetaData thrift = new ParquetMetadataConverter().toParquetMetadata(1, footer);
    System.out.printf(
        Locale.ROOT,
        "%nParquetWriterBenchmark: a 60-row silver file's footer written %d times a round%n",
        footers);
    for (int round = 0; round <= ROUNDS; round++) {
      long[] nanos = new long[2];
      long size = 0;
      for (int f = 0; f < footers; f++) {
        for (int w = 0; w < 2; w++) {
          org.apache.hadoop.fs.Path path =
              new org.apache.hadoop.fs.Path(dir.resolve("f" + w + "-" + f).toUri());
          long start = System.nanoTime();
          try (PositionOutputStream out =
              w == 0
                  ? HadoopOutputFile.fromPath(path, conf).create(0)
                  : new DataFileOutput(fs, path).create(0)) {
            Util.writeFileMetaData(thrift, out);
            size = out.getPos();
          }
          nanos[w] += System.nanoTime() - start;
          fs.delete(path, false);
        }
      }
      if (round > 0) { // round 0 warms up
        double plain = nanos[0] / 1e3 / footers;
        double buffered = nanos[1] / 1e3 / footers;
        System.out.printf(
            Locale.ROOT,
            "  round %d: %,d-byte footer, parquet-java's stream %.1f us/file, buffered %.1f"
                + " us/file, ratio %.2f%n",
            round, size, plain, buffered, buffered / plain);
      }
    }
  }

  static List<TableRow> silverRows(LakeSchemas.TableSchema schema, int count) {
    Random random = new Random(1);
    HexFormat hex = HexFormat.of();
    List<TableRow> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] body = new byte[1024];
      random.nextBytes(body);
      byte[] digest = new byte[32];
      random.nextBytes(digest);
      String artifact = new UUID(random.nextLong(), random.nextLong()).toString();
      rows.add(
          TableRow.builder(schema, i + 1L)
              .set("artifact_id", artifact)
              .set("version", 1L)
              .set("state", "promoted")
              .set("tenant_id", "acme")
              .set("workarea_id", "wa-" + random.nextInt(4))
              .set("path_at_write", "/notes/" + artifact + ".md")
              .set("writer_identity", "alice")
              .set("principal", "alice@acme")
              .set("provenance_class", "human")
              .set("event_time", 1_700_000_000_000_000L + i * 1_000L + random.nextInt(1_000))
              .set("plaintext_digest", hex.formatHex(digest))
              .set("ciphertext_digest", hex.formatHex(body, 0, 32))
              .set("data_key_id", "dek-" + artifact)
              .set("body", body)
              .build());
    }
    return rows;
  }

  /** Milliseconds per file, table creation excluded. */
  private static double run(boolean shared, int files) throws Exception {
    Path dir = Files.createTempDirectory("parquet-bench");
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(dir.toUri().toString()), shared)) {
      List<TableId> tables = new ArrayList<>();
      for (int t = 0; t < TABLES; t++) {
        TableId table = TableId.of("t" + t, TableKind.BRONZE_JOURNAL_EVENTS);
        client.writeDataFiles(table, rows(0)); // creates the table
        tables.add(table);
      }
      long start = System.nanoTime();
      for (int f = 0; f < files; f++) {
        client.writeDataFiles(tables.get(f % TABLES), rows(1 + (long) f * ROWS));
      }
      return (System.nanoTime() - start) / 1e6 / files;
    }
  }

  private static List<TableRow> rows(long first) {
    long[] seqs = new long[ROWS];
    for (int i = 0; i < ROWS; i++) {
      seqs[i] = first + i;
    }
    return KernelDeltaTableClientITCase.rows(seqs);
  }
}
