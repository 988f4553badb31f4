package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
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
 * Issue 13: PostgreSQL invalidates the writer's slot through {@code max_slot_wal_keep_size}, once
 * while the writer is stopped and once under a running writer. Both end in {@code
 * SLOT_INVALIDATED} (exit 2, at every restart with the same command line) and never in a skip;
 * {@code --accept-lost-slot} then brings every row into the lake.
 *
 * <p>Its own PostgreSQL: the test changes {@code max_slot_wal_keep_size}, a cluster-wide setting.
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class SlotInvalidationITCase {
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
  void anInvalidatedSlotStopsTheWriterLoudlyAndAcceptingItLosesNoRow() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      db.execute("CREATE TABLE wal_filler (x text)");
      Path lake = tmp.resolve("lake");
      List<String> args = runArgs(db, lake, tmp.resolve("state"));
      writeRows(db, 0, 40);

      Process first = CliProcess.start(args, tmp.resolve("run-1.log"));
      long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
      try {
        CommittedFrontier.await(db, "w1", max, WAIT);
      } finally {
        first.destroy(); // SIGTERM: a savepoint, the slot released
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
      }
      awaitSlotReleased(db);

      // While the writer is stopped: rows it has not read, then the WAL that held them is gone.
      writeRows(db, 40, 40);
      invalidateSlot(db, null);

      CliProcess.Finished refused =
          CliProcess.runToEnd(args, tmp.resolve("run-2.log"), WAIT);
      assertThat(refused.exitCode()).as(refused.log()).isEqualTo(2);
      assertThat(refused.log())
          .contains("lakewriter: SLOT_INVALIDATED: replication slot '" + db.slot() + "'")
          .contains("wal_status lost")
          .contains("--accept-lost-slot")
          .contains("max_slot_wal_keep_size");
      assertThat(CommittedFrontier.read(db, "w1")).as("nothing skipped ahead").isEqualTo(max);

      // Acknowledged: a new slot, and the completeness check refetches the 40 rows by seq.
      setKeepSize(db, "-1");
      List<String> accepting = new ArrayList<>(args);
      accepting.add("--accept-lost-slot");
      Path log3 = tmp.resolve("run-3.log");
      Process third = CliProcess.start(accepting, log3);
      try {
        CliProcess.awaitLog(third, log3, "dropped the invalidated replication slot", WAIT);
        long all = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", all, WAIT);
        assertLakeEqualsOutbox(db, lake, all);

        // Under a running writer: a transaction holds the slot's restart point back while WAL
        // piles up, PostgreSQL invalidates the slot and ends its walsender. The job restarts,
        // and its first restart ends it for good with the named error.
        try (Connection holder = db.connect()) {
          holder.setAutoCommit(false);
          try (Statement st = holder.createStatement()) {
            st.execute("INSERT INTO wal_filler VALUES ('holds restart_lsn')");
          }
          writeRows(db, 80, 10);
          invalidateSlot(db, holder);
          assertThat(third.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS))
              .as("the running writer ends once its slot is invalidated")
              .isTrue();
          holder.rollback();
        }
        String log = java.nio.file.Files.readString(log3);
        assertThat(third.exitValue()).as(log).isEqualTo(2);
        assertThat(log).contains("lakewriter: SLOT_INVALIDATED: replication slot '" + db.slot());
      } finally {
        third.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }

      // The supervisor's restart with the same command line: refused again, nothing skipped.
      setKeepSize(db, "-1");
      CliProcess.Finished again = CliProcess.runToEnd(args, tmp.resolve("run-4.log"), WAIT);
      assertThat(again.exitCode()).as(again.log()).isEqualTo(2);
      assertThat(again.log()).contains("lakewriter: SLOT_INVALIDATED");
      Path log5 = tmp.resolve("run-5.log");
      Process fifth = CliProcess.start(accepting, log5);
      try {
        long all = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", all, WAIT);
        assertLakeEqualsOutbox(db, lake, all);
      } finally {
        fifth.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        awaitSlotReleased(db);
      }
    }
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

  /**
   * Lowers {@code max_slot_wal_keep_size} to 1 MB and writes WAL segments until a checkpoint has
   * invalidated the slot. {@code holder}, when given, is an open transaction of the test that
   * keeps a running writer's slot from advancing past it.
   */
  private static void invalidateSlot(TestDatabase db, Connection holder) throws Exception {
    setKeepSize(db, "1MB");
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!"lost".equals(walStatus(db))) {
      assertThat(System.nanoTime()).as("slot never invalidated").isLessThan(deadline);
      try (Connection c = db.connect();
          Statement st = c.createStatement()) {
        for (int i = 0; i < 3; i++) {
          st.execute("INSERT INTO wal_filler SELECT repeat('x', 1000) FROM generate_series(1, 3000)");
          st.execute("SELECT pg_switch_wal()");
        }
        st.execute("CHECKPOINT");
      }
    }
  }

  private static String walStatus(TestDatabase db) throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        var rs =
            st.executeQuery(
                "SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                    + "'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  private static void setKeepSize(TestDatabase db, String size) throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      st.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '" + size + "'");
      st.execute("SELECT pg_reload_conf()");
    }
  }

  private static void writeRows(TestDatabase db, int from, int count) throws Exception {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = from; i < from + count; i++) {
        OutboxWriter.journal(c, i % 2 == 0 ? "acme" : "globex", "a-" + i);
      }
      c.commit();
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
          "lease.duration=10s",
          "lease.renew-period=2s",
          "lease.safety-margin=4s"
        }) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  private static void awaitSlotReleased(TestDatabase db) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (db.scalarLong(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                + "' AND active")
        > 0) {
      assertThat(System.nanoTime()).as("slot still held").isLessThan(deadline);
      Thread.sleep(200);
    }
  }
}
