package org.oml.lakewriter.cdc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.debezium.config.Configuration;
import io.debezium.jdbc.JdbcConfiguration;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.cdc.connectors.base.config.JdbcSourceConfig;
import org.apache.flink.cdc.connectors.base.relational.connection.ConnectionPoolId;
import org.apache.flink.cdc.connectors.postgres.source.PostgresConnectionPoolFactory;
import org.apache.flink.cdc.connectors.postgres.source.config.PostgresSourceConfig;
import org.oml.lakewriter.jdbc.PgDriver;
import org.postgresql.PGProperty;

/**
 * Flink CDC's connection pool for the snapshot's chunk splitting and table discovery, with the
 * same driver parameters as the CDC source's other connections.
 *
 * <p>Why: Flink CDC 3.5.0's {@code PostgresConnectionPoolFactory} builds its Hikari pool from
 * host, port and database alone. Every parameter of {@code postgres.url} that reached Debezium's
 * connections (the replication stream, the snapshot reads) as {@code database.<name>} was lost
 * there: with {@code sslmode=verify-full} the pool still connected with pgjdbc's default {@code
 * prefer} (encrypted if the server offers it, never verified), and a server that demands a client
 * certificate ({@code sslcert}, {@code sslkey}) refused it, failing the snapshot.
 *
 * <p>Invariant: every pgjdbc driver property among the source's Debezium {@code database.*}
 * properties ({@link PGProperty}; user and password are set apart) is a driver property of every
 * pooled connection. The pool's id carries a digest of those parameters: Flink CDC keeps pools in a
 * JVM-wide map keyed by host, port, user and database, and two sources that differ only in their
 * TLS settings must not share one. Stateless, because Flink CDC registers one factory instance
 * per class name JVM-wide: the parameters come from each call's configuration.
 */
public class DriverParameterPoolFactory extends PostgresConnectionPoolFactory {
  /** Set from the pool's own fields, never as driver properties. */
  private static final Set<String> SET_APART = Set.of("user", "password");

  @Override
  public HikariDataSource createPooledDataSource(JdbcSourceConfig sourceConfig) {
    return new HikariDataSource(hikariConfig(sourceConfig));
  }

  /**
   * The pool's configuration: Flink CDC's (name, URL, credentials, sizes, timeout, driver class;
   * without its MySQL-only data source properties, which pgjdbc ignores), plus the driver
   * parameters.
   */
  HikariConfig hikariConfig(JdbcSourceConfig sourceConfig) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(
        CONNECTION_POOL_PREFIX + sourceConfig.getHostname() + ":" + sourceConfig.getPort());
    config.setJdbcUrl(getJdbcUrl(sourceConfig));
    config.setUsername(sourceConfig.getUsername());
    config.setPassword(sourceConfig.getPassword());
    config.setMinimumIdle(MINIMUM_POOL_SIZE);
    config.setMaximumPoolSize(sourceConfig.getConnectionPoolSize());
    config.setConnectionTimeout(sourceConfig.getConnectTimeout().toMillis());
    // As Flink CDC does before naming the driver class: Hikari looks the class up among
    // DriverManager's drivers first, and this job's loader's driver must be among them.
    PgDriver.ensureRegistered();
    config.setDriverClassName(sourceConfig.getDriverClassName());
    driverParameters(jdbcConfiguration(sourceConfig)).forEach(config::addDataSourceProperty);
    return config;
  }

  @Override
  public ConnectionPoolId getPoolId(
      JdbcConfiguration config, String dataSourcePoolFactoryIdentifier) {
    return new ConnectionPoolId(
        config.getHostname(),
        config.getPort(),
        config.getUser(),
        // A digest, not the values: the pool id is logged, and sslpassword must never be.
        config.getDatabase() + "#" + digest(driverParameters(config)),
        dataSourcePoolFactoryIdentifier);
  }

  /** The pgjdbc driver properties of a Debezium JDBC configuration ({@code database.*}, unprefixed). */
  static Map<String, String> driverParameters(Configuration jdbc) {
    Map<String, String> out = new TreeMap<>();
    for (String key : jdbc.keys()) {
      if (PGProperty.forName(key) != null && !SET_APART.contains(key)) {
        String value = jdbc.getString(key);
        if (value != null) {
          out.put(key, value);
        }
      }
    }
    return out;
  }

  private static Configuration jdbcConfiguration(JdbcSourceConfig sourceConfig) {
    if (sourceConfig instanceof PostgresSourceConfig pg) {
      return pg.getDbzConnectorConfig().getJdbcConfig();
    }
    return sourceConfig.getDbzConfiguration().subset("database.", true);
  }

  private static String digest(Map<String, String> parameters) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      parameters.forEach(
          (k, v) -> sha.update((k + "\u0000" + v + "\u0000").getBytes(StandardCharsets.UTF_8)));
      return HexFormat.of().formatHex(sha.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
