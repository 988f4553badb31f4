package org.oml.lakewriter.delta.frontier;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

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
  private transient Connection connection;

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
      try (PreparedStatement upsert = connection().prepareStatement(UPSERT)) {
        upsert.setString(1, writerId);
        upsert.setLong(2, frontierSeq);
        upsert.executeUpdate();
      }
    } catch (SQLException e) {
      closeQuietly();
      throw new IOException(
          "could not record frontier " + frontierSeq + " of writer " + writerId + ": " + e, e);
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      connection = DriverManager.getConnection(jdbcUrl, connectionProperties);
      connection.setAutoCommit(true);
    }
    return connection;
  }

  private void closeQuietly() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // The connection is being discarded either way.
      }
      connection = null;
    }
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
