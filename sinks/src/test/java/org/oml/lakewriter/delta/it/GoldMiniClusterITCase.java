package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.GoldOracle;
import org.oml.lakewriter.delta.testing.GoldWorkload;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * Gold in a real Flink job on a real lake, read back with the Kernel scan reader ({@link
 * LakeReader}) and compared with {@link GoldOracle}, a fold of the events written in the test
 * alone. Two tenants' {@link GoldWorkload} (validations, invalidations, promotions, re-promotions,
 * every retraction kind, reassignments between validated and unvalidated workareas, in varied
 * orders within and across batches), checkpoints every 100 ms with in-job compaction of small
 * files, one injected failure after a checkpoint (restore from it); then a stateless writer
 * replays an overlapping range onto the lake with its history and goes on, and its committables are
 * committed twice.
 */
class GoldMiniClusterITCase {
  private static final int BATCHES = 40;
  private static final long BATCH_SIZE = 10;
  private static final List<String> TENANTS = List.of("acme", "beta");

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  static OutboxEvent event(long seq) {
    return GoldWorkload.event(TENANTS.get((int) (seq % 2)), seq);
  }

  static Batch batch(long index) {
    long from = index * BATCH_SIZE;
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = from + 1; seq <= from + BATCH_SIZE; seq++) {
      events.add(event(seq));
    }
    return new Batch(from, from + BATCH_SIZE, events);
  }

  @Test
  void streamedGoldEqualsAFoldOfTheEventsAcrossAFailoverAndAReplay() throws Exception {
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
            GoldMiniClusterITCase::batch,
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
                .frontierListener(FrontierListener.NONE)
                .compaction(
                    new CompactionPolicy(true, 3, 1L << 20, 8L << 20, Duration.ofSeconds(30)))
                .build())
        .uid("delta-sink");
    env.execute("gold-it");
    assertThat(FailOnceAfterCheckpoint.FAILED).isTrue();

    long end = BATCHES * BATCH_SIZE;
    LakeReader reader = LakeReader.open(lake);
    assertGoldEqualsTheFold(reader, end);
    assertThat(reader.txnVersion(TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS)))
        .isEqualTo(end);
    for (String tenant : TENANTS) {
      for (TableKind kind : GOLD) {
        assertThat(reader.txnVersion(TableId.of(tenant, kind))).isBetween(1L, end);
      }
    }

    // A stateless writer onto the lake with its history: (end - 55, end] is replayed, then it goes
    // on to end + 60; its committables are committed, then committed again (a replayed commit).
    long more = end + 60;
    List<Batch> replay = new ArrayList<>();
    for (long from = end - 55; from < more; from += 7) {
      long to = Math.min(more, from + 7);
      List<OutboxEvent> events = new ArrayList<>();
      for (long seq = from + 1; seq <= to; seq++) {
        events.add(event(seq));
      }
      replay.add(new Batch(from, to, events));
    }
    List<DeltaCommittable> committables = SinkDriver.write(lake, replay);
    SinkDriver.commit(lake, committables);
    Map<TableId, Long> versions = tableVersions(reader);
    List<FakeCommitRequest> again = SinkDriver.commit(lake, committables);
    assertThat(tableVersions(reader)).as("a replayed commit changes no table").isEqualTo(versions);
    assertThat(again).isNotEmpty();
    assertGoldEqualsTheFold(LakeReader.open(lake), more);
  }

  private static final List<TableKind> GOLD =
      List.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES, TableKind.GOLD_WORKAREAS);

  private static Map<TableId, Long> tableVersions(LakeReader reader) throws Exception {
    Map<TableId, Long> versions = new TreeMap<>();
    for (TableId table : reader.tables()) {
      versions.put(table, reader.tableVersion(table));
    }
    return versions;
  }

  private static void assertGoldEqualsTheFold(LakeReader reader, long end) throws Exception {
    for (String tenant : TENANTS) {
      List<OutboxEvent> events = new ArrayList<>();
      for (long seq = 1; seq <= end; seq++) {
        if (TENANTS.get((int) (seq % 2)).equals(tenant)) {
          events.add(event(seq));
        }
      }
      GoldOracle expected = GoldOracle.of(events);
      assertThat(expected.memories()).as("the workload has memories").isNotEmpty();
      assertThat(rows(reader, tenant, TableKind.GOLD_LINEAGE, "artifact_id", "version"))
          .as(tenant + " lineage up to " + end)
          .isEqualTo(expected.lineage());
      assertThat(rows(reader, tenant, TableKind.GOLD_WORKAREAS, "workarea_id", null))
          .as(tenant + " workareas up to " + end)
          .isEqualTo(expected.workareas());
      assertThat(rows(reader, tenant, TableKind.GOLD_WORKAREA_MEMORIES, "artifact_id", "version"))
          .as(tenant + " memories up to " + end)
          .isEqualTo(expected.memories());
    }
  }

  /** The table's rows by key, timestamps as microseconds; a duplicate key fails. */
  private static Map<String, Map<String, Object>> rows(
      LakeReader reader, String tenant, TableKind kind, String key, String key2) throws Exception {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : reader.rows(TableId.of(tenant, kind))) {
      Map<String, Object> columns = new HashMap<>();
      row.forEach(
          (column, value) ->
              columns.put(
                  column,
                  value instanceof Instant i
                      ? i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000L
                      : value));
      String id = columns.get(key) + (key2 == null ? "" : "@" + columns.get(key2));
      assertThat(rows.put(id, columns)).as("duplicate row " + id + " in " + kind).isNull();
    }
    return rows;
  }

  /** Throws once, on the first batch after a checkpoint completed with some batches behind it. */
  static final class FailOnceAfterCheckpoint
      implements MapFunction<Batch, Batch>, CheckpointListener {
    static final AtomicBoolean FAILED = new AtomicBoolean();
    private final AtomicInteger seen = new AtomicInteger();
    private volatile boolean checkpointed;

    @Override
    public Batch map(Batch batch) {
      if (checkpointed && seen.incrementAndGet() > 5 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure at batch " + batch);
      }
      return batch;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      checkpointed = true;
    }
  }
}
