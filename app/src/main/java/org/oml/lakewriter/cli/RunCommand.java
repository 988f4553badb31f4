package org.oml.lakewriter.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Runs the lake writer in this process, on a local Flink MiniCluster, against an existing"
            + " PostgreSQL. Checkpoints and savepoints go to state.dir; SIGTERM stops the job"
            + " with a savepoint.")
final class RunCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--restore", description = "Resume from the newest checkpoint or savepoint.")
  boolean restore;

  @Option(
      names = "--accept-lost-slot",
      description =
          "Proceed although the replication slot of the restored job is gone (SLOT_LOST); the"
              + " completeness check refetches the rows by seq.")
  boolean acceptLostSlot;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    Path stateDir = cfg.stateDir();
    Optional<Path> restorePoint = restore ? CheckpointFinder.latest(stateDir) : Optional.empty();
    if (restore && restorePoint.isEmpty()) {
      throw new ConfigException(
          "--restore: no completed checkpoint or savepoint under state.dir = " + stateDir);
    }
    // Leader lease first (docs/leader-lease.md): a second writer is refused (or waits for a dead
    // one's lease to expire) before any check or use of the replication slot.
    LeaseHolder holder = LeaseHolder.newForThisProcess();
    LeaseRecord lease = LakeWriterJob.acquireLease(cfg, holder, System.out::println);
    System.out.println("leader lease: " + lease.describe());
    JobClient job;
    try {
      Preflight.check(cfg, restore, acceptLostSlot);
      Configuration conf = LakeWriterJob.flinkConfiguration(cfg, stateDir);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
      restorePoint.ifPresent(p -> conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p.toUri().toString()));
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
      LakeWriterJob.configure(env, cfg);
      LakeWriterJob.build(env, cfg, holder);
      job = env.executeAsync("oml-lakewriter " + cfg.writerId());
    } catch (Exception e) {
      // Not started: free the lake at once, so that the next start need not wait for expiry.
      LakeWriterJob.releaseLease(cfg, holder, lease.epoch());
      throw e;
    }
    System.out.println(
        "lake writer running: job " + job.getJobID()
            + restorePoint.map(p -> ", restored from " + p).orElse(""));
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    String savepoint =
                        job.stopWithSavepoint(
                                false,
                                stateDir.resolve("savepoints").toUri().toString(),
                                SavepointFormatType.CANONICAL)
                            .get();
                    System.out.println("stopped with savepoint " + savepoint);
                  } catch (Exception e) {
                    System.err.println("stop with savepoint failed: " + e);
                  }
                }));
    job.getJobExecutionResult().get();
    return 0;
  }
}
