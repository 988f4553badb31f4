package org.oml.lakewriter.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.cluster.nextbuild.NextBuildJob;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * The job jar on a real standalone Flink session cluster (issue 17): a JobManager and two
 * TaskManagers, each in its own JVM ({@link FlinkSessionCluster}), the shaded jar submitted over
 * REST as {@code flink run} does, under {@code classloader.resolve-order: child-first}. One test,
 * in the order an operator lives it, with the time of each step printed:
 *
 * <ol>
 *   <li>submission 1: the job runs, fresh, and commits;
 *   <li>SIGKILL of the TaskManager that holds the job: it moves to the other one;
 *   <li>the lake equals the outbox, every row once;
 *   <li>stop-with-savepoint over REST;
 *   <li>submission 2, from that savepoint, of a config whose slot is gone: {@code SLOT_LOST},
 *       from the preflight that runs in the JobManager (before the fix: "No suitable driver");
 *   <li>submission 3: the next build of the jar (an operator added on a side branch) from that
 *       savepoint; more rows; the lake equals the outbox, every row once;
 *   <li>submission 4: {@code bin/upgrade.sh} (curl + jq) stops it with a savepoint and runs the
 *       first jar from it; more rows; the lake equals the outbox, every row once.
 * </ol>
 *
 * Four job submissions go to one JobManager, each in a new user class loader.
 */
