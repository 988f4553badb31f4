package org.oml.lakewriter.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/** The contract SQL and the horizon tick, against a real PostgreSQL. */
class OutboxContractTest {
  private static final String PUB = "oml_lake_pub";
  private static EmbeddedPostgresServer pg;

  @BeforeAll
  static void startPostgres() throws SQLException {
    pg = EmbeddedPostgresServer.start();
    try (Connection c = pg.connect()) {
      OutboxContract.apply(c, PUB);
    }
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void settle() throws SQLException {
    // Every test starts with nothing pending for its writer.
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("DELETE FROM oml_lake_horizon_pending");
    }
  }

  @Test
  void applyIsIdempotentAndVerifies() throws SQLException {
    try (Connection c = pg.connect()) {
      OutboxContract.apply(c, PUB);
      OutboxContract.apply(c, PUB);
      OutboxContract.verify(c, PUB);
    }
  }

  @Test
  void verifyNamesAMissingPublicationAndWhatToRun() throws SQLException {
    try (Connection c = pg.connect()) {
      assertThatThrownBy(() -> OutboxContract.verify(c, "no_such_pub"))
          .isInstanceOf(ContractException.class)
          .hasMessageContaining("publication no_such_pub is missing")
          .hasMessageContaining("lakewriter init-db");
    }
  }

  @Test
  void verifyNamesAMissingTable() throws SQLException {
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE empty_db");
    }
    String url = pg.jdbcUrl().replace("/postgres", "/empty_db");
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", "")) {
      assertThatThrownBy(() -> OutboxContract.verify(c, PUB))
          .isInstanceOf(ContractException.class)
          .hasMessageContaining("table public.oml_outbox is missing: run `lakewriter init-db`")
          .hasMessageContaining("sequence public.oml_outbox_seq is missing");
    }
  }

  @Test
  void verifyRefusesAServerWithoutLogicalWal() throws Exception {
    try (io.zonky.test.db.postgres.embedded.EmbeddedPostgres replica =
            io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "replica")
                .start();
        Connection c = replica.getPostgresDatabase().getConnection()) {
      OutboxContract.apply(c, PUB);
      assertThatThrownBy(() -> OutboxContract.verify(c, PUB))
          .isInstanceOf(ContractException.class)
          .hasMessageContaining("wal_level is 'replica'")
          .hasMessageContaining("ALTER SYSTEM SET wal_level = logical");
    }
  }

  @Test
  void insertTakesTheXidBeforeTheSeq() throws SQLException {
    try (Connection c = pg.connect()) {
      c.setAutoCommit(false);
      long seq = insert(c, "t1");
      long xid;
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
        rs.next();
        xid = rs.getLong(1);
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT tx_id FROM oml_outbox WHERE seq = ?")) {
        ps.setLong(1, seq);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(xid);
        }
      }
      c.commit();
    }
  }

  @Test
  void tickReachesTheLastSeqWhenNothingIsOpen() throws SQLException {
    try (Connection c = pg.connect()) {
      long seq = insert(c, "t1");
      assertThat(OutboxContract.tick(c, "w-idle")).isEqualTo(seq);
      assertThat(OutboxContract.tick(c, "w-idle")).isEqualTo(seq);
    }
  }

  @Test
  void anOpenTransactionHoldsTheHorizonBelowItsSeqUntilItCommits() throws SQLException {
    try (Connection ticker = pg.connect();
        Connection open = pg.connect();
        Connection other = pg.connect()) {
      long before = insert(other, "t1");
      assertThat(OutboxContract.tick(ticker, "w-open")).isEqualTo(before);

      open.setAutoCommit(false);
      long held = insert(open, "t1");
      long later = insert(other, "t1");
      assertThat(later).isGreaterThan(held);

      // The open transaction holds `held`; nothing at or above it may become stable.
      for (int i = 0; i < 3; i++) {
        assertThat(OutboxContract.tick(ticker, "w-open")).isLessThan(held);
      }
      assertThat(pendingSeq(ticker, "w-open")).isGreaterThanOrEqualTo(later);

      open.commit();
      assertThat(OutboxContract.tick(ticker, "w-open")).isGreaterThanOrEqualTo(later);
    }
  }

  @Test
  void aYoungerXidHoldingALowerSeqIsCaughtAboveXmax() throws SQLException {
    // The case the xip list alone misses: the older xid commits a higher seq while the younger
    // one, holding a lower seq, is still open, so the holder sits at or above xmax.
    try (Connection ticker = pg.connect();
        Connection older = pg.connect();
        Connection younger = pg.connect()) {
      older.setAutoCommit(false);
      younger.setAutoCommit(false);
      try (Statement st = older.createStatement()) {
        st.execute("SELECT pg_current_xact_id()");
      }
      long low = insert(younger, "t1");
      long high = insert(older, "t1");
      older.commit();
      assertThat(high).isGreaterThan(low);
      assertThat(OutboxContract.tick(ticker, "w-xmax")).isLessThan(low);
      younger.commit();
      assertThat(OutboxContract.tick(ticker, "w-xmax")).isGreaterThanOrEqualTo(high);
    }
  }

  @Test
  void rolledBackSeqsAreGapsTheHorizonStepsOver() throws SQLException {
    try (Connection ticker = pg.connect();
        Connection c = pg.connect()) {
      c.setAutoCommit(false);
      long gap = insert(c, "t1");
      c.rollback();
      c.setAutoCommit(true);
      assertThat(OutboxContract.tick(ticker, "w-gap")).isGreaterThanOrEqualTo(gap);
    }
  }

  @Test
  void xidsTooOldForTheCommitLogCountAsFinished() throws SQLException {
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      // xid 0 takes the same branch as an xid older than the commit log: pg_xact_status is NULL.
      try (ResultSet rs = st.executeQuery("SELECT pg_xact_status('0'::xid8) IS NULL")) {
        rs.next();
        assertThat(rs.getBoolean(1)).isTrue();
      }
      long seq = insert(c, "t1");
      st.execute(
          "INSERT INTO oml_lake_horizon_pending VALUES ('w-old', "
              + seq
              + ", ARRAY['0'::xid8, '3'::xid8], '0'::xid8, '0'::xid8, now())");
      assertThat(OutboxContract.tick(c, "w-old")).isGreaterThanOrEqualTo(seq);
      assertThat(pendingSeq(c, "w-old")).isNull();
    }
  }

  @Test
  void tickRefusesToRunUnderRepeatableRead() throws SQLException {
    try (Connection c = pg.connect()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      assertThatThrownBy(() -> OutboxContract.tick(c, "w-rr"))
          .hasMessageContaining("must run under READ COMMITTED");
      c.rollback();
    }
  }

  static long insert(Connection c, String tenant) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'journal', '{}')"
                + " RETURNING seq")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Long pendingSeq(Connection c, String writer) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT pending_seq FROM oml_lake_horizon_pending WHERE writer_id = ?")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }
}
