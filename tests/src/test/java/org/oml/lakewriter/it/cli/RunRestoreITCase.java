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
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
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

  /**
   * A supervisor's restart loop (item 12): the same command line every time, and SIGKILLs that
   * come at any moment. The first comes before any checkpoint completed and while the dead
   * writer's walsender may still hold the slot; the same command line starts fresh, the next kill
   * comes after a checkpoint, and the same command line resumes from it. Every row lands once.
   */
  @Test
  void theSameCommandLineBringsTheWriterBackAfterAKillBeforeTheFirstCheckpoint() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Path state = tmp.resolve("state");
      Path logs = Files.createDirectories(Path.of("target", "run-logs"));
      List<String> args = runArgs(db, lake, state, "4s", "w1");
      args.add("--restore"); // the supervisor's line: it must work from the very first start
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> write(db, writing, 250), "outbox-writer");
      writer.start();
      try {
        Path log1 = logs.resolve("supervised-run-1.log");
        Process first = start(args, log1);
        CliProcess.awaitLog(first, log1, "lake writer running", WAIT);
        awaitSlotExists(db, Duration.ofSeconds(3));
        assertThat(completedCheckpoints(state)).as("killed before the first checkpoint").isEmpty();
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

        // At once, as a supervisor does: no waiting for the slot here.
        Path log2 = logs.resolve("supervised-run-2.log");
        Process second = start(args, log2);
        try {
          CliProcess.awaitLog(
              second, log2, "lakewriter: starting fresh: no completed checkpoint", WAIT);
          CliProcess.awaitLog(second, log2, "lake writer running", WAIT);
          awaitCompletedCheckpoint(state);
          CommittedFrontier.await(db, "w1", 50, WAIT);
        } finally {
          second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        Path log3 = logs.resolve("supervised-run-3.log");
        Process third = start(args, log3);
        try {
          CliProcess.awaitLog(third, log3, "lakewriter: resuming from the checkpoint", WAIT);
          CliProcess.awaitLog(third, log3, "restored from", WAIT);
          Thread.sleep(3000);
          writing.set(false);
          writer.join();
          long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
          CommittedFrontier.await(db, "w1", max, WAIT);
          LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
          try (Connection c = db.connect()) {
            LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
            assertThat(result.problems()).isEmpty();
            assertThat(result.outboxRows())
                .isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
          }
        } finally {
          third.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      } finally {
        writing.set(false);
        writer.join();
        awaitSlotReleased(db);
      }
    }
  }

  /**
   * Item 16: a state dir holds one writer's checkpoints. Run against another lake root, writer id
   * or database, the same state dir is refused before anything starts, naming both sides.
   */
  @Test
  void aStateDirIsNotRestoredAgainstAnotherDatabaseLakeRootOrWriterId() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg);
        TestDatabase other = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Path state = tmp.resolve("state");
      Path log = tmp.resolve("run-1.log");
      Process first = start(runArgs(db, lake, state), log);
      try {
        CliProcess.awaitLog(first, log, "lake writer running", WAIT);
        awaitCompletedCheckpoint(state);
      } finally {
        first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        awaitSlotReleased(db);
      }
      String lakeUri = lake.toAbsolutePath().toUri().toString().replaceAll("/$", "");
      Path otherLake = tmp.resolve("other-lake");

      CliProcess.Finished anotherLake =
          CliProcess.runToEnd(runArgs(db, otherLake, state), tmp.resolve("lake.log"), WAIT);
      assertThat(anotherLake.exitCode()).as(anotherLake.log()).isEqualTo(2);
      assertThat(anotherLake.log())
          .contains("STATE_IDENTITY_MISMATCH: state.dir = " + state.toAbsolutePath())
          .contains("lake.root: " + lakeUri + " vs " + otherLake.toAbsolutePath().toUri())
          .doesNotContain("lake.root: " + lakeUri + "/");

      CliProcess.Finished anotherWriter =
          CliProcess.runToEnd(
              runArgs(db, lake, state, "500ms", "w2"), tmp.resolve("writer.log"), WAIT);
      assertThat(anotherWriter.exitCode()).as(anotherWriter.log()).isEqualTo(2);
      assertThat(anotherWriter.log())
          .contains("STATE_IDENTITY_MISMATCH")
          .contains("writer.id: w1 vs w2");

      CliProcess.Finished anotherDatabase =
          CliProcess.runToEnd(runArgs(other, lake, state), tmp.resolve("db.log"), WAIT);
      assertThat(anotherDatabase.exitCode()).as(anotherDatabase.log()).isEqualTo(2);
      assertThat(anotherDatabase.log())
          .contains("STATE_IDENTITY_MISMATCH")
          .containsPattern(
              "database: '" + db.name() + "' of cluster \\d+ vs '" + other.name()
                  + "' of cluster \\d+")
          .contains("postgres.slot: " + db.slot() + " vs " + other.slot());
    }
  }

  private static List<Path> completedCheckpoints(Path state) throws Exception {
    if (!Files.isDirectory(state)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(state)) {
      return files.filter(p -> p.getFileName().toString().equals("_metadata")).toList();
    }
  }

  private static void awaitCompletedCheckpoint(Path state) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (completedCheckpoints(state).isEmpty()) {
      assertThat(System.nanoTime()).as("no completed checkpoint in " + state).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static void awaitSlotExists(TestDatabase db, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline
        && db.scalarLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot() + "'")
            == 0) {
      Thread.sleep(100);
    }
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state) {
    return runArgs(db, lake, state, "500ms", "w1");
  }

  private static List<String> runArgs(
      TestDatabase db, Path lake, Path state, String checkpointInterval, String writerId) {
    List<String> args = new ArrayList<>();
    args.add("run");
    for (String option :
        new String[] {
          "postgres.url=" + db.jdbcUrl(),
          "postgres.user=" + EmbeddedPostgresServer.USER,
          "postgres.slot=" + db.slot(),
          "postgres.publication=" + TestDatabase.PUBLICATION,
          "writer.id=" + writerId,
          "lake.root=" + lake,
          "state.dir=" + state,
          "checkpoint.interval=" + checkpointInterval,
          "horizon.tick-period=200ms",
          "batch.max-rows=25",
          // A restart on this machine proves the killed writer dead and takes its leader lease
          // at once; any restart that cannot would wait for it to expire (docs/leader-lease.md):
          // keep that wait short here.
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
    return CliProcess.start(args, log);
  }

  /** Writes a steady trickle of rows until told to stop. */
  private static void write(TestDatabase db, AtomicBoolean writing) {
    write(db, writing, 60);
  }

  /** Writes a trickle of rows, four per transaction, pausing {@code pauseMillis} after each. */
  private static void write(TestDatabase db, AtomicBoolean writing, long pauseMillis) {
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
          Thread.sleep(pauseMillis);
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
