package org.oml.lakewriter.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The one way the job opens a PostgreSQL connection: through the pgjdbc driver class of the class
 * loader that loaded this class, never through {@link DriverManager}'s registry.
 *
 * <p>Why: on a Flink session cluster every job gets its own child-first user class loader, and so
 * its own {@code org.postgresql.Driver} class. {@code DriverManager} is one per JVM and hands a
 * caller only a driver whose class is the one the caller's loader resolves. When the second job on
 * a JobManager or TaskManager asks {@code DriverManager.getConnection}, the registered driver is the
 * first job's; its own loader's driver class is initialised (and registers itself) only during that
 * same lookup, too late for it, and the call fails with "No suitable driver found for
 * jdbc:postgresql" (issue 17; STACK-NOTES, "A standalone Flink session cluster").
 *
 * <p>Third-party code that insists on {@code DriverManager} (Debezium's fallback factory, a pool
 * given only a URL) is covered by {@link #ensureRegistered()}: once this loader's driver class is
 * initialised it is in {@code DriverManager}, and a caller of the same loader finds it.
 */
public final class PgDriver {
  /** The driver class name, for pools and factories that load it by name. */
  public static final String CLASS_NAME = "org.postgresql.Driver";

  private PgDriver() {}

  /**
   * Opens a connection with this class loader's driver.
   *
   * @throws SQLException from the driver, or when {@code jdbcUrl} is not a {@code
   *     jdbc:postgresql:} URL (the driver answers such a URL with {@code null})
   */
  public static Connection connect(String jdbcUrl, Properties properties) throws SQLException {
    Connection c = new org.postgresql.Driver().connect(jdbcUrl, properties);
    if (c == null) {
      throw new SQLException(
          "not a PostgreSQL JDBC URL (it must start with jdbc:postgresql:): "
              + jdbcUrl.replaceAll("\\?.*", ""),
          "08001");
    }
    return c;
  }

  /**
   * Initialises this class loader's {@code org.postgresql.Driver}, whose static initialiser
   * registers it with {@link DriverManager}; idempotent and cheap after the first call. Returns
   * the driver class, so a test can check which loader it came from.
   */
  public static Class<?> ensureRegistered() {
    try {
      return Class.forName(CLASS_NAME, true, PgDriver.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      // The job jar shades pgjdbc in: missing means a broken build, not a configuration.
      throw new IllegalStateException(
          "the PostgreSQL JDBC driver " + CLASS_NAME + " is not on the job's class path", e);
    }
  }
}
