package org.oml.lakewriter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.io.FileUtils;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * A floor for the lake writer's own CPU, measured in the same run: what it costs to encode the
 * rows a drain left in the lake once, as they are (every live row of every table, one Parquet file
 * per table, written by the writer's own {@link KernelDeltaTableClient#writeDataFiles}), with no
 * Flink, no cut, no MERGE, no rewrite and no commit. Any writer of the same lake does at least
 * this much; the gap between it and B5 - B2 is what the pipeline adds around the encoding.
 */
final class EncodeFloor {
  static final int WARM_PASSES = 2;
  private static final int PASSES = 3;

  private EncodeFloor() {}

  /**
   * @param rows live rows read back from the lake, in all tables
   * @param tables the lake's tables
   * @param cpuSeconds the JVM's CPU seconds per pass, after the warm passes
   */
  record Result(long rows, int tables, List<Double> cpuSeconds) {
    /** CPU µs per outbox row, median and range of the passes. */
    Report.Stat perOutboxRow(long outboxRows) {
      return Report.Stat.ofValues(cpuSeconds.stream().map(s -> s * 1e6 / outboxRows).toList());
    }
  }

  /** Reads every live row of the lake under {@code lakeDir}, then encodes them again, timed. */
  static Result measure(Path lakeDir) throws Exception {
    LakeConfig lake = LakeConfig.of(lakeDir.toUri().toString());
    Map<TableId, List<TableRow>> rows = new LinkedHashMap<>();
    long total = 0;
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      LakeReader reader = LakeReader.open(lake);
      for (TableId table : reader.tables()) {
        List<TableRow> all = new ArrayList<>();
        for (String path : reader.filePaths(table)) {
          long size = Files.size(lakeDir.resolve(table.relativePath()).resolve(path));
          all.addAll(client.readDataFile(table, new DataFile(path, size, 0, null)));
        }
        rows.put(table, all);
        total += all.size();
      }
    }
    Path scratch = Files.createTempDirectory("oml-encode-floor");
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(scratch.toUri().toString()))) {
      List<Double> cpu = new ArrayList<>();
      for (int pass = 0; pass < WARM_PASSES + PASSES; pass++) {
        double cpu0 = Probe.jvmCpuSeconds();
        for (Map.Entry<TableId, List<TableRow>> e : rows.entrySet()) {
          client.writeDataFiles(e.getKey(), e.getValue());
        }
        if (pass >= WARM_PASSES) {
          cpu.add(Probe.jvmCpuSeconds() - cpu0);
        }
      }
      return new Result(total, rows.size(), cpu);
    } finally {
      FileUtils.deleteDirectory(scratch.toFile());
    }
  }
}
