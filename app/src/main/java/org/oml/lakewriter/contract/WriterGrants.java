package org.oml.lakewriter.contract;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The least privilege of the lake writer's role (docs/least-privilege.md): what {@code lakewriter
 * run} needs on the outbox contract, as the GRANT statements {@code init-db --grant-to ROLE} runs
 * under the contract's owner, and as the check {@code run}'s preflight makes under the writer's
 * role.
 *
 * <p>Invariant: the writer reads the outbox and the horizon table, and writes only its own
 * bookkeeping: its horizon row and candidate set (written by the tick it runs), the frontier
 * cache, the dead-letter journal, the breaker status and the leader lease. It never gets INSERT,
 * UPDATE, DELETE or TRUNCATE on {@code oml_outbox}. Besides these grants the role needs the
 * attributes {@code LOGIN REPLICATION} (the CDC stream and the slot), which only a superuser (or a
 * role with CREATEROLE and REPLICATION) can give: {@code init-db} reports a missing one and does not
 * try. The publication is created by the tables' owner ({@code init-db}); the writer only names it.
 *
 * <p>One list serves both the grants and the check, so they cannot drift apart.
 */
public final class WriterGrants {
  /** One privilege set on one object of the contract, and why the writer needs it. */
  public record Need(String kind, String object, List<String> privileges, String why) {
    /** The object's name as GRANT and has_*_privilege take it, in {@code schema}. */
    String qualified(String schema) {
      return kind.equals("SCHEMA") ? schema : schema + "." + object;
    }
  }

  /** What the writer's role needs, in the order an operator reads it. */
  public static final List<Need> NEEDS =
      List.of(
          new Need("SCHEMA", null, List.of("USAGE"), "name the contract's objects"),
          new Need(
              "TABLE",
              OutboxContract.OUTBOX_TABLE,
              List.of("SELECT"),
              "the CDC snapshot, the completeness check's refetch, a quarantined tenant's replay"),
          new Need(
              "TABLE",
              OutboxContract.HORIZON_TABLE,
              List.of("SELECT", "INSERT", "UPDATE"),
              "the CDC snapshot; the horizon tick (oml_lake_tick) upserts the writer's own row"),
          new Need(
              "TABLE",
              "oml_lake_horizon_pending",
              List.of("SELECT", "INSERT", "UPDATE", "DELETE"),
              "the tick keeps the writer's pending seq and its candidate xids"),
          new Need(
              "SEQUENCE",
              OutboxContract.SEQUENCE,
              List.of("SELECT"),
              "the tick reads last_value (never nextval: the writer draws no seq)"),
          new Need(
              "TABLE",
              "oml_lake_frontier",
              List.of("SELECT", "INSERT", "UPDATE"),
              "the committed-frontier cache (INSERT ... ON CONFLICT DO UPDATE)"),
          new Need(
              "TABLE",
              OutboxContract.DEAD_LETTER_TABLE,
              List.of("SELECT", "INSERT"),
              "the dead-letter journal (INSERT ... ON CONFLICT DO NOTHING RETURNING seq)"),
          new Need(
              "TABLE",
              "oml_lake_dependency",
              List.of("SELECT", "INSERT", "UPDATE"),
              "the circuit breakers' state for `lakewriter status`"),
          new Need(
              "TABLE",
              "oml_lake_lease",
              List.of("SELECT", "INSERT", "UPDATE"),
              "the lake's leader lease (take, renew, release)"),
          new Need("FUNCTION", "oml_lake_tick(text)", List.of("EXECUTE"), "the horizon tick"),
          new Need(
              "FUNCTION",
              "oml_lake_outbox_writers(xid8)",
              List.of("EXECUTE"),
              "called by the tick (SECURITY INVOKER)"),
          new Need(
              "FUNCTION",
              "oml_lake_candidates_running(xid8[], xid8, xid8)",
              List.of("EXECUTE"),
              "called by the tick"),
          new Need(
              "FUNCTION",
              "oml_lake_xid_in_progress(xid8)",
              List.of("EXECUTE"),
              "called by the tick"));

  private WriterGrants() {}

  /**
   * The GRANT statements that give {@code role} exactly {@link #NEEDS} in {@code schema}, plus
   * CONNECT on {@code database}: what {@code init-db --grant-to} runs.
   */
  public static List<String> statements(String database, String schema, String role) {
    OutboxContract.requireIdentifier("schema", schema);
    OutboxContract.requireIdentifier("role", role);
    List<String> out = new ArrayList<>();
    out.add("GRANT CONNECT ON DATABASE " + quote(database) + " TO " + role);
    for (Need n : NEEDS) {
      out.add(
          "GRANT " + String.join(", ", n.privileges()) + " ON " + n.kind() + " "
              + n.qualified(schema) + " TO " + role);
    }
    return out;
  }

  /** Runs {@link #statements} in one transaction, on a connection of the contract's owner. */
  public static void grant(Connection c, String schema, String role) throws SQLException {
    String database;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_database()")) {
      rs.next();
      database = rs.getString(1);
    }
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement st = c.createStatement()) {
      for (String sql : statements(database, schema, role)) {
        st.execute(sql);
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * What the connection's role lacks of {@link #NEEDS} (and the REPLICATION attribute), one line per
   * object, e.g. {@code "SELECT, INSERT on TABLE public.oml_lake_lease (...)"}; empty when it
   * has all. Objects that do not exist are skipped: the contract check names them.
   */
  public static List<String> missing(Connection c, String schema) throws SQLException {
    OutboxContract.requireIdentifier("schema", schema);
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user")) {
      if (rs.next() && !rs.getBoolean(1)) {
        out.add(
            "the REPLICATION attribute (the CDC stream and the replication slot): as a superuser,"
                + " ALTER ROLE <role> REPLICATION");
      }
    }
    for (Need n : NEEDS) {
      List<String> lacking = new ArrayList<>();
      for (String privilege : n.privileges()) {
        if (!has(c, n, schema, privilege)) {
          lacking.add(privilege);
        }
      }
      if (!lacking.isEmpty()) {
        out.add(
            String.join(", ", lacking) + " on " + n.kind() + " " + n.qualified(schema) + " ("
                + n.why() + ")");
      }
    }
    return out;
  }

  private static boolean has(Connection c, Need n, String schema, String privilege)
      throws SQLException {
    String sql =
        switch (n.kind()) {
          case "SCHEMA" ->
              "SELECT to_regnamespace(?) IS NULL OR has_schema_privilege(?::text, ?)";
          case "TABLE" -> "SELECT to_regclass(?) IS NULL OR has_table_privilege(?::text, ?)";
          case "SEQUENCE" -> "SELECT to_regclass(?) IS NULL OR has_sequence_privilege(?::text, ?)";
          case "FUNCTION" ->
              "SELECT to_regprocedure(?) IS NULL OR has_function_privilege(?::text, ?)";
          default -> throw new IllegalStateException("unknown object kind " + n.kind());
        };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      String object = n.qualified(schema);
      ps.setString(1, object);
      ps.setString(2, object);
      ps.setString(3, privilege);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
