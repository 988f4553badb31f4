package org.oml.lakewriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
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
 * The bench's teardown drops against a real PostgreSQL: a session that holds a lock on the scratch
 * schema makes the drop fail within its wait, naming the session, instead of queueing for ever.
 */
@Timeout(120) // an unbounded lock wait fails here instead of hanging the build
class SizingRunTeardownTest {
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

  private static int pid(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
