package org.oml.lakewriter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.it.support.S3ProxyServer;

/**
 * Object-store requests and time per data file written ({@code KernelDeltaTableClient
 * .writeDataFiles}, no commit) on an S3-compatible server ({@link S3ProxyServer}, local, so the
 * times are a floor: a real store adds its latency to each request). Counts come from S3A's own
 * statistics of the file system the writer uses; run it on two builds to compare them. Not a
 * test: a {@code main}.
 *
 * <pre>
 * java -cp ... org.oml.lakewriter.bench.ObjectStoreWriteBenchmark --files 200 --rows 200
 * </pre>
 */
public final class ObjectStoreWriteBenchmark {
  private ObjectStoreWriteBenchmark() {}

  public static void main(String[] args) throws Exception {
    int files = 200;
    int rows = 200;
    int tables = 8;
    int rounds = 3;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--files" -> files = Integer.parseInt(args[++i]);
        case "--rows" -> rows = Integer.parseInt(args[++i]);
        case "--tables" -> tables = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Path dir = Files.createTempDirectory("oml-s3-write-bench");
    try (S3ProxyServer server = S3ProxyServer.start(dir)) {
      server.createBucket("bench");
      LakeConfig config = new LakeConfig("s3a://bench/lake", server.s3aOptions());
      Configuration conf = KernelEngines.hadoopConf(config);
      FileSystem fs = new org.apache.hadoop.fs.Path("s3a://bench/").getFileSystem(conf);
      try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
        List<TableId> ids = new ArrayList<>();
        for (int t = 0; t < tables; t++) {
          ids.add(TableId.of("t" + t, TableKind.BRONZE_JOURNAL_EVENTS));
          client.writeDataFiles(ids.get(t), rows(0, rows)); // first sight: the table's set-up
        }
        System.out.printf(
            Locale.ROOT, "ObjectStoreWriteBenchmark: %d files of %d bronze rows over %d tables,"
                + " %d rounds, S3Proxy at %s%n", files, rows, tables, rounds, server.endpoint());
        long seq = rows;
        for (int round = 1; round <= rounds; round++) {
          Map<String, Long> before = counters(fs);
          long t0 = System.nanoTime();
          for (int f = 0; f < files; f++) {
            client.writeDataFiles(ids.get(f % tables), rows(seq, rows));
            seq += rows;
          }
          double ms = (System.nanoTime() - t0) / 1e6 / files;
          Map<String, Long> after = counters(fs);
          StringBuilder perFile = new StringBuilder();
          for (String name : after.keySet()) {
            long delta = after.get(name) - before.getOrDefault(name, 0L);
            if (delta != 0 && (name.endsWith("_request") || name.equals("stream_read_opened"))) {
              perFile.append(String.format(Locale.ROOT, " %s %.2f", name, (double) delta / files));
            }
          }
          System.out.printf(Locale.ROOT, "  round %d: %.2f ms/file; per file:%s%n", round, ms,
              perFile);
        }
      }
    }
  }

  private static Map<String, Long> counters(FileSystem fs) {
    return new TreeMap<>(IOStatisticsSupport.retrieveIOStatistics(fs).counters());
  }

  private static List<TableRow> rows(long first, int count) {
    List<TableRow> out = new ArrayList<>(count);
    for (long seq = first + 1; seq <= first + count; seq++) {
      out.add(TableOpenBenchmark.row(seq));
    }
    return out;
  }
}
