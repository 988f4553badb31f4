package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.testing.SinkDriver;

/**
 * Issue 13, "the JobManager fails over", in a MiniCluster with embedded high availability whose
 * leadership the test controls: while the job commits, the JobMaster loses its leadership (its
 * tasks are cancelled, as when a JobManager process dies), and a new JobMaster is granted it and
 * recovers the job from the completed checkpoints the HA services kept. NO restart strategy: the
 * recovery is the JobManager's, not a task failover. Every seq ends up in bronze exactly once, and
 * the recovered job resumed from a checkpoint (its first batch is not the job's first).
 */
class JobManagerFailoverITCase {
  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .withHaLeadershipControl()
              .build());

  @TempDir Path dir;

  @Test
  void aJobMasterFailoverResumesFromTheLastCheckpointAndEveryRowLandsOnce(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    String name = "jm-failover-" + System.nanoTime();
    LakeConfig lake = SinkDriver.lake(dir.resolve("lake"));
    Configuration config = CheckpointFaultsITCase.base();
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = CheckpointFaultsITCase.env(config);
    CheckpointFaultsITCase.pipeline(
        env, lake, new CheckpointFaultsITCase.StallAfterCheckpoint(name, Long.MAX_VALUE));
    JobClient job = env.executeAsync("jm-failover-it");

    CheckpointFaultsITCase.await(
        () -> CheckpointFaultsITCase.txnOrNone(lake, CheckpointFaultsITCase.acme()) >= 80
            ? Boolean.TRUE
            : null,
        "acme at txn 80");
    HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
    leadership.revokeJobMasterLeadership(job.getJobID()).get(1, TimeUnit.MINUTES);
    long atRevoke = CheckpointFaultsITCase.txnOrNone(lake, CheckpointFaultsITCase.acme());
    leadership.grantJobMasterLeadership(job.getJobID()).get(1, TimeUnit.MINUTES);
    job.getJobExecutionResult().get(3, TimeUnit.MINUTES);

    List<Long> firsts = CheckpointFaultsITCase.StallAfterCheckpoint.FIRST_BATCHES.get(name);
    System.out.printf(
        "jm-failover: lake at txn %d when the leadership was revoked; first batch per start %s%n",
        atRevoke, firsts);
    assertThat(firsts).as("started twice, the second time from a checkpoint").hasSize(2);
    assertThat(firsts.get(1)).isGreaterThan(firsts.get(0));
    CheckpointFaultsITCase.assertEveryBronzeSeqOnce(lake);
  }
}
