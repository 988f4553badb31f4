package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Compaction inside {@code lakewriter run} (its own JVM, PostgreSQL, a real lake), across a
 * SIGKILL and a {@code --restore}, under promotions and retractions, then {@code maintain compact}
 * and {@code maintain checkpoint} once the writer is gone (refused while it is live). Every check
 * reads the lake back independently ({@link LakeReader}, {@link LakeVerifier} against the outbox
 * fold).
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class CompactionRunITCase {
  private static final Duration WAIT = Duration.ofSeconds(150);
  private static final int MIN_FILES = 4;
  private static final int TENANTS = 8;
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
  void compactionInTheJobLosesAndDuplicatesNothingAcrossASigkillAndMaintainRefusesALiveWriter()
      throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      LakeConfig lakeConfig = LakeConfig.of(lake.toUri().toString());
      List<String> args = runArgs(db, lake, tmp.resolve("state"));
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = new Thread(() -> write(db, writing), "outbox-writer");

      Process first = CliProcess.start(args, tmp.resolve("run-1.log"));
      writer.start();
      try {
        CommittedFrontier.await(db, "w1", 300, WAIT);
        awaitCompactionCommit(lake);
        // A sustained run: the files of every table, sampled every second for 40 s. Compaction
        // runs on a thread of its own (stop 41), so a table may be over the bound while the
        // compactor works on the others; it must come back under it within OVER_BOUND_SAMPLES
        // samples, and never reach twice the bound.
        int sampledMax = 0;
        java.util.Map<TableId, Integer> overInARow = new java.util.HashMap<>();
        for (int s = 0; s < 40; s++) {
          LakeReader sample = LakeReader.open(lakeConfig);
          for (TableId table : sample.tables()) {
            int files;
            int bound;
            try {
              files = sample.fileCount(table);
              bound = bound(sample, table);
            } catch (java.io.IOException | RuntimeException e) {
              // A table created or committed to while it was listed: the next sample reads it.
              continue;
            }
            sampledMax = Math.max(sampledMax, files);
            assertThat(files).as(table.toString()).isLessThanOrEqualTo(2 * bound);
            int over = files > bound ? overInARow.getOrDefault(table, 0) + 1 : 0;
            overInARow.put(table, over);
            assertThat(over)
                .as(table + ": samples in a row over the bound " + bound + " (" + files + " files)")
                .isLessThanOrEqualTo(OVER_BOUND_SAMPLES);
          }
          Thread.sleep(1000);
        }
        System.out.println(
            "CompactionRunITCase: max files per table while running (40 s, "
                + TENANTS
                + " tenants): "
                + sampledMax);

        // The writer is live: maintain refuses, naming why, and changes nothing.
        CliProcess.Finished refused =
            CliProcess.runToEnd(
                maintainArgs(db, lake, "compact"), tmp.resolve("maintain-live.log"), WAIT);
        assertThat(refused.exitCode()).as(refused.log()).isEqualTo(3);
        assertThat(refused.log()).contains("MAINTAIN_WRITER_LIVE").contains("leader lease");

        first.destroyForcibly(); // SIGKILL, possibly in the middle of a compaction
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        awaitSlotReleased(db);
      } finally {
        first.destroyForcibly();
      }

      long compactionsAtKill = countCompactionCommits(lake);
      List<String> restore = new ArrayList<>(args);
      restore.add("--restore");
      Process second = CliProcess.start(restore, tmp.resolve("run-2.log"));
      long max;
      try {
        // The restored job compacts too, once its writer has written a unit and a table has
        // min-files small files again: the traffic goes on until it has (on a loaded machine
        // a fixed few seconds of traffic may not make enough files).
        Thread.sleep(6000);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (countCompactionCommits(lake) == compactionsAtKill) {
          assertThat(System.nanoTime()).as("no compaction after the restore").isLessThan(deadline);
          Thread.sleep(500);
        }
        writing.set(false);
        writer.join();
        max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", max, WAIT);
        assertThat(Files.readString(tmp.resolve("run-2.log"))).contains("restored from");
        verifyExact(db, lakeConfig, max);
        // The compactor runs behind the commits on its own thread: once the traffic has stopped
        // it must bring every table within the bound (asserted after the kill below).
        awaitWithinBound(lakeConfig);
      } finally {
        writing.set(false);
        second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        awaitSlotReleased(db);
      }
      LakeReader reader = LakeReader.open(lakeConfig);
      int maxFiles = 0;
      for (TableId table : reader.tables()) {
        int files = reader.fileCount(table);
        maxFiles = Math.max(maxFiles, files);
        assertThat(reader.tableVersion(table)).as(table + " commits").isGreaterThan(MIN_FILES);
        assertThat(files).as(table.toString()).isLessThanOrEqualTo(bound(reader, table));
      }
      long compactions = countCompactionCommits(lake);
      System.out.println(
          "CompactionRunITCase: "
              + compactions
              + " compaction commits; max files per table after the run: "
              + maxFiles);
      assertThat(compactions).isPositive();
      // No compaction pulled a file out from under a planned rewrite (that would quarantine its
      // tenant), and none failed.
      for (String run : List.of("run-1.log", "run-2.log")) {
        assertThat(Files.readString(tmp.resolve(run)))
            .doesNotContain("TENANT_QUARANTINED")
            .doesNotContain("COMPACTION_FAILED");
      }

      // The killed writer's lease expires (lease.duration 10 s); then maintain runs.
      Map<TableId, List<Map<String, Object>>> before = rows(lakeConfig);
      CliProcess.Finished compact = awaitMaintain(db, lake, "compact");
      assertThat(compact.log()).contains("compact ");
      assertThat(rows(lakeConfig)).isEqualTo(before);
      verifyExact(db, lakeConfig, max);
      for (TableId table : LakeReader.open(lakeConfig).tables()) {
        assertThat(LakeReader.open(lakeConfig).fileCount(table)).as(table.toString()).isLessThanOrEqualTo(1);
      }

      CliProcess.Finished checkpoint =
          CliProcess.runToEnd(
              maintainArgs(db, lake, "checkpoint", "--table", "silver"),
              tmp.resolve("maintain-checkpoint.log"),
              WAIT);
      assertThat(checkpoint.exitCode()).as(checkpoint.log()).isZero();
      for (TableId table : LakeReader.open(lakeConfig).tables()) {
        if (table.kind() == TableKind.SILVER_MEMORIES) {
          long version = LakeReader.open(lakeConfig).tableVersion(table);
          assertThat(
                  lake.resolve(table.relativePath())
                      .resolve("_delta_log")
                      .resolve(String.format("%020d.checkpoint.parquet", version)))
              .exists();
        }
      }
      assertThat(rows(lakeConfig)).isEqualTo(before);
    }
  }

  /**
   * The files a table may have: min-files - 1 small files, the files of rewrites planned but not
   * committed when the last compaction ran, the checkpoint's new file and the file a compaction
   * wrote (2 x min-files), plus one file per size tier the job's size-tiered compaction leaves
   * alone, each larger than all the smaller ones together: at most 1 + log2(commits).
   */
  /** One-second samples a table may stay over {@link #bound} while the compactor catches up. */
  private static final int OVER_BOUND_SAMPLES = 5;

  private static int bound(LakeReader reader, TableId table) throws java.io.IOException {
    long commits = Math.max(2, reader.tableVersion(table));
    return 2 * MIN_FILES + 1 + (int) Math.ceil(Math.log(commits) / Math.log(2));
  }

  /** Waits up to {@link #WAIT} until no table of the lake has more files than its bound. */
  private static void awaitWithinBound(LakeConfig lake) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      LakeReader reader = LakeReader.open(lake);
      List<String> over = new ArrayList<>();
      for (TableId table : reader.tables()) {
        int files = reader.fileCount(table);
        if (files > bound(reader, table)) {
          over.add(table + " (" + files + " files)");
        }
      }
      if (over.isEmpty()) {
        return;
      }
      assertThat(System.nanoTime())
          .as("tables still over the file bound after the traffic stopped: " + over)
          .isLessThan(deadline);
      Thread.sleep(500);
    }
  }

  private static void verifyExact(TestDatabase db, LakeConfig lake, long max) throws Exception {
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", LakeReader.open(lake), max);
      assertThat(result.problems()).isEmpty();
      assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
    }
  }

  /** Retries {@code maintain} until the killed writer's lease has expired (exit 3 until then). */
  private CliProcess.Finished awaitMaintain(TestDatabase db, Path lake, String verb)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    for (int attempt = 0; ; attempt++) {
      CliProcess.Finished done =
          CliProcess.runToEnd(
              maintainArgs(db, lake, verb), tmp.resolve("maintain-" + verb + attempt + ".log"), WAIT);
      if (done.exitCode() == 0) {
        return done;
      }
      assertThat(done.exitCode()).as(done.log()).isEqualTo(3);
      assertThat(System.nanoTime()).as(done.log()).isLessThan(deadline);
      Thread.sleep(2000);
    }
  }

  private static Map<TableId, List<Map<String, Object>>> rows(LakeConfig lake) throws Exception {
    Map<TableId, List<Map<String, Object>>> all = new TreeMap<>();
    LakeReader reader = LakeReader.open(lake);
    for (TableId table : reader.tables()) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Map<String, Object> row : reader.rows(table)) {
        Map<String, Object> copy = new TreeMap<>();
        row.forEach((k, v) -> copy.put(k, v instanceof byte[] b ? HexFormat.of().formatHex(b) : v));
        rows.add(copy);
      }
      rows.sort(
          java.util.Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("seq")))
              .thenComparing(r -> String.valueOf(r.get("artifact_id"))));
      all.put(table, rows);
    }
    return all;
  }

  private static void awaitCompactionCommit(Path lake) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (countCompactionCommits(lake) == 0) {
      assertThat(System.nanoTime()).as("no compaction commit in " + lake).isLessThan(deadline);
      Thread.sleep(500);
    }
  }

  /**
   * Commits whose commitInfo names our compaction (its engineInfo). The walk runs beside the
   * writer, whose log store renames its temporary files away: a walk that meets one is repeated.
   */
  private static long countCompactionCommits(Path lake) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return countCompactionCommitsOnce(lake);
      } catch (java.io.UncheckedIOException e) {
        if (!(e.getCause() instanceof java.nio.file.NoSuchFileException) || attempt == 20) {
          throw e;
        }
      }
    }
  }

  private static long countCompactionCommitsOnce(Path lake) throws Exception {
    if (!Files.isDirectory(lake)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(lake)) {
      return files
          .filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
          .filter(
              p -> {
                try {
                  return Files.readString(p).contains(" compaction\"");
                } catch (java.io.IOException e) {
                  return false;
                }
              })
          .count();
    }
  }

  private static List<String> maintainArgs(TestDatabase db, Path lake, String... verb) {
    List<String> args = new ArrayList<>();
    args.add("maintain");
    args.addAll(List.of(verb));
    List<String> options = new ArrayList<>(common(db, lake));
    // One target for every table, so that maintain compact leaves each table in one file, which
    // the test asserts. With the keyed cap (64 KB by default) a keyed table's rows are cut into
    // files of the cap; that split is CompactionITCase's.
    options.add("maintenance.compact.keyed-target-file-size=128mb");
    for (String option : options) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  private static List<String> common(TestDatabase db, Path lake) {
    return List.of(
        "postgres.url=" + db.jdbcUrl(),
        "postgres.user=" + EmbeddedPostgresServer.USER,
        "postgres.slot=" + db.slot(),
        "postgres.publication=" + TestDatabase.PUBLICATION,
        "writer.id=w1",
        "lake.root=" + lake,
        "lease.duration=10s",
        "lease.renew-period=2s",
        "lease.safety-margin=4s");
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state) {
    List<String> args = new ArrayList<>();
    args.add("run");
    List<String> options = new ArrayList<>(common(db, lake));
    options.addAll(
        List.of(
            "state.dir=" + state,
            "checkpoint.interval=500ms",
            "horizon.tick-period=200ms",
            "batch.max-rows=25",
            "maintenance.compact.enabled=true",
            "maintenance.compact.min-files=" + MIN_FILES,
            // The default budget is a fifth of the interval (100 ms here): too little for every
            // table to be reached each round with 500 ms checkpoints, and the bound asserted
            // below assumes that every due table is reached (docs/compaction.md).
            "maintenance.compact.budget-per-checkpoint=2s"));
    for (String option : options) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  /**
   * A trickle of rows for {@link #TENANTS} tenants: journals, promotions, and demotes and erases of rows
   * promoted a little earlier (so the job's compactions run next to copy-on-write rewrites).
   */
  private static void write(TestDatabase db, AtomicBoolean writing) {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; writing.get(); i++) {
        String tenant = "tenant-" + (i % TENANTS);
        if (i % 5 == 0) {
          byte[] body = ("body-" + i).getBytes(StandardCharsets.UTF_8);
          OutboxWriter.materialize(c, tenant, "a-" + i, 1, body);
        } else if (i % 5 == 2 && i >= 72) {
          // a-(i-72) is a promotion of the same tenant (72 = 0 mod 8, 2 mod 5).
          OutboxWriter.retract(c, tenant, i % 2 == 0 ? "erase" : "demote", "a-" + (i - 72), 1);
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
    throw new AssertionError("slot " + db.slot() + " still held");
  }
}
