package org.oml.lakewriter.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One JDBC connection, opened on first use and reopened after {@link #discard()}. The lake
 * writer's side connections (horizon tick, completeness check, frontier cache, dead-letter
 * journal) all follow the same rule: after any failure the connection is discarded, never reused
 * in an unknown state, and the next attempt reconnects.
 */
public final class LazyConnection implements AutoCloseable {
  /** Opens a connection; the password stays inside the opener. */
  @FunctionalInterface
  public interface Opener {
    Connection open() throws SQLException;
  }

  private final Opener opener;
  private final boolean autoCommit;
  private Connection connection;

  public LazyConnection(Opener opener, boolean autoCommit) {
    this.opener = opener;
    this.autoCommit = autoCommit;
  }

  /** The open connection, reconnecting if there is none or it was closed. */
  public Connection get() throws SQLException {
    if (connection == null || connection.isClosed()) {
      connection = opener.open();
      connection.setAutoCommit(autoCommit);
    }
    return connection;
  }

  /** Closes and forgets the connection; failures to close are irrelevant, it is gone either way. */
  public void discard() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // discarded either way
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    discard();
  }
}
