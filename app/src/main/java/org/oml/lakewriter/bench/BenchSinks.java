package org.oml.lakewriter.bench;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The benchmark's sinks. They run in this JVM's MiniCluster, so they report through static
 * counters keyed by run id: rows seen (B2), highest batch end (B3, B4), first-output time.
 */
@SuppressWarnings("deprecation")
public final class BenchSinks {
  private static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> FIRST_NANOS = new ConcurrentHashMap<>();

  private BenchSinks() {}

  public static void reset(String id) {
    COUNTS.put(id, new AtomicLong());
    FIRST_NANOS.put(id, new AtomicLong());
  }

  public static long count(String id) {
    return COUNTS.get(id).get();
  }

  public static long firstNanos(String id) {
    return FIRST_NANOS.get(id).get();
  }

  private static void seen(String id) {
    FIRST_NANOS.get(id).compareAndSet(0, System.nanoTime());
  }

  /** B2: counts outbox rows, discards everything. */
  public static final class CountingChanges implements SinkFunction<OutboxChange> {
    private static final long serialVersionUID = 1L;
    private final String id;

    public CountingChanges(String id) {
      this.id = id;
    }

    @Override
    public void invoke(OutboxChange change, Context context) {
      if (change instanceof OutboxEvent) {
        seen(id);
        COUNTS.get(id).incrementAndGet();
      }
    }
  }

  /** B3: records the highest batch end, discards the batch. */
  public static final class BatchEnds implements SinkFunction<Batch> {
    private static final long serialVersionUID = 1L;
    private final String id;

    public BatchEnds(String id) {
      this.id = id;
    }

    @Override
    public void invoke(Batch batch, Context context) {
      seen(id);
      COUNTS.get(id).accumulateAndGet(batch.batchEnd(), Math::max);
    }
  }

  /**
   * B4: the Delta sink's own writer turns each batch into Parquet files per table (Kernel's
   * default engine, statistics included), then its committables are dropped: no Delta commit,
   * the files stay orphans. Records the highest batch end written.
   */
  public static final class ParquetOnly extends RichSinkFunction<Batch> {
    private static final long serialVersionUID = 1L;
    private final String id;
    private final String lakeRoot;
    private transient DeltaSinkWriter writer;

    public ParquetOnly(String id, String lakeRoot) {
      this.id = id;
      this.lakeRoot = lakeRoot;
    }

    @Override
    public void open(Configuration parameters) throws Exception {
      writer =
          new DeltaSinkWriter(
              new KernelDeltaTableClient(new LakeConfig(lakeRoot, Map.of())), Clock.systemUTC());
    }

    @Override
    public void invoke(Batch batch, Context context) throws Exception {
      seen(id);
      writer.write(batch, null);
      writer.prepareCommit(); // dropped: nothing is committed
      COUNTS.get(id).accumulateAndGet(batch.batchEnd(), Math::max);
    }

    @Override
    public void close() throws Exception {
      if (writer != null) {
        writer.close();
      }
    }
  }
}
