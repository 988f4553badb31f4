package org.oml.lakewriter.jdbc;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * How every side connection of the lake writer reaches PostgreSQL (horizon ticker, completeness
 * check, key check, frontier listener, dead-letter journal, breaker status): the parameters of
 * {@code postgres.url} ({@code sslmode}, {@code sslrootcert}, {@code socketTimeout}, ...) and a
 * connect and socket timeout.
 *
 * <p>Invariant: no side connection is opened without a connect timeout and a socket timeout. The
 * lake writer's side connections run on the task thread (or block it through a lock), so a
 * half-open TCP connection without a socket timeout would block the mailbox until checkpoints
 * time out; with one, the read fails after {@code socketTimeout} with a {@link SQLException}
 * (pgjdbc's SQLState 08006) and the caller discards the connection and reconnects.
 *
 * <p>A parameter given in the URL wins over the option: it is the operator's explicit driver
 * setting ({@code socketTimeout=0} in the URL, for instance, switches the timeout off on purpose).
 */
public record JdbcSettings(Map<String, String> urlParameters, Duration connectTimeout, Duration socketTimeout)
    implements Serializable {

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);

  /** No URL parameters, default timeouts. */
  public static final JdbcSettings DEFAULT =
      new JdbcSettings(Map.of(), DEFAULT_CONNECT_TIMEOUT, DEFAULT_SOCKET_TIMEOUT);

  public JdbcSettings {
    urlParameters = Map.copyOf(new TreeMap<>(Objects.requireNonNull(urlParameters, "urlParameters")));
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(socketTimeout, "socketTimeout");
    if (connectTimeout.isNegative() || connectTimeout.isZero()
        || socketTimeout.isNegative() || socketTimeout.isZero()) {
      throw new IllegalArgumentException(
          "JDBC timeouts must be positive: connect=" + connectTimeout + ", socket=" + socketTimeout);
    }
  }

  /** Parses the query of a JDBC URL ({@code a=1&b=2}); {@code null} or empty gives none. */
  public static Map<String, String> parseQuery(String query) {
    Map<String, String> params = new TreeMap<>();
    if (query == null || query.isEmpty()) {
      return params;
    }
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(
          java.net.URLDecoder.decode(key, java.nio.charset.StandardCharsets.UTF_8),
          java.net.URLDecoder.decode(value, java.nio.charset.StandardCharsets.UTF_8));
    }
    return params;
  }

  /**
   * The driver properties of a connection: the timeouts (pgjdbc takes seconds), then the URL's
   * parameters over them, then the user and password.
   */
  public Properties driverProperties(String user, String password) {
    Properties p = new Properties();
    p.setProperty("connectTimeout", Long.toString(seconds(connectTimeout)));
    p.setProperty("loginTimeout", Long.toString(seconds(connectTimeout)));
    p.setProperty("socketTimeout", Long.toString(seconds(socketTimeout)));
    p.putAll(urlParameters);
    if (user != null) {
      p.setProperty("user", user);
    }
    p.setProperty("password", password == null ? "" : password);
    return p;
  }

  /**
   * Opens a connection through the pgjdbc driver itself rather than {@link DriverManager}: under
   * Flink's child-first user class loader a second job in the same TaskManager finds no suitable
   * driver in {@code DriverManager} (see STACK-NOTES), while the driver class this class was loaded
   * with always accepts the URL.
   */
  public Connection connect(String jdbcUrl, String user, String password) throws SQLException {
    return PgDriver.connect(jdbcUrl, driverProperties(user, password));
  }

  private static long seconds(Duration d) {
    // pgjdbc counts whole seconds and reads 0 as "no timeout": never round a short one down to 0.
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  @Override
  public String toString() {
    // Parameter names only: a value such as sslpassword must never reach a log.
    return "JdbcSettings{params=" + urlParameters.keySet() + ", connectTimeout=" + connectTimeout
        + ", socketTimeout=" + socketTimeout + "}";
  }
}
