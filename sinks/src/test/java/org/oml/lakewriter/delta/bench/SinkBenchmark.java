package org.oml.lakewriter.delta.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.LiveSink;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Writer + committer throughput and commit latency on a local lake, next to a baseline that writes
 * the same batches to Parquet through the same writer but commits nothing. Excluded from the
 * default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=SinkBenchmark -Dsinks.excludedGroups=none \
 *     [-Dbench.batches=200 -Dbench.rows=500 -Dbench.tenants=4 -Dbench.commit-parallelism=1 \
 *      -Dbench.retract-percent=0]
 * </pre>
 */
@Tag("benchmark")
class SinkBenchmark {
  private static final int BATCHES = Integer.getInteger("bench.batches", 200);
  private static final int ROWS = Integer.getInteger("bench.rows", 500);
  private static final int TENANTS = Integer.getInteger("bench.tenants", 4);
  /** Tenants committed at once ({@code sink.commit-parallelism}); 1 as the committer's default. */
  private static final int COMMIT_PARALLELISM = Integer.getInteger("bench.commit-parallelism", 1);
  /** Rows that demote an earlier promotion, in percent; 0: appends only. */
  private static final int RETRACT_PERCENT = Integer.getInteger("bench.retract-percent", 0);

  @Test
  void deltaCommitVersusParquetOnly() throws Exception {
    List<Batch> batches = batches(BATCHES, ROWS, TENANTS);
    run(batches.subList(0, Math.min(20, BATCHES)), true); // warm-up: JIT, Hadoop, Kernel
    run(batches.subList(0, Math.min(20, BATCHES)), false);

    Result baseline = run(batches, false);
    Result delta = run(batches, true);

    long rows = (long) BATCHES * ROWS;
    System.out.printf(
        Locale.ROOT,
        "%nSinkBenchmark: %d batches x %d rows, %d tenants (%d tables touched per batch)%n",
        BATCHES,
        ROWS,
        TENANTS,
        delta.tablesPerBatch);
    System.out.printf(
        Locale.ROOT,
        "  baseline (Parquet only): %8.0f rows/s  %6.2f s%n",
        rows / baseline.seconds,
        baseline.seconds);
    System.out.printf(
        Locale.ROOT,
        "  writer + Delta commit:   %8.0f rows/s  %6.2f s%n",
        rows / delta.seconds,
        delta.seconds);
    System.out.printf(
        Locale.ROOT,
        "  throughput ratio (delta / baseline): %.2f%n",
        baseline.seconds / delta.seconds);
    System.out.printf(
        Locale.ROOT,
        "  commit latency per table: mean %.1f ms, p50 %.1f ms, p99 %.1f ms, max %.1f ms"
            + " (%d commits)%n",
        delta.commitMillis.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
        Percentile.of(delta.commitMillis, 50),
        Percentile.of(delta.commitMillis, 99),
        Percentile.of(delta.commitMillis, 100),
        delta.commitMillis.size());
    System.out.printf(
        Locale.ROOT, "  files per batch: %.2f (data files, all tables)%n%n", delta.filesPerBatch);
  }

  /** Writes each batch and, with {@code commit}, commits it as its own checkpoint. */
  private static Result run(List<Batch> batches, boolean commit) throws Exception {
    Path dir = Files.createTempDirectory("sink-bench");
    LakeConfig lake = SinkDriver.lake(dir);
    TimingClient client = new TimingClient(new KernelDeltaTableClient(lake));
    DeltaSinkWriter writer =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC());
    DeltaCommitter committer = LiveSink.committer(client, COMMIT_PARALLELISM, null);
    long files = 0;
    long tables = 0;
    long start = System.nanoTime();
    for (Batch batch : batches) {
      writer.write(batch, null);
      List<DeltaCommittable> ready = writer.prepareCommit();
      for (DeltaCommittable c : ready) {
        files += c.fileCount();
        tables += c.tables().size();
      }
      if (commit) {
        committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    writer.close();
    committer.close();
    return new Result(
        seconds, client.commitMillis, (double) files / batches.size(), tables / batches.size());
  }

  /**
   * One row in three a promotion, the rest journal events; with {@code bench.retract-percent} P,
   * P% of the rows instead demote a promotion of an earlier batch of the same tenant, drawn at
   * random (seeded), so that each batch's retractions rewrite the earlier files that hold them.
   */
  private static List<Batch> batches(int count, int rows, int tenants) {
    java.util.Random random = new java.util.Random(42);
    List<List<Long>> promoted = new ArrayList<>();
    for (int t = 0; t < tenants; t++) {
      promoted.add(new ArrayList<>());
    }
    List<Batch> batches = new ArrayList<>();
    long seq = 0;
    for (int b = 0; b < count; b++) {
      long from = seq;
      List<OutboxEvent> events = new ArrayList<>();
      List<List<Long>> earlier = new ArrayList<>();
      promoted.forEach(p -> earlier.add(List.copyOf(p)));
      for (int r = 0; r < rows; r++) {
        seq++;
        int t = (int) (seq % tenants);
        String tenant = "tenant-" + t;
        if (random.nextInt(100) < RETRACT_PERCENT && !earlier.get(t).isEmpty()) {
          long target = earlier.get(t).get(random.nextInt(earlier.get(t).size()));
          events.add(
              Events.retract(seq, tenant, EventKind.DEMOTE, "art-" + (target % 7), target));
        } else if (seq % 3 == 0) {
          events.add(Events.materialize(seq, tenant, "ciphertext-" + "x".repeat(400) + seq));
          promoted.get(t).add(seq);
        } else {
          events.add(Events.journal(seq, tenant));
        }
      }
      batches.add(new Batch(from, seq, events));
    }
    return batches;
  }

  private record Result(
      double seconds, List<Double> commitMillis, double filesPerBatch, long tablesPerBatch) {}

  /** Times each table commit, the latency the committer adds per table per batch. */
  private static final class TimingClient extends ForwardingDeltaTableClient {
    final List<Double> commitMillis = Collections.synchronizedList(new ArrayList<>());

    TimingClient(DeltaTableClient delegate) {
      super(delegate);
    }

    @Override
    public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
        throws IOException {
      return commitRewrite(table, batchEnd, files, null);
    }

    @Override
    public CommitOutcome commitRewrite(
        TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
      long start = System.nanoTime();
      CommitOutcome outcome =
          rewrite == null
              ? delegate.commit(table, batchEnd, files)
              : delegate.commitRewrite(table, batchEnd, files, rewrite);
      commitMillis.add((System.nanoTime() - start) / 1e6);
      return outcome;
    }
  }
}
