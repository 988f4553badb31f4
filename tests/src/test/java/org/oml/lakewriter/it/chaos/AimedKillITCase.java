package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 13, SIGKILLs aimed at the two windows of a Delta commit, on {@code lakewriter run} in its
 * own JVM under a steady workload (see {@code docs/failure-matrix.md}). {@link KillingLogStore}
 * halts the JVM (exit 137, as SIGKILL) once between a batch's Parquet files and its log entry, and
 * once between a log entry due a checkpoint and that checkpoint, and once between a compaction's
 * files and its log entry (compaction runs in the job here). Each time the test checks that the
 * kill fell in its window (the log file is absent and orphan Parquet files exist; or the log file
 * exists and its checkpoint does not), starts the same command line with {@code --restore}, and in
 * the end the lake equals the outbox ({@link LakeVerifier}: every seq once, silver the fold).
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class AimedKillITCase {
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
  void killsBetweenFilesAndLogAndLogAndCheckpointAndInACompactionLoseAndDuplicateNothing()
      throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Path marker = tmp.resolve("kill-marker");
      List<String> args = runArgs(db, lake, tmp.resolve("state"), marker);
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> write(db, writing), "outbox-writer");
      writer.start();
      Process run = null;
      try {
        Path log = tmp.resolve("run-1.log");
        run = CliProcess.start(args, log);
        CommittedFrontier.await(db, "w1", 100, WAIT);

        // 1. Between the Parquet files and the log entry.
        Path killedAt = killAt(run, log, lake, marker, "before-log");
        Path table = killedAt.getParent().getParent();
        assertThat(killedAt).as("the log entry was never written").doesNotExist();
        LakeReader atKill = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        assertThat(parquetFiles(table))
            .as("orphan data files of the killed commit")
            .isGreaterThan(atKill.fileCount(tableId(lake, table)));

        System.out.printf(
            "aimed kill 1: died before %s, %d Parquet files in the table, %d live%n",
            lake.relativize(killedAt), parquetFiles(table), atKill.fileCount(tableId(lake, table)));

        log = tmp.resolve("run-2.log");
        run = CliProcess.start(restore(args), log);
        CommittedFrontier.await(db, "w1", CommittedFrontier.read(db, "w1") + 50, WAIT);

        // 2. Between a log entry due a checkpoint and the checkpoint.
        killedAt = killAt(run, log, lake, marker, "after-log-before-checkpoint");
        assertThat(killedAt).as("the log entry is durable").exists();
        String version = killedAt.getFileName().toString().substring(0, 20);
        assertThat(killedAt.resolveSibling(version + ".checkpoint.parquet"))
            .as("its checkpoint was never written")
            .doesNotExist();

        System.out.printf(
            "aimed kill 2: died after %s, before its checkpoint%n", lake.relativize(killedAt));

        log = tmp.resolve("run-3.log");
        run = CliProcess.start(restore(args), log);
        CommittedFrontier.await(db, "w1", CommittedFrontier.read(db, "w1") + 50, WAIT);

        // 3. While a compaction runs: its files are written, its log entry is not.
        killedAt = killAt(run, log, lake, marker, "compaction-before-log");
        assertThat(killedAt).as("the compaction never committed").doesNotExist();
        System.out.printf(
            "aimed kill 3: died before compaction commit %s%n", lake.relativize(killedAt));

        run = CliProcess.start(restore(args), tmp.resolve("run-4.log"));
        Thread.sleep(3000);
        writing.set(false);
        writer.join();
        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", max, WAIT);
        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        try (Connection c = db.connect()) {
          LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
          assertThat(result.problems()).isEmpty();
          System.out.printf("aimed kills: %d outbox rows, lake verified%n", result.outboxRows());
          assertThat(result.outboxRows())
              .isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
        }
      } finally {
        writing.set(false);
        if (run != null) {
          run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }
    }
  }

  /**
   * A SIGKILL in the CDC snapshot phase: 20,000 rows are in the outbox before the first start, so
   * the source's initial snapshot reads them ({@code op=r}); the writer is killed while nothing is
   * cut yet (a horizon row read in the snapshot never cuts), with checkpoints every 300 ms, so the
   * restart resumes from a checkpoint taken in the middle of the snapshot read, or starts fresh.
   * Rows written after the kill stream in. The lake equals the outbox.
   */
  @Test
  void aKillInTheCdcSnapshotPhaseLosesAndDuplicatesNothing() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      List<String> args = runArgs(db, lake, tmp.resolve("state"), tmp.resolve("no-marker"));
      try (Connection c = db.connect()) {
        OutboxWriter.bulkJournal(c, "s", 20_000, "acme", "globex");
      }
      Path log1 = tmp.resolve("snapshot-run-1.log");
      Process run = CliProcess.start(args, log1);
      try {
        CliProcess.awaitLog(run, log1, "lake writer running", WAIT);
        // The cut cuts the preloaded rows while the snapshot reads them (cut.snapshot-phase-rows
        // below): kill right after the first of them is committed, before the last one is.
        long frontierAtKill = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (frontierAtKill == 0 && System.nanoTime() < deadline) {
          Thread.sleep(20);
          frontierAtKill = CommittedFrontier.read(db, "w1");
        }
        long checkpointsAtKill = completedCheckpoints(tmp.resolve("state"));
        run.destroyForcibly();
        assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
        System.out.printf(
            "snapshot-phase kill: frontier %d of 20000, %d completed checkpoints%n",
            frontierAtKill, checkpointsAtKill);
        assertThat(frontierAtKill)
            .as("killed after the first of the snapshot's rows was committed, before the last")
            .isPositive()
            .isLessThan(20_000);

        run = CliProcess.start(restore(args), tmp.resolve("snapshot-run-2.log"));
        try (Connection c = db.connect()) {
          c.setAutoCommit(false);
          for (int i = 0; i < 100; i++) {
            OutboxWriter.journal(c, i % 2 == 0 ? "acme" : "globex", "after-" + i);
          }
          c.commit();
        }
        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", max, WAIT);
        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        try (Connection c = db.connect()) {
          LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
          assertThat(result.problems()).isEmpty();
          assertThat(result.outboxRows()).isEqualTo(20_100);
        }
      } finally {
        run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static long completedCheckpoints(Path state) throws Exception {
    if (!Files.isDirectory(state)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(state)) {
      return files.filter(p -> p.getFileName().toString().equals("_metadata")).count();
    }
  }

  /**
   * Arms the marker, waits for the halt, returns the commit file the process died at. A process
   * that is not killed in time fails the test with the newest log entry of each table and the end
   * of its own log, so that a stall shows where it stopped.
   */
  private static Path killAt(Process run, Path log, Path lake, Path marker, String mode)
      throws Exception {
    Path killed = marker.resolveSibling(marker.getFileName() + ".killed");
    Files.deleteIfExists(killed);
    // Written whole, then moved: the store never reads a half-written mode.
    Path staged = marker.resolveSibling(marker.getFileName() + ".staged");
    Files.writeString(staged, mode);
    Files.move(staged, marker, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    if (!run.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      List<String> store =
          Files.readAllLines(log).stream().filter(l -> l.contains("KillingLogStore")).toList();
      throw new AssertionError(
          "not killed at " + mode + " within " + WAIT + "; marker "
              + (Files.exists(marker) ? "still there" : "gone") + ", "
              + (Files.exists(killed) ? "killed-file says " + Files.readString(killed) : "no killed-file")
              + "; newest log entries: " + newestLogEntries(lake)
              + "\nthe store's lines (" + store.size() + "), the first 100:\n"
              + String.join("\n", store.subList(0, Math.min(100, store.size())))
              + "\nthe run's log ends:\n" + tail(log, 150));
    }
    assertThat(run.exitValue()).as("halted like SIGKILL").isEqualTo(137);
    return Path.of(
        Files.readString(marker.resolveSibling(marker.getFileName() + ".killed")).trim());
  }

  private static List<String> newestLogEntries(Path lake) throws Exception {
    try (Stream<Path> files = Files.walk(lake)) {
      return files
          .filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
          .collect(
              java.util.stream.Collectors.toMap(
                  Path::getParent, p -> p, (a, b) -> a.compareTo(b) > 0 ? a : b))
          .values()
          .stream()
          .map(p -> lake.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  private static String tail(Path log, int lines) throws Exception {
    List<String> all = Files.readAllLines(log);
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  private static org.oml.lakewriter.delta.TableId tableId(Path lake, Path table) {
    Path relative = lake.relativize(table);
    String tenant = relative.getName(0).toString();
    String rest = relative.subpath(1, relative.getNameCount()).toString();
    for (org.oml.lakewriter.delta.TableKind kind : org.oml.lakewriter.delta.TableKind.values()) {
      if (kind.path().equals(rest)) {
        return org.oml.lakewriter.delta.TableId.of(tenant, kind);
      }
    }
    throw new AssertionError("not a lake table: " + table);
  }

  private static long parquetFiles(Path table) throws Exception {
    try (Stream<Path> files = Files.list(table)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".parquet")).count();
    }
  }

  private static List<String> restore(List<String> args) {
    List<String> restore = new ArrayList<>(args);
    restore.add("--restore");
    return restore;
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state, Path marker) {
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
          "lake.log-checkpoint-interval=10", // KillingLogStore's after-log-before-checkpoint
          "lake.log-checkpoint-stagger=false", // ... kills at the multiples of 10
          "state.dir=" + state,
          "checkpoint.interval=300ms",
          "horizon.tick-period=200ms",
          "batch.max-rows=25",
          // The snapshot-phase kill: the cut cuts the 20,000 preloaded rows while the snapshot
          // reads them, 2,000 at a time (docs/cut-and-tick.md, "Cutting during the snapshot").
          "cut.snapshot-phase-rows=2000",
          "lease.duration=10s",
          "lease.renew-period=2s",
          "lease.safety-margin=4s",
          "maintenance.compact.enabled=true",
          "maintenance.compact.min-files=4",
          "maintenance.compact.budget-per-checkpoint=2s",
          "lake.hadoop.io.delta.kernel.logStore.file.impl=" + KillingLogStore.class.getName(),
          "lake.hadoop." + KillingLogStore.MARKER_KEY + "=" + marker
        }) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  /** A steady trickle: journal events and promotions of three tenants, four per transaction. */
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
          Thread.sleep(40);
        }
      }
      c.commit();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
