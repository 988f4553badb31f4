package org.oml.lakewriter.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The outbox contract: the SQL that a demo, a test and a deployment share, applied idempotently,
 * and the start-up check that a database meets it.
 *
 * <p>{@link #apply} can run twice, and concurrently: it holds a transaction-scoped advisory lock.
 * {@link #verify} never changes anything; each failure names what is missing and what to run.
 */
public final class OutboxContract {
  public static final String OUTBOX_TABLE = "oml_outbox";
  public static final String HORIZON_TABLE = "oml_lake_horizon";
  public static final String SEQUENCE = "oml_outbox_seq";
  /** The PostgreSQL dead-letter journal; the lake's dead_letter tables are the authority. */
  public static final String DEAD_LETTER_TABLE = "oml_lake_dead_letter";
  private static final String SCRIPT = "outbox-contract.sql";
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final long MIGRATION_LOCK = 0x6f6d6c5f6c616b65L; // "oml_lake"

  private OutboxContract() {}

  /** Creates or updates every object of the contract, and the publication over both tables. */
  public static void apply(Connection connection, String publication) throws SQLException {
    requireIdentifier("publication", publication);
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      st.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
      st.execute(script());
      if (!publicationExists(connection, publication)) {
        st.execute(
            "CREATE PUBLICATION " + publication + " FOR TABLE " + OUTBOX_TABLE + ", "
                + HORIZON_TABLE);
      }
      connection.commit();
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /**
   * Checks what the lake writer needs before it starts. Throws {@link ContractException} naming
   * every problem found and the command that fixes it.
   */
  public static void verify(Connection connection, String publication) throws SQLException {
    requireIdentifier("publication", publication);
    List<String> problems = new ArrayList<>();
    String walLevel = scalar(connection, "SHOW wal_level");
    if (!"logical".equals(walLevel)) {
      problems.add(
          "wal_level is '"
              + walLevel
              + "', logical replication needs 'logical': run ALTER SYSTEM SET wal_level ="
              + " logical; then restart PostgreSQL");
    }
    for (String table :
        List.of(
            OUTBOX_TABLE,
            HORIZON_TABLE,
            "oml_lake_horizon_pending",
            DEAD_LETTER_TABLE,
            org.oml.lakewriter.lease.LeaderLease.TABLE)) {
      if (!exists(connection, "SELECT 1 FROM pg_class WHERE oid = to_regclass(?)", table)) {
        problems.add("table " + table + " is missing: run `lakewriter init-db`");
      }
    }
    if (!exists(connection, "SELECT 1 FROM pg_proc WHERE proname = ?", "oml_lake_tick")) {
      problems.add("function oml_lake_tick is missing: run `lakewriter init-db`");
    } else if (!exists(
        connection, "SELECT 1 FROM pg_proc WHERE proname = ?", "oml_lake_outbox_writers")) {
      // An older tick: correct, but any transaction of the cluster holds the horizon.
      problems.add(
          "function oml_lake_outbox_writers is missing (the tick predates the narrowing to outbox"
              + " writers, so any open transaction of the cluster holds the horizon): run"
              + " `lakewriter init-db`");
    }
    String cache =
        scalarOrNull(
            connection, "SELECT cache_size::text FROM pg_sequences WHERE sequencename = ?", SEQUENCE);
    if (cache == null) {
      problems.add("sequence " + SEQUENCE + " is missing: run `lakewriter init-db`");
    } else if (!"1".equals(cache)) {
      problems.add(
          "sequence " + SEQUENCE + " has CACHE " + cache + ", the horizon needs CACHE 1: run"
              + " `lakewriter init-db`");
    }
    if (!publicationExists(connection, publication)) {
      problems.add(
          "publication " + publication + " is missing: run `lakewriter init-db` (or CREATE"
              + " PUBLICATION " + publication + " FOR TABLE " + OUTBOX_TABLE + ", "
              + HORIZON_TABLE + ")");
    } else {
      for (String table : List.of(OUTBOX_TABLE, HORIZON_TABLE)) {
        if (!exists(
            connection,
            "SELECT 1 FROM pg_publication_tables WHERE pubname = ? AND tablename = ?",
            publication,
            table)) {
          problems.add(
              "publication " + publication + " does not cover " + table + ": run ALTER"
                  + " PUBLICATION " + publication + " ADD TABLE " + table);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ContractException(
          "the database does not meet the outbox contract:\n  - " + String.join("\n  - ", problems));
    }
  }

  /** Runs one horizon tick for the writer and returns its stable seq. */
  public static long tick(Connection connection, String writerId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT oml_lake_tick(?)")) {
      ps.setString(1, writerId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The SQL text of the contract, as shipped in this jar. */
  public static String script() {
    try (InputStream in = OutboxContract.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException(SCRIPT + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Publication, slot and writer names end up in SQL and in Debezium options: keep them plain. */
  public static String requireIdentifier(String what, String value) {
    if (value == null || !IDENTIFIER.matcher(value).matches()) {
      throw new IllegalArgumentException(
          what + " '" + value + "' must match " + IDENTIFIER.pattern());
    }
    return value;
  }

  private static boolean publicationExists(Connection c, String publication) throws SQLException {
    return exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", publication);
  }

  private static boolean exists(Connection c, String sql, String... args) throws SQLException {
    return scalarOrNull(c, sql, args) != null;
  }

  private static String scalar(Connection c, String sql) throws SQLException {
    return scalarOrNull(c, sql);
  }

  private static String scalarOrNull(Connection c, String sql, String... args)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
