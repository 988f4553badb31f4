package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.statistics.DataFileStatistics;
import java.io.IOException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * The shared-configuration Parquet writer against Kernel's own writer: the same rows written both
 * ways give the same Parquet schema and column statistics, the same Delta statistics, and the same
 * rows read back by Kernel's scan; and the shared writer builds no Hadoop configuration per file.
 */
class ParquetWriterParityITCase {
  private static final String PROBE = "oml-parquet-parity-probe.xml";

  @TempDir Path kernelLake;
  @TempDir Path sharedLake;

  @Test
  void sameStatisticsFooterAndRowsAsKernelsWriter() throws Exception {
    LakeConfig kernelConfig = LakeConfig.of(kernelLake.toUri().toString());
    LakeConfig sharedConfig = LakeConfig.of(sharedLake.toUri().toString());
    try (KernelDeltaTableClient kernel = new KernelDeltaTableClient(kernelConfig, false);
        KernelDeltaTableClient shared = new KernelDeltaTableClient(sharedConfig, true)) {
      for (TableKind kind : TableKind.values()) {
        TableId table = TableId.of("acme", kind);
        List<TableRow> rows = rows(LakeSchemas.of(kind), 300, kind.ordinal());
        List<DataFile> before = kernel.writeDataFiles(table, rows);
        List<DataFile> after = shared.writeDataFiles(table, rows);
        assertThat(after).hasSize(1);
        assertThat(before).hasSize(1);

        // Delta statistics: numRecords, min/max and nullCount of the indexed columns.
        assertThat(after.get(0).statsJson()).isEqualTo(before.get(0).statsJson());
        assertThat(stats(kind, after.get(0))).isEqualTo(stats(kind, before.get(0)));
        assertThat(after.get(0).statsJson()).contains("\"numRecords\":300", "nullCount");

        // The file itself: schema, counts and the Parquet statistics of the Delta statistics
        // columns, and the encodings: the same but for the unique-value columns, which are never
        // dictionary-encoded. The other columns carry no Parquet statistics: no copy of a body,
        // digest or envelope in the footer.
        ParquetMetadata kernelFooter = footer(kernel.tablePath(table), before.get(0));
        ParquetMetadata sharedFooter = footer(shared.tablePath(table), after.get(0));
        assertThat(sharedFooter.getFileMetaData().getSchema())
            .isEqualTo(kernelFooter.getFileMetaData().getSchema());
        Set<String> described = statsColumns(kind);
        assertThat(columns(sharedFooter, described)).isEqualTo(columns(kernelFooter, described));
        assertThat(withMinMax(kernelFooter)).as("Kernel's writer").hasSize(columnCount(kind));
        assertThat(withMinMax(sharedFooter)).isEqualTo(described);
        Map<String, Set<Encoding>> kernelEncodings = encodings(kernelFooter);
        Map<String, Set<Encoding>> sharedEncodings = encodings(sharedFooter);
        assertThat(sharedEncodings.keySet()).isEqualTo(kernelEncodings.keySet());
        sharedEncodings.forEach(
            (column, used) -> {
              if (SharedConfParquetWriter.UNIQUE_VALUE_COLUMNS.contains(column)) {
                assertThat(used).as(column).noneMatch(Encoding::usesDictionary);
              } else {
                assertThat(used).as(column).isEqualTo(kernelEncodings.get(column));
              }
            });
        // gold/workareas has no artifact_id: its key column is workarea_id.
        String keyColumn = kind == TableKind.GOLD_WORKAREAS ? "workarea_id" : "artifact_id";
        assertThat(kernelEncodings.get(keyColumn))
            .as("Kernel's writer: a dictionary for every column")
            .anyMatch(Encoding::usesDictionary);
        assertThat(sharedFooter.getFileMetaData().getKeyValueMetaData())
            .containsEntry(SharedConfParquetWriter.WRITER_KEY, SharedConfParquetWriter.WRITER_VALUE);

        // Read back through the client (the column reader) and through Kernel's scan.
        assertThat(shared.readDataFile(table, after.get(0))).isEqualTo(rows);
        assertThat(kernel.readDataFile(table, before.get(0))).isEqualTo(rows);
        kernel.commit(table, 1_000, before);
        shared.commit(table, 1_000, after);
        List<Map<String, Object>> scanned = comparable(LakeReader.open(sharedConfig).rows(table));
        assertThat(scanned).hasSize(rows.size());
        assertThat(scanned).isEqualTo(comparable(LakeReader.open(kernelConfig).rows(table)));
        // Sizes differ only by the footer entry naming the writer.
        assertThat(LakeReader.open(sharedConfig).fileCount(table)).isEqualTo(1);
        assertThat(LakeReader.open(sharedConfig).txnVersion(table)).isEqualTo(1_000);
      }
    }
  }

  /**
   * Counts how often a Hadoop {@code Configuration} loads its default resources while files are
   * written: Kernel's writer does it once per file, the shared writer never.
   */
  @Test
  void noHadoopConfigurationLoadedPerFile() throws Exception {
    Configuration.addDefaultResource(PROBE);
    TableId table = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(loadsWhileWriting(new KernelDeltaTableClient(
            LakeConfig.of(kernelLake.toUri().toString()), false), table, 5))
        .as("Kernel's own writer: a configuration per file")
        .isGreaterThanOrEqualTo(5);
    assertThat(loadsWhileWriting(new KernelDeltaTableClient(
            LakeConfig.of(sharedLake.toUri().toString())), table, 5))
        .as("default client: no configuration loaded per file")
        .isZero();
  }