class SessionClusterITCase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String WRITER = "w1";
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  private final Map<String, Duration> timings = new LinkedHashMap<>();

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void submitKillSavepointUpgradeAndResubmitOnOneSessionCluster() throws Exception {
    long total = System.nanoTime();
    Path jar = JobJars.jobJar();
    FlinkSessionCluster cluster = null;
    String running = null;
    FlinkRest rest = null;
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Path config = writeConfig(db, lake);
      List<String> args = List.of("--config", config.toString());
      String savepoints = tmp.resolve("savepoints").toUri().toString();

      long t = System.nanoTime();
      cluster = FlinkSessionCluster.start(tmp.resolve("cluster"), clusterConf());
      cluster.startTaskManager("tm-1");
      cluster.startTaskManager("tm-2");
      rest = new FlinkRest(cluster.restUrl());
      rest.awaitTaskManagers(2, WAIT);
      step("start JobManager + 2 TaskManagers (3 JVMs)", t);

      // 1. Submission 1, as `flink run` does it: upload, then run the jar's main in the JobManager.
      t = System.nanoTime();
      String jarId = rest.upload(jar);
      step("upload the job jar (" + Files.size(jar) / (1 << 20) + " MiB)", t);
      t = System.nanoTime();
      String job1 = rest.run(jarId, args, null, null);
      running = job1;
      rest.awaitRunning(job1, WAIT);
      step("submission 1 (fresh): run until all tasks RUNNING", t);
      assertThat(Files.readString(cluster.log("jobmanager")))
          .as("preflight runs in the JobManager, where the job's main runs on a REST submission")
          .contains("preflight passed in")
          .contains("cluster state settings: state.backend.type = rocksdb");

      OutboxTrickle trickle = OutboxTrickle.start(db, "a");
      t = System.nanoTime();
      CommittedFrontier.await(db, WRITER, 100, WAIT);
      step("first 100 rows committed to the lake", t);
      // The cluster's checkpoint directory is the one the job uses, not one of its own.
      assertThat(tmp.resolve("checkpoints").resolve(job1)).isDirectory();

      // 2. SIGKILL the TaskManager that holds the job; it must move to the other one.
      List<String> busy = rest.busyTaskManagers();
      assertThat(busy).hasSize(1);
      String victim = busy.get(0);
      long frontierAtKill = CommittedFrontier.read(db, WRITER);
      t = System.nanoTime();
      cluster.kill(victim);
      awaitOnOtherTaskManager(rest, job1, victim);
      CommittedFrontier.await(db, WRITER, frontierAtKill + 50, WAIT);
      step("SIGKILL " + victim + ": job recovered on the other TaskManager, frontier +50", t);

      // 3. The lake equals the outbox, every row once.
      trickle.close();
      t = System.nanoTime();
      long max = awaitCaughtUp(db);
      assertLakeEqualsOutbox(db, lake, max);
      step("lake == outbox after the kill (" + max + " rows)", t);

      // 4. Stop with a savepoint over REST.
      t = System.nanoTime();
      String savepoint1 = rest.stopWithSavepoint(job1, savepoints, WAIT);
      running = null;
      assertThat(savepoint1).startsWith(savepoints.replaceAll("/+$", "").replace("file:///", "file:/"));
      step("stop-with-savepoint " + savepoint1, t);

      // 5. Submission 2 on the same JobManager: a restore whose slot is gone fails SLOT_LOST in
      // the preflight. Before the driver fix, this second submission failed earlier still:
      // "No suitable driver found for jdbc:postgresql".
      t = System.nanoTime();
      List<String> lostSlot = new ArrayList<>(args);
      lostSlot.addAll(List.of("--postgres.slot", "gone_slot"));
      String finalJarId = jarId;
      FlinkRest api = rest;
      assertThatThrownBy(() -> api.run(finalJarId, lostSlot, null, savepoint1))
          .isInstanceOf(FlinkRest.RestError.class)
          .hasMessageContaining("SLOT_LOST: replication slot 'gone_slot'")
          .hasMessageNotContaining("No suitable driver");
      step("submission 2 (restore, slot gone): refused with SLOT_LOST", t);

      // 6. Submission 3: the next build (an operator added on a side branch) from the savepoint.
      t = System.nanoTime();
      Path nextJar =
          JobJars.withPackageOf(jar, NextBuildJob.class, tmp.resolve("lakewriter-next-job.jar"));
      String nextJarId = rest.upload(nextJar);
      step("build and upload the next build's jar", t);
      t = System.nanoTime();
      String job2 = rest.run(nextJarId, args, NextBuildJob.class.getName(), savepoint1);
      running = job2;
      rest.awaitRunning(job2, WAIT);
      assertThat(rest.vertexNames(job2)).anyMatch(n -> n.contains(NextBuildJob.PROBE_NAME));
      assertThat(Files.readString(cluster.log("jobmanager")))
          .contains("restoring from " + savepoint1);
      step("submission 3 (next build, from the savepoint): all tasks RUNNING", t);
      trickle = OutboxTrickle.start(db, "b");
      Thread.sleep(3000);
      trickle.close();
      t = System.nanoTime();
      max = awaitCaughtUp(db);
      assertLakeEqualsOutbox(db, lake, max);
      step("lake == outbox after the upgrade (" + max + " rows)", t);

      // 7. Submission 4: bin/upgrade.sh stops the next build with a savepoint and runs the first
      // jar from it (a rollback is an upgrade too).
      trickle = OutboxTrickle.start(db, "c");
      t = System.nanoTime();
      String job3 = runUpgradeScript(cluster, jar, savepoints, job2, args);
      running = job3;
      step("bin/upgrade.sh: stop-with-savepoint, upload, run, RUNNING + 2 checkpoints", t);
      long frontierAfterScript = CommittedFrontier.read(db, WRITER);
      Thread.sleep(2000);
      trickle.close();
      t = System.nanoTime();
      max = awaitCaughtUp(db);
      assertThat(max).isGreaterThan(frontierAfterScript);
      assertLakeEqualsOutbox(db, lake, max);
      step("lake == outbox after bin/upgrade.sh (" + max + " rows)", t);
    } catch (Throwable e) {
      if (cluster != null) {
        System.out.println(cluster.logTails(60));
      }
      throw e;
    } finally {
      if (rest != null && running != null) {
        try {
          rest.cancel(running);
          Thread.sleep(2000);
        } catch (Exception e) {
          System.out.println("cancel of " + running + " failed: " + e);
        }
      }
      if (cluster != null) {
        cluster.close();
      }
      step("total", total);
      System.out.println("SessionClusterITCase timings:");
      timings.forEach((k, v) -> System.out.printf("  %6.1f s  %s%n", v.toMillis() / 1000.0, k));
    }
  }

  private void step(String name, long startNanos) {
    Duration d = FlinkSessionCluster.since(startNanos);
    timings.put(name, d);
    System.out.printf("[session-cluster] %6.1f s  %s%n", d.toMillis() / 1000.0, name);
  }

  private Map<String, String> clusterConf() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("state.backend.type", "rocksdb");
    c.put("state.backend.incremental", "true");
    c.put("state.checkpoints.dir", tmp.resolve("checkpoints").toUri().toString());
    c.put("state.savepoints.dir", tmp.resolve("savepoints").toUri().toString());
    c.put("execution.checkpointing.interval", "1s");
    c.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    c.put("restart-strategy.type", "fixed-delay");
    c.put("restart-strategy.fixed-delay.attempts", "100");
    c.put("restart-strategy.fixed-delay.delay", "1s");
    // A SIGKILLed TaskManager is noticed after the heartbeat timeout (50 s by default).
    c.put("heartbeat.interval", "1000");
    c.put("heartbeat.timeout", "8000");
    return c;
  }

  private Path writeConfig(TestDatabase db, Path lake) throws Exception {
    String props =
        String.join(
            "\n",
            "postgres.url=" + db.jdbcUrl(),
            "postgres.user=" + EmbeddedPostgresServer.USER,
            "postgres.slot=" + db.slot(),
            "postgres.publication=" + TestDatabase.PUBLICATION,
            "writer.id=" + WRITER,
            "lake.root=" + lake,
            "checkpoint.interval=1s",
            "horizon.tick-period=200ms",
            "batch.max-rows=25",
            "lease.duration=10s",
            "lease.renew-period=2s",
            "lease.safety-margin=4s",
            "");
    Path config = tmp.resolve("lakewriter.properties");
    Files.writeString(config, props);
    return config;
  }

  private static void awaitOnOtherTaskManager(FlinkRest rest, String job, String victim)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<String> busy = rest.busyTaskManagers();
      if (!busy.isEmpty() && !busy.contains(victim)) {
        rest.awaitRunning(job, WAIT);
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("job " + job + " did not move off " + victim);
  }

  private static long awaitCaughtUp(TestDatabase db) throws Exception {
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    CommittedFrontier.await(db, WRITER, max, WAIT);
    return max;
  }

  private static void assertLakeEqualsOutbox(TestDatabase db, Path lake, long max)
      throws Exception {
    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
      assertThat(result.problems()).isEmpty();
      assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
    }
  }

  private String runUpgradeScript(
      FlinkSessionCluster cluster, Path jar, String savepoints, String job, List<String> args)
      throws Exception {
    Path script =
        Path.of(System.getProperty("lakewriter.repo.root", ".."), "bin", "upgrade.sh");
    List<String> command =
        new ArrayList<>(
            List.of(
                "bash", script.toString(), "--rest", cluster.restUrl(), "--job", job, "--jar",
                jar.toString(), "--savepoint-dir", savepoints, "--timeout", "150", "--"));
    command.addAll(args);
    Path log = tmp.resolve("upgrade.log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("bin/upgrade.sh ends").isTrue();
    } finally {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    System.out.print(out);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("savepoint: ").contains("is RUNNING").contains("completed 2 checkpoints");
    return out.replaceAll("(?s).*new job: ([0-9a-f]{32}).*", "$1");
  }
}
