package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/**
 * The copy-on-write's read of a data file back into rows ({@link ParquetRows}) against the way it
 * read them before: string columns through the vector's {@code getString} (a {@code
 * CharsetDecoder} per value) and every value set by column name, a body copied once more. The same
 * silver files (random ids and digests, 1 KiB bodies) are read both ways in alternating rounds in
 * one JVM, and both must give the same rows. Excluded from the default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=ParquetReadBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.rows=5000 -Dbench.files=8 -Dbench.rounds=5]
 * </pre>
 */
@Tag("benchmark")
class ParquetReadBenchmark {
  private static final int ROWS = Integer.getInteger("bench.rows", 5_000);
  private static final int FILES = Integer.getInteger("bench.files", 8);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
  private static final TableKind KIND = TableKind.SILVER_MEMORIES;

  @Test
  void bytesDecodedByStringVersusTheVectorsGetString() throws Exception {
    Path dir = Files.createTempDirectory("parquet-read-bench");
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of(dir.toUri().toString()));
    Engine engine = KernelEngines.engine(conf);
    LakeSchemas.TableSchema schema = LakeSchemas.of(KIND);
    List<TableRow> rows = ParquetWriterBenchmark.silverRows(schema, ROWS);
    List<FileStatus> files = new ArrayList<>();
    SharedConfParquetWriter writer = new SharedConfParquetWriter(conf, new HadoopFileIO(conf));
    for (int f = 0; f < FILES; f++) {
      for (DataFileStatus written :
          writer.write(
              dir.toString(), KernelSchemas.structOf(KIND), rows, List.of(new Column("seq")))) {
        files.add(written);
      }
    }
    assertThat(ParquetRows.read(engine, KIND, files.get(0))).isEqualTo(rows);
    assertThat(readAsBefore(engine, schema, files.get(0))).isEqualTo(rows);
    System.out.printf(
        Locale.ROOT,
        "%nParquetReadBenchmark: %d silver files x %d rows, %d rounds after a warm-up%n",
        FILES,
        ROWS,
        ROUNDS);
    for (int round = 0; round <= ROUNDS; round++) {
      long before = 0;
      long after = 0;
      for (FileStatus file : files) {
        long start = System.nanoTime();
        readAsBefore(engine, schema, file);
        before += System.nanoTime() - start;
        start = System.nanoTime();
        ParquetRows.read(engine, KIND, file);
        after += System.nanoTime() - start;
      }
      if (round > 0) { // round 0 warms up
        double rowsRead = (double) FILES * ROWS;
        System.out.printf(
            Locale.ROOT,
            "  round %d: getString and set by name %.2f us/row, UTF-8 bytes decoded by String"
                + " %.2f us/row, ratio %.2f%n",
            round,
            before / 1e3 / rowsRead,
            after / 1e3 / rowsRead,
            (double) before / after);
      }
    }
  }

  /** The read as {@link ParquetRows} made it before: the baseline. */
  private static List<TableRow> readAsBefore(
      Engine engine, LakeSchemas.TableSchema schema, FileStatus file) throws Exception {
    List<TableRow> rows = new ArrayList<>();
    try (CloseableIterator<FileReadResult> results =
        engine
            .getParquetHandler()
            .readParquetFiles(
                KernelEngines.iterator(List.of(file)),
                KernelSchemas.structOf(KIND),
                Optional.empty())) {
      while (results.hasNext()) {
        ColumnarBatch batch = results.next().getData();
        int seqColumn = schema.indexOf("seq");
        for (int row = 0; row < batch.getSize(); row++) {
          TableRow.Builder builder =
              TableRow.builder(schema, batch.getColumnVector(seqColumn).getLong(row));
          for (int col = 0; col < schema.columns().size(); col++) {
            if (col != seqColumn) {
              LakeSchemas.Column column = schema.columns().get(col);
              builder.set(column.name(), valueAt(column, batch.getColumnVector(col), row));
            }
          }
          rows.add(builder.build());
        }
      }
    }
    return rows;
  }

  private static Object valueAt(LakeSchemas.Column column, ColumnVector vector, int row) {
    if (vector.isNullAt(row)) {
      return null;
    }
    return switch (column.type()) {
      case STRING -> vector.getString(row);
      case LONG, TIMESTAMP -> vector.getLong(row);
      case INT -> vector.getInt(row);
      case BINARY -> vector.getBinary(row);
    };
  }
}
