package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The sink in a real Flink job: a bounded source of batches, checkpoints every 100 ms, and one
 * injected failure after a checkpoint (the job restores and replays). The lake is then read back
 * with the scan reader: every seq exactly once, every table at the last batch end.
 */
class DeltaSinkMiniClusterITCase {
  private static final int BATCHES = 30;
  private static final long BATCH_SIZE = 10;

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  static final Queue<Long> FRONTIERS = new ConcurrentLinkedQueue<>();

  @TempDir Path dir;

  @Test
  void batchesLandExactlyOnceAcrossAFailover() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    Configuration config = new Configuration();
    config.set(PipelineOptions.GENERIC_TYPES, false);
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(1);
    env.enableCheckpointing(100);

    DataGeneratorSource<Batch> source =
        new DataGeneratorSource<>(
            DeltaSinkMiniClusterITCase::batch,
            BATCHES,
            RateLimiterStrategy.perCheckpoint(3),
            StreamTypes.BATCH);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "batches")
        .uid("batches")
        .map(new FailOnceAfterCheckpoint())
        .returns(StreamTypes.BATCH)
        .uid("fail-once")
        .sinkTo(
            DeltaSink.builder()
                .lakeRoot(lake.lakeRoot())
                .frontierListener(new QueueFrontier())
                .build())
        .uid("delta-sink");
    env.execute("delta-sink-it");

    assertThat(FailOnceAfterCheckpoint.FAILED).isTrue();
    long end = BATCHES * BATCH_SIZE;
    LakeReader reader = LakeReader.open(lake);
    List<Long> all = LongStream.rangeClosed(1, end).boxed().toList();
    TableId acme = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    TableId beta = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
    TableId betaSilver = TableId.of("beta", TableKind.SILVER_MEMORIES);
    assertThat(reader.contents(acme).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 1).toList());
    assertThat(reader.contents(beta).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 0).toList());
    assertThat(reader.contents(betaSilver).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 4 == 0).toList());
    for (TableId table : List.of(acme, beta, betaSilver)) {
      assertThat(reader.txnVersion(table)).as(table.toString()).isEqualTo(end);
    }
    List<Long> frontiers = new ArrayList<>(FRONTIERS);
    assertThat(frontiers).isNotEmpty().isSorted();
    assertThat(frontiers.get(frontiers.size() - 1)).isEqualTo(end);
  }

  static Batch batch(long index) {
    long from = index * BATCH_SIZE;
    return new Batch(from, from + BATCH_SIZE, ExactlyOnceITCase.events(from, from + BATCH_SIZE));
  }

  /** Throws once, on the first batch after a checkpoint completed with some batches behind it. */
  static final class FailOnceAfterCheckpoint
      implements MapFunction<Batch, Batch>, CheckpointListener {
    static final AtomicBoolean FAILED = new AtomicBoolean();
    private final AtomicInteger seen = new AtomicInteger();
    private volatile boolean checkpointed;

    @Override
    public Batch map(Batch batch) {
      if (checkpointed && seen.incrementAndGet() > 4 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure at batch " + batch);
      }
      return batch;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      checkpointed = true;
    }
  }

  /** Records frontiers in a static queue: the committer runs on a deserialized copy. */
  static final class QueueFrontier implements FrontierListener {
    private static final long serialVersionUID = 1L;

    @Override
    public void frontierAdvanced(long frontierSeq) {
      FRONTIERS.add(frontierSeq);
    }
  }
}
