package org.oml.lakewriter.bench;

import static org.oml.lakewriter.bench.TableOpenBenchmark.median;
import static org.oml.lakewriter.bench.TableOpenBenchmark.percentile;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.net.URI;
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
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.it.support.S3ProxyServer;

/**
 * What a cold open of a table costs on object storage at each log checkpoint and log compaction
 * interval: the
 * requests and the time of a latest-snapshot load and its list of live files by a fresh Kernel engine on a fresh S3A
 * filesystem (new connections, nothing cached), as a reader, a restarted writer's first commit
 * to a table, or {@code lakewriter status} pays it. Each {@code --variants} entry {@code n:c[:b]} is a table
 * written at log checkpoint interval {@code n} and log compaction interval {@code c} (0: none),
 * with {@code n + b} one-row commits, so that its log ends {@code b} commits (default {@code n -
 * 1}, the most at that interval) after its last checkpoint. The opens alternate between the
 * tables, round after round, in one run; S3Proxy is local, so the times are a floor and the
 * request counts are what a real store's round trips multiply. Not a test: a {@code main}.
 *
 * <pre>
 * java -cp ... org.oml.lakewriter.bench.ObjectStoreOpenBenchmark --variants 10:0,100:0,100:10 \
 *     --rounds 15
 * </pre>
 */
public final class ObjectStoreOpenBenchmark {
  private ObjectStoreOpenBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> variants = List.of("10:0", "100:0", "100:10");
    int rounds = 15;
    int warmup = 3;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--variants" -> variants = List.of(args[++i].split(","));
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Path dir = Files.createTempDirectory("oml-s3-open-bench");
    try (S3ProxyServer server = S3ProxyServer.start(dir)) {
      server.createBucket("bench");
      TableId table = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
      List<String> paths = new ArrayList<>();
      List<Integer> commits = new ArrayList<>();
      Configuration conf = null;
      for (String variant : variants) {
        String[] v = variant.split(":");
        int interval = Integer.parseInt(v[0]);
        int behind = v.length > 2 ? Integer.parseInt(v[2]) : interval - 1;
        LakeConfig lake =
            new LakeConfig("s3a://bench/variant-" + variant.replace(':', '-'), server.s3aOptions())
                .withLogCheckpointInterval(interval)
                .withLogCompactionInterval(Integer.parseInt(v[1]));
        conf = KernelEngines.hadoopConf(lake);
        long t0 = System.nanoTime();
        try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
          for (int seq = 1; seq <= interval + behind; seq++) {
            client.commit(
                table, seq, client.writeDataFiles(table, List.of(TableOpenBenchmark.row(seq))));
          }
        }
        paths.add(lake.lakeRoot() + "/" + table.relativePath());
        commits.add(interval + behind);
        System.out.printf(
            Locale.ROOT, "built %s: %d commits in %.1f s%n",
            paths.get(paths.size() - 1), interval + behind, (System.nanoTime() - t0) / 1e9);
      }
      Map<String, List<Double>> millis = new TreeMap<>();
      Map<String, Map<String, Long>> requests = new TreeMap<>();
      for (int round = 0; round < warmup + rounds; round++) {
        for (int t = 0; t < variants.size(); t++) {
          FileSystem.closeAll(); // the next open makes a new S3A filesystem: new connections
          FileSystem fs = FileSystem.get(URI.create(paths.get(t)), conf);
          Map<String, Long> before = counters(fs);
          long start = System.nanoTime();
          Engine engine = DefaultEngine.create(conf);
          Snapshot snapshot = TableManager.loadSnapshot(paths.get(t)).build(engine);
          int live = TableOpenBenchmark.liveFiles(snapshot, engine);
          double ms = (System.nanoTime() - start) / 1e6;
          if (live != commits.get(t)) {
            throw new IllegalStateException(paths.get(t) + " has " + live + " live files");
          }
          if (round >= warmup) {
            millis.computeIfAbsent(variants.get(t), k -> new ArrayList<>()).add(ms);
            Map<String, Long> after = counters(fs);
            Map<String, Long> delta = new TreeMap<>();
            after.forEach((name, v) -> {
              long d = v - before.getOrDefault(name, 0L);
              if (d != 0 && (name.endsWith("_request") || name.equals("stream_read_opened"))) {
                delta.put(name, d);
              }
            });
            requests.put(variants.get(t), delta);
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%nObjectStoreOpenBenchmark: cold latest-snapshot load and live-file list on S3Proxy, %d rounds after %d"
              + " warm-up%n%n| checkpoint:compaction interval | commits | requests per open"
              + " | open median ms | open p90 ms | median ratio to %s |%n"
              + "| --- | ---: | --- | ---: | ---: | ---: |%n",
          rounds, warmup, variants.get(0));
      double base = median(millis.get(variants.get(0)));
      for (int t = 0; t < variants.size(); t++) {
        List<Double> ms = millis.get(variants.get(t));
        System.out.printf(
            Locale.ROOT, "| %s | %d | %s | %.1f | %.1f | %.2f |%n",
            variants.get(t), commits.get(t), requests.get(variants.get(t)), median(ms),
            percentile(ms, 0.9), median(ms) / base);
      }
    }
  }

  private static Map<String, Long> counters(FileSystem fs) {
    return new TreeMap<>(IOStatisticsSupport.retrieveIOStatistics(fs).counters());
  }

}
