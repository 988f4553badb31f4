package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * What reading one keyed file back costs (every copy-on-write, compaction and gold MERGE does it):
 * the client's read ({@link ColumnParquetReader}) against the read it replaced, in the same run (a
 * status request for the file, then Kernel's Parquet reader through the engine's handler and
 * {@link ParquetRows}). Files of the keyed cap's size (64 KB) and of the older 256 KB one.
 * Excluded from the default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=ColumnReadBenchmark -Dsinks.excludedGroups=none [-Dbench.reads=500]
 * </pre>
 */
@Tag("benchmark")
class ColumnReadBenchmark {
  private static final int READS = Integer.getInteger("bench.reads", 500);

  @TempDir Path dir;

  @Test
  void theColumnReaderAgainstKernelsReader() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "%nColumnReadBenchmark: %d reads per file and reader, rounds alternating%n",
        READS);
    LakeConfig config = LakeConfig.of(dir.toUri().toString());
    Engine engine = KernelEngines.engine(KernelEngines.hadoopConf(config));
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      for (TableKind kind : List.of(TableKind.SILVER_MEMORIES, TableKind.GOLD_LINEAGE)) {
        TableId table = TableId.of("t", kind);
        int[] sizes =
            kind == TableKind.SILVER_MEMORIES ? new int[] {60, 240} : new int[] {300, 1200};
        for (int count : sizes) {
          List<TableRow> rows = ParquetWriterParityITCase.rows(LakeSchemas.of(kind), count, count);
          List<DataFile> files = client.writeDataFiles(table, rows);
          assertThat(files).hasSize(1);
          DataFile file = files.get(0);
          String path = client.tablePath(table) + "/" + file.relativePath();
          Read columns = () -> client.readDataFile(table, file);
          Read kernels =
              () -> {
                engine.getFileSystemClient().getFileStatus(path);
                return ParquetRows.read(
                    engine, kind, FileStatus.of(path, file.sizeBytes(), file.modificationTime()));
              };
          assertThat(columns.run()).isEqualTo(rows);
          assertThat(kernels.run()).isEqualTo(rows);
          msPer(columns, count, READS / 2); // warm-up
          msPer(kernels, count, READS / 2);
          for (int round = 1; round <= 3; round++) {
            double ours = msPer(columns, count, READS);
            double before = msPer(kernels, count, READS);
            System.out.printf(
                Locale.ROOT,
                "  %s, %d rows, %,d bytes, round %d: column reader %.3f ms, Kernel's reader %.3f"
                    + " ms, ratio %.2f%n",
                kind.path(),
                count,
                file.sizeBytes(),
                round,
                ours,
                before,
                ours / before);
          }
        }
      }
    }
  }

  @FunctionalInterface
  private interface Read {
    List<TableRow> run() throws Exception;
  }

  /** Milliseconds per read, each checked to return every row. */
  private static double msPer(Read read, int rows, int n) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      assertThat(read.run()).hasSize(rows);
    }
    return (System.nanoTime() - start) / 1e6 / n;
  }
}
