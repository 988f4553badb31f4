package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * {@code lakewriter run} in its own JVM: killed with SIGKILL in the middle of a workload, started
 * again with {@code --restore}, and the lake ends up exactly equal to the outbox.
 */
class RunRestoreITCase {
  private static final Duration WAIT = Duration.ofSeconds(150);
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void sigkillThenRestoreLeavesTheLakeExactlyEqualToTheOutbox() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      List<String> args = runArgs(db, lake, tmp.resolve("state"));
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> write(db, writing), "outbox-writer");

      Process first = start(args, tmp.resolve("run-1.log"));
      writer.start();
      CommittedFrontier.await(db, "w1", 150, WAIT);
      first.destroyForcibly(); // SIGKILL: no savepoint, no clean shutdown
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      long frontierAtKill = CommittedFrontier.read(db, "w1");
      awaitSlotReleased(db);

      List<String> restore = new ArrayList<>(args);
      restore.add("--restore");
      Process second = start(restore, tmp.resolve("run-2.log"));
      try {
        Thread.sleep(4000);
        writing.set(false);
        writer.join();
        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        assertThat(max).isGreaterThan(frontierAtKill);
        CommittedFrontier.await(db, "w1", max, WAIT);
        assertThat(Files.readString(tmp.resolve("run-2.log"))).contains("restored from");

        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        try (Connection c = db.connect()) {
          LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
          assertThat(result.problems()).isEmpty();
          assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
        }
      } finally {
        writing.set(false);
        second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        awaitSlotReleased(db);
      }
    }
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state) {
    List<String> args = new ArrayList<>();
    args.add("run");
    for (String option :
        new String[] {
          "postgres.url=" + db.jdbcUrl(),
          "postgres.user=" + EmbeddedPostgresServer.USER,
          "postgres.slot=" + db.slot(),
          "postgres.publication=" + TestDatabase.PUBLICATION,
          "writer.id=w1",
          "lake.root=" + lake,
          "state.dir=" + state,
          "checkpoint.interval=500ms",
          "horizon.tick-period=200ms",
          "batch.max-rows=25",
          // The restart after the SIGKILL waits for the killed writer's leader lease to expire
          // (docs/leader-lease.md): keep that wait short here.
          "lease.duration=10s",
          "lease.renew-period=2s",
          "lease.safety-margin=4s"
        }) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  private static Process start(List<String> args, Path log) throws Exception {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(classpath);
    command.add("org.oml.lakewriter.cli.LakeWriterCli");
    command.addAll(args);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /** Writes a steady trickle of rows until told to stop. */
  private static void write(TestDatabase db, AtomicBoolean writing) {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; writing.get(); i++) {
        String tenant = i % 3 == 0 ? "acme" : i % 3 == 1 ? "globex" : "initech";
        if (i % 5 == 0) {
          byte[] body = ("body-" + i).getBytes(StandardCharsets.UTF_8);
          OutboxWriter.materialize(c, tenant, "a-" + i, 1, body);
        } else {
          OutboxWriter.journal(c, tenant, "a-" + i);
        }
        if (i % 4 == 0) {
          c.commit();
          Thread.sleep(60);
        }
      }
      c.commit();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitSlotReleased(TestDatabase db) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      if (db.scalarLong(
              "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                  + "' AND active")
          == 0) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("slot " + db.slot() + " still held " + File.separator);
  }
}
