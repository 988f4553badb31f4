package org.oml.lakewriter.bench;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.compact.TableCompactor;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.kernel.KernelTableReader;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * Table open time (issue 14): a table of {@code --commits} (default 1,000) one-row commits, written
 * with a log checkpoint every {@code --interval} commits (default: the writer's, {@link
 * LakeConfig#DEFAULT_LOG_CHECKPOINT_INTERVAL}), opened by a fresh Kernel engine (latest snapshot
 * load plus scan setup: the list of live files), in four variants made from the same table:
 *
 * <ul>
 *   <li><b>baseline</b>: no log checkpoint, no compaction (the checkpoints the writer made are
 *       deleted, with {@code _last_checkpoint}): every commit file is replayed;
 *   <li><b>checkpoints</b>: as the writer leaves it (a checkpoint every {@code --interval}
 *       commits: {@code --commits 1099 --interval 100} leaves a reader 99 commit files to replay,
 *       the most it can have at that interval);
 *   <li><b>compaction</b>: the 1,000 data files compacted into one, no checkpoint;
 *   <li><b>checkpoints+compaction</b>: compacted, then a checkpoint of the compacted version.
 * </ul>
 *
 * <p>Next to the open, each round reads every row of each variant with {@link LakeReader} (an
 * independent reader, fresh each time), which is where the number of data files shows.
 *
 * <p>The variants are measured round-robin in the same run (warm-up rounds first) and reported as
 * medians and as ratios against the baseline's median. Not a test: a {@code main}.
 */
public final class TableOpenBenchmark {
  private TableOpenBenchmark() {}

