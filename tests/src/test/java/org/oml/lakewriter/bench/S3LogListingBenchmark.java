package org.oml.lakewriter.bench;

import static org.oml.lakewriter.bench.TableOpenBenchmark.median;

import io.delta.storage.LogStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.delta.logstore.S3ConditionalLogStore;
import org.oml.lakewriter.it.s3.ListRequestCounter;
import org.oml.lakewriter.it.s3.WholeListingLogStore;
import org.oml.lakewriter.it.support.S3ProxyServer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What a {@code listFrom} of a log's last 20 entries costs on S3Proxy as the log grows (a table's
 * log keeps every commit file and checksum for {@code delta.logRetentionDuration}, 30 days):
 * Hadoop's listing of the whole directory (the baseline, the inherited {@code listFrom}) against
 * {@link S3ConditionalLogStore}'s start-after LIST, alternating in one run. S3Proxy is local, so
 * the times are a floor; the LIST requests are what a real store's round trips multiply. Not a
 * test: a {@code main}.
 *
 * <pre>
 * java -cp ... org.oml.lakewriter.bench.S3LogListingBenchmark --keys 1000,10000,40000 --rounds 7
 * </pre>
 */
public final class S3LogListingBenchmark {
  private S3LogListingBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = List.of(1_000, 10_000, 40_000);
    int rounds = 7;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--keys" ->
            sizes = List.of(args[++i].split(",")).stream().map(Integer::valueOf).toList();
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    try (S3ProxyServer server = S3ProxyServer.start(Files.createTempDirectory("oml-s3-list"))) {
      server.createBucket("bench");
      Configuration conf =
          KernelEngines.hadoopConf(new LakeConfig("s3a://bench/lake", server.s3aOptions()));
      conf.set("fs.s3a.audit.execution.interceptors", ListRequestCounter.class.getName());
      LogStore startAfter = new S3ConditionalLogStore(conf);
      LogStore whole = new WholeListingLogStore(conf);
      System.out.printf(Locale.ROOT, "%nS3LogListingBenchmark: listFrom of the last 20 entries on"
          + " S3Proxy, median of %d rounds (after 2 warm-up), alternating%n%n"
          + "| keys in _delta_log | whole listing ms | LISTs | start-after ms | LISTs | ratio |%n"
          + "| ---: | ---: | ---: | ---: | ---: | ---: |%n", rounds);
      for (int keys : sizes) {
        String log = "t" + keys + "/_delta_log/";
        fill(server, log, keys);
        Path from = new Path("s3a://bench/" + log + String.format("%020d.", keys / 2 - 10));
        List<Double> wholeMs = new ArrayList<>();
        List<Double> startMs = new ArrayList<>();
        int[] lists = new int[2];
        for (int round = 0; round < rounds + 2; round++) {
          for (int s = 0; s < 2; s++) {
            int before = ListRequestCounter.LISTS.get();
            long t0 = System.nanoTime();
            int n = count((s == 0 ? whole : startAfter).listFrom(from, conf));
            double ms = (System.nanoTime() - t0) / 1e6;
            if (n != 20) {
              throw new IllegalStateException("listed " + n + " entries, not 20");
            }
            lists[s] = ListRequestCounter.LISTS.get() - before;
            if (round >= 2) {
              (s == 0 ? wholeMs : startMs).add(ms);
            }
          }
        }
        double w = median(wholeMs);
        double a = median(startMs);
        System.out.printf(Locale.ROOT, "| %,d | %.1f | %d | %.1f | %d | %.3f |%n",
            keys, w, lists[0], a, lists[1], a / w);
      }
    }
  }

  /** {@code keys} commit files and checksums ({@code keys / 2} versions), four PUTs at a time. */
  private static void fill(S3ProxyServer server, String log, int keys) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (S3Client s3 = server.client()) {
      List<Future<?>> puts = new ArrayList<>();
      for (int v = 0; v < keys / 2; v++) {
        for (String ext : List.of("json", "crc")) {
          String key = log + String.format("%020d.%s", v, ext);
          puts.add(pool.submit(
              () -> s3.putObject(b -> b.bucket("bench").key(key), RequestBody.fromString("{}"))));
        }
      }
      for (Future<?> put : puts) {
        put.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static int count(Iterator<FileStatus> statuses) {
    int n = 0;
    for (; statuses.hasNext(); statuses.next()) {
      n++;
    }
    return n;
  }

}
