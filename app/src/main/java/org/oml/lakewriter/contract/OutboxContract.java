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

  /** The contract in schema {@code public}. */
  public static void apply(Connection connection, String publication) throws SQLException {
    apply(connection, "public", publication);
  }

  /**
   * Creates or updates every object of the contract in {@code schema} (created if missing), and
   * the publication over both tables.
   *
   * <p>Every function of the contract gets {@code SET search_path = schema}: the tick, the
   * candidate check and the outbox's seq trigger name their tables and sequence unqualified, and
   * they run in sessions whose own search_path need not include the schema (a producer's insert,
   * the writer's ticker). Pinned, they always resolve to the contract's own objects.
   */
  public static void apply(Connection connection, String schema, String publication)
      throws SQLException {
    requireIdentifier("schema", schema);
    requireIdentifier("publication", publication);
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      st.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
      st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
      st.execute("SET LOCAL search_path TO " + schema);
      st.execute(script());
      pinSearchPath(connection, schema);
      if (!publicationExists(connection, publication)) {
        st.execute(
            "CREATE PUBLICATION " + publication + " FOR TABLE " + schema + "." + OUTBOX_TABLE
                + ", " + schema + "." + HORIZON_TABLE);
      }
      connection.commit();
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** Sets {@code search_path = schema} on every {@code oml_*} function in the schema. */
  private static void pinSearchPath(Connection connection, String schema) throws SQLException {
    List<String> functions = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT p.oid::regprocedure::text FROM pg_proc p"
                + " JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname = ? AND p.proname LIKE 'oml\\_%'")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          functions.add(rs.getString(1));
        }
      }
    }
    try (Statement st = connection.createStatement()) {
      for (String f : functions) {
        // regprocedure text is qualified unless the schema is on the search_path (it is, here).
        String qualified = f.startsWith(schema + ".") ? f : schema + "." + f;
        st.execute("ALTER FUNCTION " + qualified + " SET search_path = " + schema);
      }
    }
  }

  /** {@link #verify(Connection, String, String)} in schema {@code public}. */
  public static void verify(Connection connection, String publication) throws SQLException {
    verify(connection, "public", publication);
  }

  private static boolean functionExists(Connection connection, String schema, String name)
      throws SQLException {
    return exists(
        connection,
        "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            + " WHERE n.nspname = ? AND p.proname = ?",
        schema,
        name);
  }

  /**
   * Checks what the lake writer needs before it starts, in {@code schema}. Throws {@link
   * ContractException} naming every problem found and the command that fixes it.
   */
  public static void verify(Connection connection, String schema, String publication)
      throws SQLException {
    requireIdentifier("schema", schema);
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
      if (!exists(
          connection, "SELECT 1 FROM pg_class WHERE oid = to_regclass(?)", schema + "." + table)) {
        problems.add("table " + schema + "." + table + " is missing: run `lakewriter init-db`");
      }
    }
    if (!functionExists(connection, schema, "oml_lake_tick")) {
      problems.add("function " + schema + ".oml_lake_tick is missing: run `lakewriter init-db`");
    } else if (!functionExists(connection, schema, "oml_lake_outbox_writers")) {
      // An older tick: correct, but any transaction of the cluster holds the horizon.
      problems.add(
          "function " + schema + ".oml_lake_outbox_writers is missing (the tick predates the"
              + " narrowing to outbox writers, so any open transaction of the cluster holds the"
              + " horizon): run `lakewriter init-db`");
    }
    String cache =
        scalarOrNull(
            connection,
            "SELECT cache_size::text FROM pg_sequences WHERE schemaname = ? AND sequencename = ?",
            schema,
            SEQUENCE);
    if (cache == null) {
      problems.add("sequence " + schema + "." + SEQUENCE + " is missing: run `lakewriter init-db`");
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
            "SELECT 1 FROM pg_publication_tables"
                + " WHERE pubname = ? AND schemaname = ? AND tablename = ?",
            publication,
            schema,
            table)) {
          problems.add(
              "publication " + publication + " does not cover " + schema + "." + table
                  + ": run ALTER PUBLICATION " + publication + " ADD TABLE " + schema + "."
                  + table);
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