  public static void main(String[] args) throws Exception {
    int commits = 1000;
    int interval = LakeConfig.DEFAULT_LOG_CHECKPOINT_INTERVAL;
    int rounds = 15;
    int warmup = 5;
    Path out = Path.of("tests", "target", "bench", "table-open");
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--commits" -> commits = Integer.parseInt(v);
        case "--interval" -> interval = Integer.parseInt(v);
        case "--rounds" -> rounds = Integer.parseInt(v);
        case "--warmup" -> warmup = Integer.parseInt(v);
        case "--out" -> out = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    deleteTree(out);
    Files.createDirectories(out);
    TableId table = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    long built = System.nanoTime();
    Path source = out.resolve("checkpoints");
    build(source, table, commits, interval);
    System.out.printf(
        "built %d commits (log checkpoint interval %d) in %.1f s%n",
        commits, interval, (System.nanoTime() - built) / 1e9);

    Map<String, Path> variants = new LinkedHashMap<>();
    variants.put("baseline", copy(source, out.resolve("baseline")));
    dropCheckpoints(variants.get("baseline").resolve(table.relativePath()));
    variants.put("checkpoints", source);
    Path compacted = copy(source, out.resolve("compaction"));
    compact(compacted, table, false);
    dropCheckpoints(compacted.resolve(table.relativePath()));
    variants.put("compaction", compacted);
    Path both = copy(source, out.resolve("checkpoints+compaction"));
    compact(both, table, true);
    variants.put("checkpoints+compaction", both);

    Map<String, List<Double>> times = new LinkedHashMap<>();
    Map<String, Integer> files = new LinkedHashMap<>();
    Map<String, List<Double>> reads = new LinkedHashMap<>();
    variants.keySet().forEach(k -> times.put(k, new ArrayList<>()));
    variants.keySet().forEach(k -> reads.put(k, new ArrayList<>()));
    for (int round = 0; round < warmup + rounds; round++) {
      for (Map.Entry<String, Path> variant : variants.entrySet()) {
        String path = variant.getValue().resolve(table.relativePath()).toUri().toString();
        long start = System.nanoTime();
        int live = open(path);
        double ms = (System.nanoTime() - start) / 1e6;
        files.put(variant.getKey(), live);
        start = System.nanoTime();
        int rows =
            LakeReader.open(LakeConfig.of(variant.getValue().toUri().toString())).rows(table).size();
        double readMs = (System.nanoTime() - start) / 1e6;
        if (rows != commits) {
          throw new IllegalStateException(variant.getKey() + " reads " + rows + " rows");
        }
        if (round >= warmup) {
          times.get(variant.getKey()).add(ms);
          reads.get(variant.getKey()).add(readMs);
        }
      }
    }
    double base = median(times.get("baseline"));
    double readBase = median(reads.get("baseline"));
    StringBuilder report = new StringBuilder();
    report.append(
        String.format(
            "table open (latest snapshot load + scan files), %d commits, log checkpoint interval"
                + " %d, %d rounds after %d warm-up, fresh engine each time%n%n",
            commits, interval, rounds, warmup));
    report.append(
        "| variant | live files | log files | open median ms | open p90 ms | open ratio to"
            + " baseline | read all rows median ms | read ratio to baseline |\n");
    report.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Map.Entry<String, List<Double>> entry : times.entrySet()) {
      Path log = variants.get(entry.getKey()).resolve(table.relativePath()).resolve("_delta_log");
      report.append(
          String.format(
              "| %s | %d | %d | %.1f | %.1f | %.3f | %.1f | %.3f |%n",
              entry.getKey(),
              files.get(entry.getKey()),
              logFiles(log),
              median(entry.getValue()),
              percentile(entry.getValue(), 0.9),
              median(entry.getValue()) / base,
              median(reads.get(entry.getKey())),
              median(reads.get(entry.getKey())) / readBase));
    }
    System.out.print(report);
    Files.writeString(out.resolve("report.md"), report.toString());
  }

  private static void build(Path lake, TableId table, int commits, int interval)
      throws IOException {
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(
            LakeConfig.of(lake.toUri().toString()).withLogCheckpointInterval(interval))) {
      for (int i = 1; i <= commits; i++) {
        client.commit(table, i, client.writeDataFiles(table, List.of(row(i))));
      }
    }
  }

  private static void compact(Path lake, TableId table, boolean checkpoint) throws IOException {
    CompactionPolicy policy =
        new CompactionPolicy(true, 2, 1L << 30, 1L << 30, Duration.ofMinutes(10));
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(lake.toUri().toString()))) {
      TableCompactor.Result result =
          new TableCompactor(client, policy, CompactionGuard.unshared())
              .compact(table, TableCompactor.IoCheck.NONE);
      System.out.println("compacted " + lake.getFileName() + ": " + result);
      if (checkpoint) {
        client.checkpoint(table);
      }
    }
  }

  /** Loads the latest snapshot with a fresh engine and lists its live files. */
  private static int open(String path) throws IOException {
    Engine engine = DefaultEngine.create(new Configuration());
    return liveFiles(TableManager.loadSnapshot(path).build(engine), engine);
  }

  /**
   * The number of live files: the log replay after the checkpoint (also {@link
   * ObjectStoreOpenBenchmark}'s).
   */
  static int liveFiles(Snapshot snapshot, Engine engine) throws IOException {
    int[] live = {0};
    KernelTableReader.forEachLiveFile(snapshot, engine, file -> live[0]++);
    return live[0];
  }

  /** A bronze journal row of {@code seq} (also {@link ObjectStoreWriteBenchmark}'s). */
  static TableRow row(long seq) {
    return TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, seq)
        .set("artifact_id", "a" + seq)
        .set("version", 1L)
        .set("kind", "journal")
        .set("tenant_id", "acme")
        .set("event_time", 1_700_000_000_000_000L + seq)
        .build();
  }

  private static void dropCheckpoints(Path table) throws IOException {
    try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.contains(".checkpoint.") || name.equals("_last_checkpoint")) {
          Files.delete(f);
        }
      }
    }
  }

  private static long logFiles(Path log) throws IOException {
    try (Stream<Path> files = Files.list(log)) {
      return files.filter(p -> !p.getFileName().toString().endsWith(".crc")).count();
    }
  }

  private static Path copy(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    return to;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The median of {@code values}, as {@link #percentile} gives it. */
  static double median(List<Double> values) {
    return percentile(values, 0.5);
  }

  /** The {@code q} quantile of {@code values}: the nearest rank, rounding half up. */
  static double percentile(List<Double> values, double q) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(q * (sorted.size() - 1) + 0.5)));
  }
}