  private static int loadsWhileWriting(KernelDeltaTableClient client, TableId table, int files)
      throws IOException {
    AtomicInteger loads = new AtomicInteger();
    Thread thread = Thread.currentThread();
    ClassLoader original = thread.getContextClassLoader();
    try (client) {
      client.writeDataFiles(table, KernelDeltaTableClientITCase.rows(1)); // table creation
      thread.setContextClassLoader(new CountingLoader(original, loads));
      for (int i = 0; i < files; i++) {
        client.writeDataFiles(table, KernelDeltaTableClientITCase.rows(10 + i, 20 + i));
      }
    } finally {
      thread.setContextClassLoader(original);
    }
    return loads.get();
  }

  /** Counts the look-ups of {@link #PROBE}, which only a configuration's resource loading does. */
  private static final class CountingLoader extends ClassLoader {
    private final AtomicInteger loads;

    CountingLoader(ClassLoader parent, AtomicInteger loads) {
      super(parent);
      this.loads = loads;
    }

    @Override
    public URL getResource(String name) {
      if (PROBE.equals(name)) {
        loads.incrementAndGet();
      }
      return super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      if (PROBE.equals(name)) {
        loads.incrementAndGet();
      }
      return super.getResources(name);
    }
  }

  /** Rows with every column type, NULLs in every nullable column, bodies of 0 to 2 KiB. */
  static List<TableRow> rows(LakeSchemas.TableSchema schema, int count, long salt) {
    Random random = new Random(42 + salt);
    List<TableRow> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long seq = 1 + i * 3L;
      TableRow.Builder row = TableRow.builder(schema, seq);
      for (LakeSchemas.Column column : schema.columns()) {
        if (column.name().equals("seq") || (column.nullable() && random.nextInt(5) == 0)) {
          continue;
        }
        row.set(column.name(), value(column, random, i));
      }
      rows.add(row.build());
    }
    return rows;
  }

  private static Object value(LakeSchemas.Column column, Random random, int i) {
    return switch (column.type()) {
      // Every seventh value has characters of two, three and four UTF-8 bytes.
      case STRING ->
          column.name() + "-" + random.nextInt(1000) + (i % 7 == 0 ? "-ü✓\uD83D\uDE00" : "");
      case LONG -> random.nextLong() % 1_000_000L;
      case INT -> random.nextInt(100) - 50;
      // Microseconds, before and after the epoch.
      case TIMESTAMP -> 1_700_000_000_000_000L - random.nextLong(3_500_000_000_000_000L);
      case BINARY -> {
        byte[] body = new byte[i % 11 == 0 ? 0 : random.nextInt(2048)];
        random.nextBytes(body);
        yield body;
      }
    };
  }

  private static DataFileStatistics stats(TableKind kind, DataFile file) {
    return DataFileStatistics.deserializeFromJson(file.statsJson(), KernelSchemas.structOf(kind))
        .orElseThrow();
  }

  private static ParquetMetadata footer(String tablePath, DataFile file) throws IOException {
    org.apache.hadoop.fs.Path path =
        new org.apache.hadoop.fs.Path(new org.apache.hadoop.fs.Path(tablePath), file.relativePath());
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))) {
      return reader.getFooter();
    }
  }

  /** Per column: the encodings of its chunks. */
  private static Map<String, Set<Encoding>> encodings(ParquetMetadata footer) {
    Map<String, Set<Encoding>> encodings = new TreeMap<>();
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        encodings
            .computeIfAbsent(chunk.getPath().toDotString(), c -> new TreeSet<>())
            .addAll(chunk.getEncodings());
      }
    }
    return encodings;
  }

  /** The names of the table's Delta statistics columns (its leading indexed columns). */
  private static Set<String> statsColumns(TableKind kind) {
    LakeSchemas.TableSchema schema = LakeSchemas.of(kind);
    return new TreeSet<>(schema.names().subList(0, schema.indexedColumns()));
  }

  private static int columnCount(TableKind kind) {
    return LakeSchemas.of(kind).columns().size();
  }

  /** The columns whose chunks have a Parquet min/max in the footer. */
  private static Set<String> withMinMax(ParquetMetadata footer) {
    Set<String> columns = new TreeSet<>();
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        if (chunk.getStatistics().hasNonNullValue()) {
          columns.add(chunk.getPath().toDotString());
        }
      }
    }
    return columns;
  }

  /**
   * Per column chunk: path, type, codec, value count, and for the {@code described} columns the
   * Parquet statistics.
   */
  private static List<String> columns(ParquetMetadata footer, Set<String> described) {
    List<String> columns = new ArrayList<>();
    for (BlockMetaData block : footer.getBlocks()) {
      columns.add("rows=" + block.getRowCount());
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        Statistics<?> stats = chunk.getStatistics();
        String column =
            chunk.getPath() + " " + chunk.getPrimitiveType() + " " + chunk.getCodec()
                + " values=" + chunk.getValueCount();
        if (described.contains(chunk.getPath().toDotString())) {
          column +=
              " nulls="
                  + stats.getNumNulls()
                  + " min="
                  + (stats.hasNonNullValue() ? stats.minAsString() : "-")
                  + " max="
                  + (stats.hasNonNullValue() ? stats.maxAsString() : "-");
        }
        columns.add(column);
      }
    }
    return columns;
  }

  /** Rows with byte arrays as buffers, so that equals compares their content. */
  static List<Map<String, Object>> comparable(List<Map<String, Object>> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      Map<String, Object> copy = new LinkedHashMap<>();
      row.forEach((k, v) -> copy.put(k, v instanceof byte[] b ? ByteBuffer.wrap(b) : v));
      out.add(copy);
    }
    return out;
  }
}
