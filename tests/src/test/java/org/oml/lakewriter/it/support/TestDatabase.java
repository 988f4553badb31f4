package org.oml.lakewriter.it.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * A fresh database with the outbox contract applied, on a shared embedded PostgreSQL. Each test
 * gets its own database, slot and publication, so that jobs of different tests never share WAL
 * consumers.
 */
public final class TestDatabase implements AutoCloseable {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  public static final String PUBLICATION = "oml_lake_pub";

  private final EmbeddedPostgresServer server;
  private final String name;

  private TestDatabase(EmbeddedPostgresServer server, String name) {
    this.server = server;
    this.name = name;
  }

  public static TestDatabase create(EmbeddedPostgresServer server) throws SQLException {
    String name = "oml_it_" + COUNTER.incrementAndGet();
    try (Connection c = server.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    TestDatabase db = new TestDatabase(server, name);
    try (Connection c = db.connect()) {
      OutboxContract.apply(c, PUBLICATION);
    }
    return db;
  }

  public String name() {
    return name;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + server.port() + "/" + name;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), EmbeddedPostgresServer.USER, "");
  }

  public String slot() {
    return name + "_slot";
  }

  public OutboxSourceOptions sourceOptions(String writerId, Duration tick) {
    return new OutboxSourceOptions(
        "localhost", server.port(), name, "public", EmbeddedPostgresServer.USER, "", slot(),
        PUBLICATION, writerId, tick, 1 << 20);
  }

  /** Runs SQL in its own autocommit connection. */
  public void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  public long scalarLong(String sql) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Drops this database's replication slots once no job holds them. */
  @Override
  public void close() throws SQLException {
    try (Connection c = server.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE database = ? AND NOT active")) {
      ps.setString(1, name);
      ps.executeQuery().close();
    }
  }
}
