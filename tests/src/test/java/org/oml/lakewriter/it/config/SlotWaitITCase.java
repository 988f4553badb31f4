package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * Items 12 and 13: a slot held by a killed writer's walsender is waited for, visibly, then taken;
 * a slot of the same name in another database of the cluster is refused with its database named.
 * (A slot that a live client streams from is still refused at once: {@link SlotHeldITCase}.)
 */
@ExtendWith(SharedPostgres.class)
class SlotWaitITCase {
  @TempDir Path tmp;
  private TestDatabase db;

  @BeforeEach
  void createDatabase(EmbeddedPostgresServer pg) throws SQLException {
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabaseSlots() throws SQLException {
    db.close();
  }

  @Test
  void aSlotHeldByAKilledWritersWalsenderIsWaitedForThenTaken() throws Exception {
    String slot = db.slot();
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put("postgres.slot", slot);
    options.put("postgres.slot-wait", "60s");

    try (Connection open = db.connect()) {
      // An open transaction with an xid: a logical slot's creation waits for it to end.
      open.setAutoCommit(false);
      String openXid = scalar(open, "SELECT pg_current_xact_id()::text");
      int walsender = 0;
      String query = null;
      // A walsender that waits for WAL while it builds the slot's snapshot may notice its client's
      // death and exit (a CI run saw it once); the setup is then made again, a few times at most.
      for (int attempt = 1; query == null && attempt <= 3; attempt++) {
        Path log = tmp.resolve("creator-" + attempt + ".log");
        Process creator =
            CliProcess.start(SlotCreator.class.getName(), List.of(db.jdbcUrl(), slot), log);
        walsender = awaitHolder(slot);
        creator.destroyForcibly(); // SIGKILL: the walsender normally notices only after the wait
        assertThat(creator.waitFor(30, TimeUnit.SECONDS)).isTrue();
        try (Connection c = db.connect()) {
          query = scalar(c, "SELECT query FROM pg_stat_activity WHERE pid = ?", walsender);
        }
        if (query == null) {
          awaitFree(slot);
        }
      }
      assertThat(query).as("the killed creator's walsender").startsWith("CREATE_REPLICATION_SLOT");

      Thread ender =
          new Thread(
              () -> {
                try {
                  Thread.sleep(4000);
                  open.commit();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      ender.start();
      long start = System.nanoTime();
      String err = stderrOf(() -> Preflight.check(config(options), false, false));
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      ender.join();

      assertThat(waited).as("waited for the open transaction " + openXid).isGreaterThan(3000);
      assertThat(err)
          .contains("replication slot '" + slot + "' (postgres.slot) is held by pid " + walsender)
          .contains("walsender")
          .contains("CREATE_REPLICATION_SLOT")
          .contains("not a live writer")
          .contains("waiting up to")
          .contains("replication slot '" + slot + "' is free after");
    }
  }

  @Test
  void aSlotHeldByAKilledWritersWalsenderIsWaitedForOnlyUpToPostgresSlotWait() throws Exception {
    String slot = db.slot();
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put("postgres.slot", slot);
    options.put("postgres.slot-wait", "2s");

    try (Connection open = db.connect()) {
      open.setAutoCommit(false);
      scalar(open, "SELECT pg_current_xact_id()::text");
      Process creator =
          CliProcess.start(
              SlotCreator.class.getName(), List.of(db.jdbcUrl(), slot), tmp.resolve("c.log"));
      int walsender = awaitHolder(slot);
      creator.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

      assertThatThrownBy(() -> Preflight.check(config(options), false, false))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("is still held by another process (pid " + walsender)
          .hasMessageContaining("postgres.slot-wait = 2 s")
          .hasMessageContaining("pg_terminate_backend(" + walsender + ")");
      open.rollback();
    }
    awaitFree(slot);
  }

  @Test
  void aSlotOfTheSameNameInAnotherDatabaseIsRefusedNamingItsDatabase(EmbeddedPostgresServer pg)
      throws Exception {
    try (TestDatabase other = TestDatabase.create(pg)) {
      String slot = other.slot();
      try (Connection c = other.connect()) {
        scalar(c, "SELECT pg_create_logical_replication_slot(?, 'pgoutput')::text", slot);
      }
      Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
      options.put("postgres.slot", slot);

      assertThatThrownBy(() -> Preflight.check(config(options), false, false))
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(
              "SLOT_IN_OTHER_DATABASE: replication slot '" + slot + "' (postgres.slot) belongs to"
                  + " database '" + other.name() + "' of the same cluster, not to '" + db.name()
                  + "'")
          .hasMessageContaining("Set postgres.slot to another name")
          .hasMessageContaining("SELECT pg_drop_replication_slot('" + slot + "')");
    }
  }

  private void awaitFree(String slot) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection c = db.connect()) {
      while (scalar(
              c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ? AND active", slot)
          != null) {
        assertThat(System.nanoTime()).as("slot %s still held", slot).isLessThan(deadline);
        Thread.sleep(50);
      }
    }
  }

  /** Waits until a process holds the slot and returns its pid. */
  private int awaitHolder(String slot) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection c = db.connect()) {
      while (true) {
        String pid =
            scalar(
                c,
                "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = ? AND active",
                slot);
        if (pid != null) {
          return Integer.parseInt(pid);
        }
        assertThat(System.nanoTime()).as("nobody holds slot %s", slot).isLessThan(deadline);
        Thread.sleep(50);
      }
    }
  }

  private interface Check {
    void run() throws Exception;
  }

  /** Runs the check with System.err captured (one at a time, as CliRun does). */
  private static String stderrOf(Check check) throws Exception {
    synchronized (CliRun.STDIO) {
      PrintStream stderr = System.err;
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      try {
        check.run();
      } finally {
        System.setErr(stderr);
      }
      stderr.print(err.toString(StandardCharsets.UTF_8));
      return err.toString(StandardCharsets.UTF_8);
    }
  }
}
