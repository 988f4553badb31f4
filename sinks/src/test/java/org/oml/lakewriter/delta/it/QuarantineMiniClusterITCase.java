package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.ListOutbox;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * Issue 11 item 1 in a real Flink job: another engine compacts {@code beta/silver/memories} right
 * between the write and the commit of a batch that rewrites it (the committer's client runs the
 * OPTIMIZE just before that commit), and the job fails over once after a checkpoint. The job must
 * end with every seq once in bronze, beta's silver equal to the fold of its promotions and
 * retractions, every table at the last batch end, and no quarantine left.
 */
class QuarantineMiniClusterITCase {
  private static final int BATCHES = 30;
  private static final Map<String, AtomicInteger> COMPACTIONS = new ConcurrentHashMap<>();

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @Test
  void anOptimizeBetweenWriteAndCommitHealsAcrossAFailover() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    String name = "optimize-" + System.nanoTime();
    COMPACTIONS.put(name, new AtomicInteger());
    ListOutbox outbox = new ListOutbox(name);
    for (long i = 0; i < BATCHES; i++) {
      outbox.add(DeltaSinkMiniClusterITCase.batch(i).events());
    }
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
        .map(new FailOnce(name))
        .returns(StreamTypes.BATCH)
        .uid("fail-once")
        .sinkTo(
            DeltaSink.builder()
                .tableClientFactory(
                    new CompactingBeforeCommit(new KernelTableClientFactory(lake), dir, name))
                .quarantineStore(LakeQuarantineStore.factory(lake))
                .tenantReplay(outbox)
                .frontierListener(FrontierListener.NONE)
                .build())
        .uid("delta-sink");
    env.execute("quarantine-it");

    assertThat(COMPACTIONS.get(name).get()).as("compactions").isEqualTo(1);
    assertThat(FailOnce.FAILED.get(name)).as("failed over once").isTrue();
    assertThat(outbox.reads()).as("replays").isGreaterThanOrEqualTo(1);
    assertThat(new LakeQuarantineStore(lake).list()).isEmpty();

    long end = BATCHES * 10L;
    LakeReader reader = LakeReader.open(lake);
    List<Long> all = LongStream.rangeClosed(1, end).boxed().toList();
    TableId acme = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    TableId beta = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
    TableId betaSilver = TableId.of("beta", TableKind.SILVER_MEMORIES);
    assertThat(reader.contents(acme).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 1).toList());
    assertThat(reader.contents(beta).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 0).toList());
    List<Map<String, Object>> silver = reader.rows(betaSilver);
    assertThat(silver).hasSize((int) (end / 4));
    EventKind[] kinds = {
      EventKind.DEMOTE, EventKind.ERASE, EventKind.SIMULATION_END, EventKind.REASSIGN
    };
    for (Map<String, Object> row : silver) {
      long promoted = (Long) row.get("version");
      long retracted = promoted + 2;
      String what = "row promoted at " + promoted;
      if (retracted > end) {
        assertThat(row.get("state")).as(what).isEqualTo("active");
        continue;
      }
      EventKind kind = kinds[(int) (retracted / 4 % 4)];
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
    }
    for (TableId table : List.of(acme, beta, betaSilver)) {
      assertThat(reader.txnVersion(table)).as(table.toString()).isEqualTo(end);
    }
  }

  /**
   * The committer's client: just before the first rewrite of {@code beta/silver} at or after batch
   * end 60, another engine compacts away a file that rewrite replaces.
   */
  static final class CompactingBeforeCommit implements DeltaTableClientFactory {
    private static final long serialVersionUID = 1L;
    private final DeltaTableClientFactory delegate;
    private final String lakeDir;
    private final String name;

    CompactingBeforeCommit(DeltaTableClientFactory delegate, Path lakeDir, String name) {
      this.delegate = delegate;
      this.lakeDir = lakeDir.toString();
      this.name = name;
    }

    @Override
    public DeltaTableClient create() throws IOException {
      return new ForwardingDeltaTableClient(delegate.create()) {
        @Override
        public CommitOutcome commitRewrite(
            TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite)
            throws IOException {
          if (table.prefix().equals("beta")
              && batchEnd >= 60
              && !rewrite.removes().isEmpty()
              && delegate.readTxnVersion(table) < batchEnd
              && COMPACTIONS.get(name).compareAndSet(0, 1)) {
            OutOfBandCompaction.replace(
                Path.of(lakeDir).resolve(table.relativePath()),
                rewrite.removes().get(0).relativePath());
          }
          return delegate.commitRewrite(table, batchEnd, files, rewrite);
        }
      };
    }
  }

  /** Throws once, on the fifth batch after a checkpoint completed. */
  static final class FailOnce implements MapFunction<Batch, Batch>, CheckpointListener {
    static final Map<String, Boolean> FAILED = new ConcurrentHashMap<>();
    private final String name;
    private final AtomicInteger seen = new AtomicInteger();
    private volatile boolean checkpointed;

    FailOnce(String name) {
      this.name = name;
      FAILED.put(name, false);
    }

    @Override
    public Batch map(Batch batch) {
      if (checkpointed && seen.incrementAndGet() > 4 && FAILED.replace(name, false, true)) {
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
