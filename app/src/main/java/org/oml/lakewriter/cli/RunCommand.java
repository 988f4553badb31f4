package org.oml.lakewriter.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.app.PrometheusEndpoint;
import org.oml.lakewriter.cdc.SlotInvalidatedException;
import org.oml.lakewriter.cli.CheckpointFinder.RestorePoint;
import org.oml.lakewriter.identity.JobIdentity;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseKeeper;
import org.oml.lakewriter.lease.LeaseRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter run}: one command line that a supervisor can always restart with. It resumes
 * from the newest completed checkpoint or savepoint under {@code state.dir} when there is one, and
 * otherwise starts fresh, which is safe: every start drops, per table, the rows at or below the
 * table's txn version. It prints which of the two happened.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Runs the lake writer in this process, on a local Flink MiniCluster, against an existing"
            + " PostgreSQL. Resumes from the newest completed checkpoint or savepoint under"
            + " state.dir when there is one, otherwise starts fresh; SIGTERM stops the job with a"
            + " savepoint (exit 0; exit 1 if the savepoint failed) and prints what the next start"
            + " resumes from. Prints a progress line (run.progress-interval). The same command"
            + " line is always right for a restart.")
final class RunCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(
      names = "--restore",
      description =
          "Accepted for old scripts: resuming is the default. Resumes from the newest completed"
              + " checkpoint or savepoint, and starts fresh when there is none.")
  boolean restore;

  @Option(
      names = "--fresh",
      description =
          "Start without state even if state.dir holds a checkpoint. Safe (the lake's per-table"
              + " versions skip what it already holds) but re-reads the outbox from the slot.")
  boolean fresh;

  @Option(
      names = "--accept-lost-slot",
      description =
          "Proceed although the replication slot of the restored job is gone (SLOT_LOST); the"
              + " completeness check refetches the rows by seq.")
  boolean acceptLostSlot;

  @Override
  public Integer call() throws Exception {
    if (restore && fresh) {
      throw new ConfigException("--restore and --fresh contradict each other");
    }
    LakeWriterConfig cfg = config.load();
    Path stateDir = cfg.stateDir();
    StateDirCheck.require(stateDir);
    Optional<RestorePoint> found = CheckpointFinder.latest(stateDir);
    Optional<RestorePoint> restorePoint = fresh ? Optional.empty() : found;
    JobIdentity identity = Preflight.identity(cfg);
    IdentityFile.check(stateDir, identity, found.isPresent(), fresh);
    // Leader lease next (docs/leader-lease.md): a second writer is refused (or waits for a dead
    // one's lease to expire) before any check or use of the replication slot.
    LeaseHolder holder = LeaseHolder.newRunningItsJobInThisProcess();
    // A killed holder's lease is reserved to the start that resumes its job's state (the
    // supervisor's restart), not to a second writer with a state.dir of its own.
    LeaseRecord lease =
        LakeWriterJob.acquireLease(
            cfg,
            holder,
            job -> !fresh && CheckpointFinder.holdsStateOf(stateDir, job),
            System.out::println);
    System.out.println("leader lease: " + lease.describe());
    // This process renews the lease from now until it ends, not only the job's committer once it
    // runs: a start that takes longer than lease.duration (a restore under load) must not leave
    // the lake to a second writer. Closing it (the job ended, or never started) ends the lease.
    try (LeaseKeeper keeper = LeaseKeeper.start(cfg.leaseSettings(holder), null)) {
      Preflight.check(cfg, restorePoint.isPresent(), acceptLostSlot);
      IdentityFile.write(stateDir, identity);
      System.out.println(startLine(stateDir, found, restorePoint));
      Configuration conf = LakeWriterJob.flinkConfiguration(cfg, stateDir);
      System.out.println(metricsLine(PrometheusEndpoint.configure(cfg, conf)));
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
      restorePoint.ifPresent(p -> LakeWriterJob.restoreFrom(conf, p.dir()));
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
      LakeWriterJob.configure(env, cfg);
      LakeWriterJob.build(env, cfg, holder, identity, keyCacheDir(cfg, stateDir));
      JobClient job = env.executeAsync("oml-lakewriter " + cfg.writerId());
      System.out.println(
          "lake writer running: job " + job.getJobID()
              + restorePoint.map(p -> ", restored from " + p.dir()).orElse(", fresh start"));
      System.out.println("lake " + cfg.lakeRoot() + " | state dir " + stateDir);
      return awaitEnd(cfg, job, stateDir);
    }
  }

  /**
   * Waits for the job, printing its progress; SIGTERM/SIGINT stop it with a savepoint ({@link
   * RunStop}), whose outcome is the exit code.
   */
  private static int awaitEnd(LakeWriterConfig cfg, JobClient job, Path stateDir)
      throws Exception {
    RunStop stop =
        new RunStop(
            job, stateDir, cfg.get(LakeWriterOptions.SAVEPOINTS_RETAINED), System.out, System.err);
    stop.installSignalHandlers();
    try (RunProgress progress =
        RunProgress.start(cfg, System.out, cfg.get(LakeWriterOptions.PROGRESS_INTERVAL))) {
      job.getJobExecutionResult().get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (!stop.requested()) {
        throw namedFailure(e);
      }
      // Cancelled by the stop after a failed savepoint: the stop's outcome is the answer.
    }
    return stop.requested() ? stop.awaitExitCode() : 0;
  }

  /**
   * A job that ended for good on an error the operator must act on is reported by that error's
   * message (exit 2), not by Flink's stack trace: today {@code SLOT_INVALIDATED}.
   */
  static Exception namedFailure(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      // By type, or by message when Flink handed the cause over as a SerializedThrowable.
      String message = String.valueOf(t.getMessage());
      int at = message.indexOf(SlotInvalidatedException.CODE);
      if (t instanceof SlotInvalidatedException || at >= 0) {
        return new ConfigException(message.substring(Math.max(at, 0)), e);
      }
    }
    return e;
  }

  /** Where Prometheus scrapes this writer (metrics.prometheus.port, docs/metrics.md). */
  /** {@code sink.key-cache.dir}, or {@code <state.dir>/key-cache} when it is unset. */
  static String keyCacheDir(LakeWriterConfig cfg, Path stateDir) {
    String dir = cfg.get(LakeWriterOptions.KEY_CACHE_DIR);
    return dir != null ? dir : stateDir.resolve("key-cache").toString();
  }

  private static String metricsLine(java.util.OptionalInt port) {
    return port.isPresent()
        ? "metrics: http://localhost:" + port.getAsInt() + "/metrics (Prometheus)"
        : "metrics: no Prometheus endpoint (metrics.prometheus.port = none)";
  }

  private String startLine(
      Path stateDir, Optional<RestorePoint> found, Optional<RestorePoint> restorePoint) {
    if (restorePoint.isPresent()) {
      return "lakewriter: resuming from the " + restorePoint.get();
    }
    if (found.isPresent()) {
      return "lakewriter: starting fresh (--fresh), not resuming the " + found.get();
    }
    return "lakewriter: starting fresh: no completed checkpoint or savepoint under state.dir = "
        + stateDir + " (the lake's per-table txn versions skip the rows it already holds)";
  }
}
