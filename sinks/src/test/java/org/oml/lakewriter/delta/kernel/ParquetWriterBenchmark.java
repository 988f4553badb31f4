package org.oml.lakewriter.delta.kernel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
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
