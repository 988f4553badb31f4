package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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
 * row read back into {@link TableRow}s, one row retracted, and the file written again with its
 * statistics): read and written whole by the shared writer, as before stop 51, and as the writer
 * does it since (silver: only the columns a retraction reads; the unchanged column chunks copied
 * from the old file, {@link KernelDeltaTableClient#rewriteDataFile}); next to writing the same rows
 * without reading them (the encoding alone, the same writer). A retraction changes one row of such
 * a file; deletion vectors would write none of it.
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
        // What a retraction changes: silver's state, lineage's retractions, and the seq.
        String column = kind == TableKind.SILVER_MEMORIES ? "state" : "retractions";
        Write whole =
            () ->
                client.writeDataFiles(
                    table, retracted(kind, client.readDataFile(table, file), column));
        Set<String> read =
            kind == TableKind.SILVER_MEMORIES
                ? Set.of("artifact_id", "version", "seq", "state", "workarea_id")
                : null;
        Write copied =
            () -> {
              List<TableRow> before =
                  read == null
                      ? client.readDataFile(table, file)
                      : client.readDataFile(table, file, read);
              return client
                  .rewriteDataFile(table, file, before, retracted(kind, before, column))
                  .orElseThrow();
            };
        Write encode = () -> client.writeDataFiles(table, rows);
        msPer(whole, REWRITES / 4); // warm-up
        msPer(copied, REWRITES / 4);
        msPer(encode, REWRITES / 4);
        for (int round = 1; round <= 3; round++) {
          double wholeMs = msPer(whole, REWRITES);
          double copiedMs = msPer(copied, REWRITES);
          double encodeMs = msPer(encode, REWRITES);
          System.out.printf(
              Locale.ROOT,
              "  %s, %d rows, %,d bytes, round %d: read and written whole %.2f ms, read and"
                  + " unchanged columns copied %.2f ms (ratio %.2f), written only %.2f ms%n",
              kind.path(),
              count,
              file.sizeBytes(),
              round,
              wholeMs,
              copiedMs,
              copiedMs / wholeMs,
              encodeMs);
        }
        assertThat(client.columnChunkRewrites()).isPositive();
      }
    }
  }

  /** The rows with one of them retracted: {@code column} and the seq changed. */
  private static List<TableRow> retracted(TableKind kind, List<TableRow> rows, String column) {
    List<TableRow> after = new ArrayList<>(rows);
    TableRow row = rows.get(rows.size() / 2);
    after.set(
        rows.size() / 2,
        row.toBuilder(LakeSchemas.of(kind), row.seq() + 1).set(column, "demoted").build());
    return after;
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
