package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

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
 * What a copy-on-write of one keyed file costs as the writer does it ({@code CopyOnWrite}: every
 * row read back into {@link TableRow}s, then written again by the shared writer with its
 * statistics), next to writing the same rows without reading them (the encoding alone, the same
 * writer). A retraction changes one row of such a file; deletion vectors would write none of it.
 * Excluded from the default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=RewriteCostBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.rewrites=200 -Dbench.silver-rows=200 -Dbench.lineage-rows=1500]
 * </pre>
 */
@Tag("benchmark")
class RewriteCostBenchmark {
  private static final int REWRITES = Integer.getInteger("bench.rewrites", 200);
  private static final int SILVER_ROWS = Integer.getInteger("bench.silver-rows", 200);
  private static final int LINEAGE_ROWS = Integer.getInteger("bench.lineage-rows", 1500);

  /** Removed afterwards: each run writes ~2,600 files of 200-340 KB. */
  @TempDir Path dir;

  @Test
  void aRewriteAsTheWriterDoesItVersusEncodingTheSameRows() throws Exception {
    System.out.printf(
        Locale.ROOT, "%nRewriteCostBenchmark: %d rewrites per kind, rounds alternating%n", REWRITES);
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(dir.toUri().toString()))) {
      for (TableKind kind : List.of(TableKind.SILVER_MEMORIES, TableKind.GOLD_LINEAGE)) {
        TableId table = TableId.of("t", kind);
        int count = kind == TableKind.SILVER_MEMORIES ? SILVER_ROWS : LINEAGE_ROWS;
        List<DataFile> files =
            client.writeDataFiles(
                table, ParquetWriterParityITCase.rows(LakeSchemas.of(kind), count, 1));
        assertThat(files).hasSize(1);
        DataFile file = files.get(0);
        List<TableRow> rows = client.readDataFile(table, file);
        assertThat(rows).hasSize(count);
        Write rewrite = () -> client.writeDataFiles(table, client.readDataFile(table, file));
        Write encode = () -> client.writeDataFiles(table, rows);
        msPer(rewrite, REWRITES / 4); // warm-up
        msPer(encode, REWRITES / 4);
        for (int round = 1; round <= 3; round++) {
          double rewriteMs = msPer(rewrite, REWRITES);
          double encodeMs = msPer(encode, REWRITES);
          System.out.printf(
              Locale.ROOT,
              "  %s, %d rows, %,d bytes, round %d: read and written again %.2f ms, written"
                  + " only %.2f ms, ratio %.2f%n",
              kind.path(),
              count,
              file.sizeBytes(),
              round,
              rewriteMs,
              encodeMs,
              rewriteMs / encodeMs);
        }
      }
    }
  }

  /** One file written: as {@code CopyOnWrite} rewrites it, or from rows already in memory. */
  @FunctionalInterface
  private interface Write {
    List<DataFile> run() throws Exception;
  }

  /** Milliseconds per write, each checked to make exactly one file. */
  private static double msPer(Write write, int n) throws Exception {
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      assertThat(write.run()).hasSize(1);
    }
    return (System.nanoTime() - start) / 1e6 / n;
  }
}
