package org.oml.lakewriter.delta.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.compact.TableCompactor;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * What the job's own compaction costs the writer's key index on an aged silver table: {@code
 * bench.files} large files of {@code bench.rowsPerFile} promotions (left alone by compaction),
 * then rounds of one unit each (a retraction of an earlier artifact and promotions) committed by a
 * committer, with a compaction of the table's small files every {@code bench.compactEvery} rounds,
 * as the committer makes it. The same rounds run on two copies of the same table, alternating:
 * the writer's index following the compactions from the log, and (the baseline) a client that
 * cannot read the log, which rebuilds the index from the whole table after each compaction, as
 * before. Reports the writer's time per round and the key-index reads. Excluded from the default
 * build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=CompactionIndexBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.files=50 -Dbench.rowsPerFile=2000 -Dbench.rounds=64 -Dbench.repeat=2]
 * </pre>
 */
@Tag("benchmark")
class CompactionIndexBenchmark {
  private static final int FILES = Integer.getInteger("bench.files", 50);
  private static final int ROWS_PER_FILE = Integer.getInteger("bench.rowsPerFile", 2000);
  private static final int BATCH = Integer.getInteger("bench.batch", 50);
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 64);
  private static final int COMPACT_EVERY = Integer.getInteger("bench.compactEvery", 16);
  private static final int REPEAT = Integer.getInteger("bench.repeat", 2);
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);
  /** The fill's files are above the small-file size; a round's file is far below it. */
  private static final CompactionPolicy POLICY =
      new CompactionPolicy(true, COMPACT_EVERY, 256L << 10, 1L << 20, Duration.ofSeconds(10));

  private long seq;
  private long promoted;

  @Test
  void aCompactionCostsTheWriterTheFilesItWroteNotARebuild() throws Exception {
    Path filled = Files.createTempDirectory("compaction-index-bench");
    long fillStart = System.nanoTime();
    fill(filled);
    double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
    long afterFill = seq;
    long promotedAfterFill = promoted;
    System.out.printf(
        Locale.ROOT,
        "%nCompactionIndexBenchmark: silver table of %d files x %d rows (filled in %.1f s),"
            + " %d rounds of 1 retraction + %d promotions, a compaction every %d rounds%n",
        FILES,
        ROWS_PER_FILE,
        fillSeconds,
        ROUNDS,
        BATCH - 1,
        COMPACT_EVERY);
    List<Double> ratios = new ArrayList<>();
    for (int rep = 0; rep < REPEAT; rep++) {
      double[] total = new double[2];
      for (boolean followLog : new boolean[] {false, true}) {
        seq = afterFill;
        promoted = promotedAfterFill;
        Path copy = Files.createTempDirectory("compaction-index-bench-run");
        copyTree(filled, copy);
        Result r = rounds(copy, followLog);
        total[followLog ? 1 : 0] = r.totalMillis;
        System.out.printf(
            Locale.ROOT,
            "  rep %d %-34s writer per round p50 %6.1f ms, after a compaction p50 %7.1f ms (max"
                + " %7.1f), all rounds %7.0f ms; whole-table key reads %d, catch-ups %d%n",
            rep + 1,
            followLog ? "index follows the log:" : "baseline, rebuild after compaction:",
            Percentile.of(r.rounds, 50),
            Percentile.of(r.afterCompaction, 50),
            Percentile.of(r.afterCompaction, 100),
            r.totalMillis,
            r.wholeTableReads,
            r.catchUps);
      }
      ratios.add(total[0] / total[1]);
    }
    System.out.printf(
        Locale.ROOT,
        "  writer time of all rounds, baseline / following the log: %s%n%n",
        ratios.stream().map(x -> String.format(Locale.ROOT, "%.2f", x)).toList());
  }

  private record Result(
      List<Double> rounds,
      List<Double> afterCompaction,
      double totalMillis,
      int wholeTableReads,
      int catchUps) {}

  private Result rounds(Path dir, boolean followLog) throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    Counting client = new Counting(new KernelDeltaTableClient(lake), followLog);
    List<Double> rounds = new ArrayList<>();
    List<Double> afterCompaction = new ArrayList<>();
    Random random = new Random(7);
    try (DeltaSinkWriter writer = writer(client);
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE);
        KernelDeltaTableClient compactions = new KernelDeltaTableClient(lake)) {
      TableCompactor compactor = new TableCompactor(compactions, POLICY, new CompactionGuard());
      boolean compacted = false;
      for (int round = -1; round < ROUNDS; round++) { // round -1 builds the index, not reported
        List<OutboxEvent> events = new ArrayList<>();
        String retracted = RetractBenchmark.artifact(random.nextInt((int) promoted));
        events.add(Events.retract(++seq, TENANT, EventKind.DEMOTE, retracted, 1));
        events.addAll(promotions(BATCH - 1));
        long start = System.nanoTime();
        writer.write(new Batch(events.get(0).seq() - 1, seq, events), null);
        var ready = writer.prepareCommit();
        double millis = (System.nanoTime() - start) / 1e6;
        committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
        if (round >= 0) {
          rounds.add(millis);
          if (compacted) {
            afterCompaction.add(millis);
          }
        }
        compacted = round >= 0 && (round + 1) % COMPACT_EVERY == 0;
        if (compacted && !compactor.compact(SILVER, TableCompactor.IoCheck.NONE).compacted()) {
          throw new AssertionError("round " + round + ": nothing compacted");
        }
      }
    }
    double total = rounds.stream().mapToDouble(Double::doubleValue).sum();
    return new Result(rounds, afterCompaction, total, client.wholeTableReads, client.catchUps);
  }

  private void fill(Path dir) throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    try (DeltaSinkWriter writer = writer(new KernelDeltaTableClient(lake));
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE)) {
      for (int f = 0; f < FILES; f++) {
        List<OutboxEvent> events = promotions(ROWS_PER_FILE);
        writer.write(new Batch(events.get(0).seq() - 1, seq, events), null);
        List<DeltaCommittable> ready = writer.prepareCommit();
        committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
      }
    }
  }

  /** A writer of silver only (gold off), as the job's without a quarantine or compaction guard. */
  private static DeltaSinkWriter writer(DeltaTableClient client) {
    return new DeltaSinkWriter(
        client, Clock.systemUTC(), WriterSettings.defaults().withGold(false));
  }

  private List<OutboxEvent> promotions(int count) {
    List<OutboxEvent> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String id = RetractBenchmark.artifact(promoted++);
      events.add(Events.promote(++seq, TENANT, id, 1, "ciphertext-" + "x".repeat(400) + seq));
    }
    return events;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /**
   * Counts the key index's reads of the lake; with {@code followLog} false it reads no log, as a
   * client without {@link DeltaTableClient#commits} (the index then rebuilds, as before).
   */
  private static final class Counting extends ForwardingDeltaTableClient {
    private final boolean followLog;
    int wholeTableReads;
    int catchUps;

    Counting(DeltaTableClient delegate, boolean followLog) {
      super(delegate);
      this.followLog = followLog;
    }

    @Override
    public Optional<List<LogCommit>> commits(TableId table, long after, long upTo)
        throws IOException {
      return followLog ? delegate.commits(table, after, upTo) : Optional.empty();
    }

    @Override
    public Set<String> forEachKeyInLiveFiles(
        TableId table, Set<String> relativePaths, BiConsumer<String, ArtifactKey> keys)
        throws IOException {
      catchUps++;
      return delegate.forEachKeyInLiveFiles(table, relativePaths, keys);
    }

    @Override
    public SnapshotId forEachSilverKeyInFiles(
        TableId table,
        java.util.Map<String, List<ArtifactKey>> known,
        BiConsumer<String, ArtifactKey> keys)
        throws IOException {
      wholeTableReads++;
      return delegate.forEachSilverKeyInFiles(table, known, keys);
    }

    @Override
    public SnapshotId forEachSilverKey(TableId table, Consumer<ArtifactKey> keys)
        throws IOException {
      wholeTableReads++;
      return delegate.forEachSilverKey(table, keys);
    }
  }
}
