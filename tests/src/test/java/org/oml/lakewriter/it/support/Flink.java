package org.oml.lakewriter.it.support;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.oml.lakewriter.app.LakeWriterJob;

/**
 * A MiniCluster and job environments configured like production: RocksDB, no Kryo, two retained
 * checkpoints.
 */
public final class Flink {
  private Flink() {}

  public static MiniClusterExtension miniCluster() {
    return miniCluster(new Configuration());
  }

  /**
   * A MiniCluster like {@link #miniCluster()}, with more configuration (a reporter, ...). Like
   * {@code lakewriter run}'s cluster, it keeps {@link LakeWriterJob#RETAINED_CHECKPOINTS} completed
   * checkpoints unless {@code configuration} says otherwise.
   */
  public static MiniClusterExtension miniCluster(Configuration configuration) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, LakeWriterJob.RETAINED_CHECKPOINTS);
    conf.addAll(configuration);
    return new MiniClusterExtension(
        new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(conf)
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());
  }

  /** Checkpointing every {@code interval}; {@code restarts} bounded restarts, then failure. */
  public static StreamExecutionEnvironment env(Path checkpoints, Duration interval, int restarts) {
    return env(checkpoints, interval, restarts, new Configuration());
  }

  /**
   * Like {@link #env(Path, Duration, int)}, with {@code extra} applied last: e.g. retained
   * checkpoints, or a checkpoint to restore from ({@code execution.state-recovery.path}).
   */
  public static StreamExecutionEnvironment env(
      Path checkpoints, Duration interval, int restarts, Configuration extra) {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    if (restarts > 0) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    conf.addAll(extra);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(1);
    env.enableCheckpointing(interval.toMillis());
    return env;
  }
}
