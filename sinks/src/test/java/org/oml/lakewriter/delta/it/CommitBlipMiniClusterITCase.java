package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.delta.testing.BlipTableClient;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * Issue 11 item 9 (lake half) in a real job: every Delta commit fails with an {@link
 * java.io.IOException} for the first 2 seconds, and the job has NO restart strategy, so a failover
 * would end it. It must finish, with every batch in the lake exactly once.
 */
class CommitBlipMiniClusterITCase {
  private static final int BATCHES = 12;

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @Test
  void aTwoSecondObjectStoreBlipDoesNotFailTheJobOver() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    Configuration config = new Configuration();
    config.set(PipelineOptions.GENERIC_TYPES, false);
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
    env.setParallelism(1);
    env.enableCheckpointing(100);
    DataGeneratorSource<Batch> source =
        new DataGeneratorSource<>(
            CommitBlipMiniClusterITCase::batch,
            BATCHES,
            RateLimiterStrategy.perCheckpoint(2),
            StreamTypes.BATCH);
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "batches")
        .uid("batches")
        .sinkTo(
            DeltaSink.builder()
                .tableClientFactory(
                    new BlipTableClient.Factory(
                        new KernelTableClientFactory(lake),
                        "blip-" + System.nanoTime(),
                        Duration.ofSeconds(2)))
                .frontierListener(FrontierListener.NONE)
                .build())
        .uid("delta-sink");
    env.execute("commit-blip-it"); // throws if the job failed

    long end = BATCHES * 10L;
    LakeReader reader = LakeReader.open(lake);
    List<Long> all = LongStream.rangeClosed(1, end).boxed().toList();
    TableId acme = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    TableId beta = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(reader.contents(acme).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 1).toList());
    assertThat(reader.contents(beta).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 0).toList());
    assertThat(reader.txnVersion(acme)).isEqualTo(end);
  }

  static Batch batch(long index) {
    long from = index * 10;
    return new Batch(from, from + 10, ExactlyOnceITCase.events(from, from + 10));
  }
}
