package org.oml.lakewriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * The bench's waits on other sessions, against a real PostgreSQL: a session that holds a lock on
 * the scratch schema makes the teardown's drop fail within its wait, and a transaction open
 * elsewhere in the cluster makes the slot's creation fail within its wait, each naming the
 * session, instead of waiting for ever.
 */
@Timeout(120) // an unbounded lock wait fails here instead of hanging the build
class SizingRunBoundedWaitsTest {
  private static EmbeddedPostgresServer pg;

  @BeforeAll
  static void start() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stop() {
    pg.close();
  }

  @Test
  void aDropBlockedByAnOpenTransactionNamesItsHolderAndSucceedsOnceItEnds() throws Exception {
    try (Connection setup = pg.connect();
        Statement st = setup.createStatement()) {
      st.execute("CREATE SCHEMA scratch_locked");
      st.execute("CREATE TABLE scratch_locked.t (k int)");
    }
    try (Connection holder = pg.connect();
        Statement h = holder.createStatement()) {
      h.execute("SET application_name = 'stuck-client'");
      holder.setAutoCommit(false);
      h.execute("SELECT count(*) FROM scratch_locked.t");
      int holderPid = pid(holder);

      long t0 = System.nanoTime();
      try (Connection c = pg.connect()) {
        assertThatThrownBy(
                () ->
                    SizingRun.dropWithin(
                        c, "DROP SCHEMA scratch_locked CASCADE", "scratch_locked",
                        Duration.ofMillis(500)))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("lock timeout")
            .hasMessageContaining("held by pid " + holderPid)
            .hasMessageContaining("application 'stuck-client', idle in transaction")
            .hasMessageContaining("t AccessShareLock")
            .hasMessageContaining("pg_terminate_backend");
      }
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
      holder.rollback();
    }
    try (Connection c = pg.connect()) {
      SizingRun.dropWithin(
          c, "DROP SCHEMA scratch_locked CASCADE", "scratch_locked", Duration.ofMillis(500));
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT 1 FROM pg_namespace WHERE nspname = 'scratch_locked'")) {
        assertThat(rs.next()).isFalse();
      }
    }
  }

  @Test
  void anErrorOtherThanALockWaitIsPassedOnAsItIs() throws Exception {
    try (Connection c = pg.connect()) {
      assertThatThrownBy(
              () -> SizingRun.dropWithin(c, "DROP SCHEMA no_such_schema", "no_such_schema",
                  Duration.ofMillis(500)))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("schema \"no_such_schema\" does not exist")
          .hasMessageNotContaining("held by");
    }
  }

  @Test
  void aSlotCreationHeldByATransactionInAnotherDatabaseNamesItAndSucceedsOnceItEnds()
      throws Exception {
    try (Connection setup = pg.connect();
        Statement st = setup.createStatement()) {
      st.execute("CREATE DATABASE elsewhere");
    }
    String elsewhere = pg.jdbcUrl().replaceFirst("/[^/]*$", "/elsewhere");
    try (Connection other =
            DriverManager.getConnection(elsewhere, EmbeddedPostgresServer.USER, "");
        Statement o = other.createStatement()) {
      other.setAutoCommit(false);
      o.execute("SELECT pg_current_xact_id()"); // a transaction with an xid, left open
      int otherPid = pid(other);

      long t0 = System.nanoTime();
      try (Connection c = pg.connect()) {
        assertThatThrownBy(
                () -> SizingRun.createSlotWithin(c, "bench_blocked", Duration.ofMillis(1500)))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("waits for every transaction running in the cluster to end")
            .hasMessageContaining("pid " + otherPid + " (database elsewhere, idle in transaction");
        assertThat(c.getAutoCommit()).isTrue();
      }
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
      other.rollback();
    }
    try (Connection c = pg.connect()) {
      SizingRun.createSlotWithin(c, "bench_blocked", Duration.ofSeconds(30));
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                      + " WHERE slot_name = 'bench_blocked'")) {
        assertThat(rs.next()).as("the slot was created").isTrue();
      }
    }
  }

  private static int pid(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
