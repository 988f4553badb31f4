package org.oml.lakewriter.cut;

import java.util.Locale;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The cut's buffer on RocksDB, the cut before issue 12 ({@link LegacyBatchCutFunction}) against
 * the current one without its row cache ({@code cut.row-cache} 0) and with it (the default),
 * alternated in one JVM. Not a test (its name matches no surefire include); run it by hand:
 *
 * <pre>
 * mvn -o -pl operators test -Dtest=CutBufferBenchmark -Dcut.bench.rows=100000,1000000
 * </pre>
 *
 * <p>Two shapes per size N, default caps ({@code batch.max-rows} 10,000, 4 batches a turn):
 * <ul>
 *   <li>backlog: N rows buffered (a snapshot phase, a long-open transaction), then one horizon
 *       over all of them, the turns driven by their timers until the frontier reaches N;
 *   <li>stream: a horizon every 5,000 rows, with rows up to 2,000 above it already buffered.
 * </ul>
 */
@Tag("benchmark")
class CutBufferBenchmark {
  private static final int MAX_ROWS = 10_000;
  private static final int BODY_BYTES = 300;

  @Test
  void oldAgainstNew() throws Exception {
    String sizes = System.getProperty("cut.bench.rows", "100000");
    int rounds = Integer.getInteger("cut.bench.rounds", 2);
    for (String size : sizes.split(",")) {
      int n = Integer.parseInt(size.trim());
      for (int round = 1; round <= rounds; round++) {
        for (String shape : new String[] {"backlog", "stream"}) {
          double[] old = run(Variant.OLD, shape, n);
          double[] now = run(Variant.NEW, shape, n);
          double[] cached = run(Variant.CACHED, shape, n);
          double[] deferred = run(Variant.DEFERRED, shape, n);
          System.out.printf(
              Locale.ROOT,
              "CUTBENCH n=%d round=%d shape=%s | thread CPU ms buffer/cut: old %.0f/%.0f,"
                  + " new %.0f/%.0f, cached %.0f/%.0f | wall ms buffer/cut: old %.0f/%.0f,"
                  + " new %.0f/%.0f, cached %.0f/%.0f | CPU old/new: buffer %.2f cut %.2f"
                  + " total %.2f | CPU cached/new: cut %.2f total %.2f | deferred buffer/cut CPU"
                  + " ms %.0f/%.0f, wall ms %.0f/%.0f, CPU deferred/cached: buffer %.2f cut %.2f"
                  + " total %.2f%n",
              n, round, shape, old[2], old[3], now[2], now[3], cached[2], cached[3], old[0],
              old[1], now[0], now[1], cached[0], cached[1], old[2] / now[2], old[3] / now[3],
              (old[2] + old[3]) / (now[2] + now[3]), cached[3] / now[3],
              (cached[2] + cached[3]) / (now[2] + now[3]), deferred[2], deferred[3], deferred[0],
              deferred[1], deferred[2] / cached[2], deferred[3] / cached[3],
              (deferred[2] + deferred[3]) / (cached[2] + cached[3]));
        }
      }
    }
  }

  /**
   * The cut before issue 12; the current one without its row cache; with it, on a plain keyed
   * operator (every row written to state); with it on {@link CutOperator} (write-behind: no
   * checkpoint is taken here, so no row is written).
   */
  private enum Variant {
    OLD,
    NEW,
    CACHED,
    DEFERRED
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private static long cpu() {
    return THREADS.getCurrentThreadCpuTime();
  }

