package org.oml.lakewriter.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A real PostgreSQL 17 from a Maven artifact, with logical WAL, for the demo and the tests. No
 * Docker engine is needed. {@code synchronous_commit} is on, because the tests check visibility, and
 * prepared transactions are enabled, because the horizon must tell the ones that wrote the outbox
 * from the ones that did not.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  public static final String USER = "postgres";
  public static final String DATABASE = "postgres";

  private final EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /** Starts a server in a fresh temporary data directory. */
  public static EmbeddedPostgresServer start() {
    return start(null);
  }

  /** Starts a server; with a data directory it keeps its data there across restarts. */
  public static EmbeddedPostgresServer start(Path dataDirectory) {
    return start(dataDirectory, 0, java.util.Map.of());
  }

  /**
   * Starts a server on {@code port} (0: any free port), so that a restart on the same data
   * directory keeps the address its clients connect to.
   */
  public static EmbeddedPostgresServer start(Path dataDirectory, int port) {
    return start(dataDirectory, port, java.util.Map.of());
  }

  /**
   * Starts a server with more server settings on top of the defaults (e.g. {@code ssl = on},
   * {@code ssl_cert_file}, {@code ssl_key_file}, {@code ssl_ca_file} for the TLS tests).
   */
  public static EmbeddedPostgresServer start(
      Path dataDirectory, java.util.Map<String, String> moreServerConfig) {
    return start(dataDirectory, 0, moreServerConfig);
  }

  private static EmbeddedPostgresServer start(
      Path dataDirectory, int port, java.util.Map<String, String> moreServerConfig) {
    try {
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setServerConfig("wal_level", "logical")
              .setServerConfig("max_replication_slots", "64")
              .setServerConfig("max_wal_senders", "64")
              .setServerConfig("synchronous_commit", "on")
              .setServerConfig("max_connections", "200")
              // Prepared transactions: the horizon tests prepare some (orphaned, or outbox writers).
              .setServerConfig("max_prepared_transactions", "16")
              .setServerConfig("fsync", "off")
              // A loaded machine, or the recovery after a crash, can take longer than the
              // default 10 s to accept connections.
              .setPGStartupWait(java.time.Duration.ofSeconds(60));
      if (port != 0) {
        builder.setPort(port);
      }
      moreServerConfig.forEach(builder::setServerConfig);
      if (dataDirectory != null) {
        builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false);
      }
      return new EmbeddedPostgresServer(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start", e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  public String host() {
    return "localhost";
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), USER, "");
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
