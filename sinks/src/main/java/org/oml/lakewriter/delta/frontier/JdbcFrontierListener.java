package org.oml.lakewriter.delta.frontier;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import org.oml.lakewriter.jdbc.LazyConnection;

/**
 * Publishes the frontier to PostgreSQL, upserting {@code oml_lake_frontier(writer_id text primary
 * key, frontier_seq bigint, updated_at timestamptz)}; the table belongs to the outbox contract SQL.
 *
 * <p>The stored frontier never moves back: a restore from an older checkpoint replays batches the
 * lake already holds, and reporting them must not make {@code status} show less than the lake has.
 * A failed update drops the connection, so the next one reconnects.
 */
public final class JdbcFrontierListener implements FrontierListener {
  private static final long serialVersionUID = 1L;

  static final String UPSERT =
      "INSERT INTO oml_lake_frontier (writer_id, frontier_seq, updated_at) VALUES (?, ?, now()) "
          + "ON CONFLICT (writer_id) DO UPDATE SET frontier_seq = EXCLUDED.frontier_seq, "
          + "updated_at = EXCLUDED.updated_at "
          + "WHERE oml_lake_frontier.frontier_seq <= EXCLUDED.frontier_seq";

  private final String jdbcUrl;
  private final Properties connectionProperties;
  private final String writerId;
  private transient LazyConnection connection;

  /**
   * @param connectionProperties JDBC properties ({@code user}, {@code password}, ...); copied.
   */
  public JdbcFrontierListener(String jdbcUrl, Properties connectionProperties, String writerId) {
    this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    this.connectionProperties = new Properties();
    this.connectionProperties.putAll(connectionProperties);
    this.writerId = Objects.requireNonNull(writerId, "writerId");
  }

  @Override
  public void frontierAdvanced(long frontierSeq) throws IOException {
    try {
      try (PreparedStatement upsert = connection().get().prepareStatement(UPSERT)) {
        upsert.setString(1, writerId);
        upsert.setLong(2, frontierSeq);
        upsert.executeUpdate();
      }
    } catch (SQLException e) {
      connection().discard();
      throw new IOException(
          "could not record frontier " + frontierSeq + " of writer " + writerId + ": " + e, e);
    }
  }

  @Override
  public void close() {
    connection().close();
  }

  /** Created on first use: the listener is serialized into the job graph, the connection not. */
  private LazyConnection connection() {
    if (connection == null) {
      connection =
          // The driver itself, not DriverManager (child-first user class loader, STACK-NOTES).
          new LazyConnection(
              () -> org.oml.lakewriter.jdbc.PgDriver.connect(jdbcUrl, connectionProperties), true);
    }
    return connection;
  }

  @Override
  public String toString() {
    // Never print the properties: they hold the password.
    return "JdbcFrontierListener{writer="
        + writerId
        + ", url="
        + jdbcUrl.replaceAll("\\?.*", "")
        + "}";
  }
}