  /**
   * {buffer wall ms, cut wall ms, buffer CPU ms, cut CPU ms}; CPU is this thread's (the operator's
   * own work, RocksDB reads and writes included; its flushes and compactions run on threads of
   * their own), the measure that holds on a machine shared with other work.
   */
  private static double[] run(Variant variant, String shape, int n) throws Exception {
    KeyedProcessFunction<String, OutboxChange, Batch> function =
        switch (variant) {
          case OLD -> new LegacyBatchCutFunction(
              MAX_ROWS, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 4);
          case NEW -> new BatchCutFunction(
                  MAX_ROWS, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 4)
              .withRowCache(0);
          case CACHED, DEFERRED -> new BatchCutFunction(
              MAX_ROWS, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 4);
        };
    try (var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            variant == Variant.DEFERRED
                ? new CutOperator((BatchCutFunction) function)
                : new KeyedProcessOperator<>(function),
            (KeySelector<OutboxChange, String>) change -> "w1",
            Types.STRING)) {
      EmbeddedRocksDBStateBackend rocksdb = new EmbeddedRocksDBStateBackend();
      // The harness's mock environment has ~5 MiB of managed memory: RocksDB would flush its
      // memtable on almost every write. A job has far more; give RocksDB its own defaults.
      rocksdb.getMemoryConfiguration().setUseManagedMemory(false);
      harness.setStateBackend(rocksdb);
      harness.setup(
          StreamTypes.BATCH.createSerializer(harness.getExecutionConfig().getSerializerConfig()));
      harness.open();
      String body = "x".repeat(BODY_BYTES);
      long bufferNanos = 0;
      long cutNanos = 0;
      long bufferCpu = 0;
      long cutCpu = 0;
      long[] emitted = {0};
      long time = 0;
      if (shape.equals("backlog")) {
        long t0 = System.nanoTime();
        long c0 = cpu();
        for (long seq = 1; seq <= n; seq++) {
          harness.processElement(row(seq, body), ++time);
        }
        bufferNanos = System.nanoTime() - t0;
        bufferCpu = cpu() - c0;
        t0 = System.nanoTime();
        c0 = cpu();
        harness.processElement(new HorizonUpdate("w1", n, n, time, false), ++time);
        time = drain(harness, time, emitted, n);
        cutNanos = System.nanoTime() - t0;
        cutCpu = cpu() - c0;
      } else {
        long horizon = 0;
        for (long seq = 1; seq <= n; seq++) {
          long t0 = System.nanoTime();
          long c0 = cpu();
          harness.processElement(row(seq, body), ++time);
          bufferNanos += System.nanoTime() - t0;
          bufferCpu += cpu() - c0;
          if (seq % 5_000 == 0 && seq > 2_000) {
            horizon = seq - 2_000;
            t0 = System.nanoTime();
            c0 = cpu();
            harness.processElement(new HorizonUpdate("w1", horizon, seq, time, false), ++time);
            time = drain(harness, time, emitted, horizon);
            cutNanos += System.nanoTime() - t0;
            cutCpu += cpu() - c0;
          }
        }
        long t0 = System.nanoTime();
        long c0 = cpu();
        harness.processElement(new HorizonUpdate("w1", n, n, time, false), ++time);
        time = drain(harness, time, emitted, n);
        cutNanos += System.nanoTime() - t0;
        cutCpu += cpu() - c0;
      }
      if (emitted[0] != n) {
        throw new AssertionError("emitted " + emitted[0] + " rows of " + n);
      }
      return new double[] {bufferNanos / 1e6, cutNanos / 1e6, bufferCpu / 1e6, cutCpu / 1e6};
    }
  }

  private static OutboxEvent row(long seq, String body) {
    return OutboxEvent.builder()
        .seq(seq)
        .txId(1_000 + seq)
        .tenantId("t" + (seq % 8))
        .kind(org.oml.lakewriter.event.EventKind.JOURNAL)
        .envelope(body)
        .eventTimeMicros(1_700_000_000_000_000L + seq)
        .build();
  }

  /** Fires the cut's turn timers until every row up to {@code upTo} is emitted. */
  private static long drain(
      KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> harness,
      long time,
      long[] emitted,
      long upTo)
      throws Exception {
    long lastEnd = 0;
    int spins = 0;
    while (true) {
      for (Object o : harness.getOutput()) {
        if (o instanceof org.apache.flink.streaming.runtime.streamrecord.StreamRecord<?> r
            && r.getValue() instanceof Batch b) {
          emitted[0] += b.events().size();
          lastEnd = Math.max(lastEnd, b.batchEnd());
        }
      }
      harness.getOutput().clear();
      if (lastEnd >= upTo) {
        return time;
      }
      if (++spins > 1_000_000) {
        throw new AssertionError("the cut stopped below " + upTo);
      }
      harness.setProcessingTime(++time);
    }
  }
}
