package org.oml.lakewriter.it.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * Transactions that have nothing to do with the outbox and stay open for as long as this is open:
 * a write in another database of the same cluster, and an idle-in-transaction session with an xid
 * in the outbox's own database. Neither may hold the lake's horizon.
 */
final class UnrelatedTransactions implements AutoCloseable {
  private final Connection otherDatabase;
  private final Connection idleInTransaction;

  private UnrelatedTransactions(Connection otherDatabase, Connection idleInTransaction) {
    this.otherDatabase = otherDatabase;
    this.idleInTransaction = idleInTransaction;
  }

  static UnrelatedTransactions open(EmbeddedPostgresServer pg, TestDatabase db)
      throws SQLException {
    String other = db.name() + "_reports";
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + other);
    }
    Connection a =
        DriverManager.getConnection(
            "jdbc:postgresql://localhost:" + pg.port() + "/" + other,
            EmbeddedPostgresServer.USER,
            "");
    try (Statement st = a.createStatement()) {
      st.execute("CREATE TABLE report (id int)");
    }
    a.setAutoCommit(false);
    try (Statement st = a.createStatement()) {
      st.execute("INSERT INTO report VALUES (1)"); // takes an xid, then stays open
    }
    db.execute("CREATE TABLE side_table (id int)");
    Connection b = db.connect();
    b.setAutoCommit(false);
    try (Statement st = b.createStatement()) {
      st.execute("INSERT INTO side_table VALUES (1)");
    }
    return new UnrelatedTransactions(a, b);
  }

  @Override
  public void close() throws SQLException {
    otherDatabase.rollback();
    otherDatabase.close();
    idleInTransaction.rollback();
    idleInTransaction.close();
  }
}
