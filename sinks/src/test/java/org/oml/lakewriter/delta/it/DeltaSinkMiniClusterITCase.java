package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The sink in a real Flink job: a bounded source of batches, checkpoints every 100 ms, and one
 * injected failure after a checkpoint (the job restores and replays). Beta's promotions are each
 * retracted two seqs later, in the same batch or the next, every kind in turn, so silver MERGEs
 * travel through checkpointed committables and the restore. The lake is then read back with the
 * scan reader: every seq exactly once, every silver row in its final state, every table at the last
 * batch end.
 */
class DeltaSinkMiniClusterITCase {
  private static final int BATCHES = 30;
  private static final long BATCH_SIZE = 10;
  private static final EventKind[] KINDS = {
    EventKind.DEMOTE, EventKind.ERASE, EventKind.SIMULATION_END, EventKind.REASSIGN
  };

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
    // One row per promotion (p = 0 mod 4), retracted at p + 2 unless that is past the end.
    List<Map<String, Object>> silver = reader.rows(betaSilver);
    assertThat(silver).hasSize((int) (end / 4));
    for (Map<String, Object> row : silver) {
      long promoted = (Long) row.get("version");
      long retracted = promoted + 2;
      assertThat(row.get("artifact_id")).isEqualTo("art-" + (promoted % 7));
      String what = "row promoted at " + promoted;
      if (retracted > end) {
        assertThat(row.get("seq")).as(what).isEqualTo(promoted);
        assertThat(row.get("state")).as(what).isEqualTo("active");
        continue;
      }
      EventKind kind = KINDS[(int) (retracted / 4 % 4)];
      assertThat(row.get("seq")).as(what).isEqualTo(retracted);
      assertThat(row.get("state"))
          .as(what)
          .isEqualTo(
              switch (kind) {
                case DEMOTE -> "demoted";
                case ERASE -> "erased";
                case SIMULATION_END -> "simulation_ended";
                default -> "active";
              });
      assertThat(row.get("workarea_id"))
          .as(what)
          .isEqualTo(kind == EventKind.REASSIGN ? "wa-9" : "wa-1");
    }
    for (TableId table : List.of(acme, beta, betaSilver)) {
      assertThat(reader.txnVersion(table)).as(table.toString()).isEqualTo(end);
    }
    List<Long> frontiers = new ArrayList<>(FRONTIERS);
    assertThat(frontiers).isNotEmpty().isSorted();
    assertThat(frontiers.get(frontiers.size() - 1)).isEqualTo(end);
  }

  static Batch batch(long index) {
    long from = index * BATCH_SIZE;
    List<OutboxEvent> events = new ArrayList<>();
    for (OutboxEvent event : ExactlyOnceITCase.events(from, from + BATCH_SIZE)) {
      events.add(retractingTwoBefore(event));
    }
    return new Batch(from, from + BATCH_SIZE, events);
  }

  /** Beta's journal event at seq 2 (mod 4) becomes a retraction of the promotion at seq - 2. */
  private static OutboxEvent retractingTwoBefore(OutboxEvent event) {
    long seq = event.seq();
    if (seq % 4 != 2 || seq < 6) {
      return event;
    }
    long promoted = seq - 2;
    return Events.retract(
        seq, "beta", KINDS[(int) (seq / 4 % 4)], "art-" + (promoted % 7), promoted);
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
