package org.oml.lakewriter.app;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates the writer's logical replication slot before the job starts, instead of letting the CDC
 * source create it inside the job.
 *
 * <p>Why: creating a logical slot waits until every transaction that is running anywhere in the
 * cluster, in any database, has ended (PostgreSQL needs a consistent starting point). Inside the
 * job that wait is invisible and unbounded: a report left open in another database keeps the first
 * start of the writer from ever streaming, and a writer killed meanwhile leaves a walsender stuck
 * in {@code CREATE_REPLICATION_SLOT}. Here the wait is bounded by {@code postgres.slot-wait}, said
 * on stderr, and when it runs out the error names the transactions it waited for. {@code init-db}
 * creates the slot at deployment, so that an existing slot is all {@code run} ever needs.
 */
public final class SlotCreation {
  /** The SQLState of a statement cancelled by its {@code statement_timeout}. */
  public static final String QUERY_CANCELED = "57014";

  private SlotCreation() {}

  /**
   * Creates {@code slot} with the pgoutput plugin in the connection's database unless a slot of
   * that name exists. Returns true if it created the slot.
   *
   * @throws ConfigException {@code SLOT_CREATION_BLOCKED} naming the transactions that still run
   *     once {@code wait} is over
   */
  public static boolean ensure(Connection c, String slot, Duration wait) throws SQLException {
    if (exists(c, slot)) {
      return false;
    }
    System.err.printf(
        "lakewriter: creating replication slot '%s' (%s); PostgreSQL first waits for every"
            + " transaction running in the cluster to end, up to %d s (%s)%n",
        slot, LakeWriterOptions.SLOT.key(), wait.toSeconds(), LakeWriterOptions.SLOT_WAIT.key());
    try {
      create(c, slot, wait);
      return true;
    } catch (SQLException e) {
      if ("42710".equals(e.getSQLState())) {
        return false; // created meanwhile by someone else: Preflight's slot check judges it
      }
      if (!QUERY_CANCELED.equals(e.getSQLState())) {
        throw e;
      }
      throw new ConfigException(
          "SLOT_CREATION_BLOCKED: replication slot '" + slot + "' (" + LakeWriterOptions.SLOT.key()
              + ") could not be created within " + wait.toSeconds() + " s ("
              + LakeWriterOptions.SLOT_WAIT.key() + "): PostgreSQL creates a logical slot only"
              + " once every transaction running in the cluster has ended, and these still run: "
              + String.join("; ", blockers(c))
              + ". End them (or wait for them) and start again; the slot is needed once.",
          e);
    }
  }

  /**
   * Creates logical slot {@code slot} (pgoutput) in a transaction whose {@code statement_timeout}
   * is {@code wait}: a wait for the cluster's running transactions that runs out fails with
   * SQLState {@value #QUERY_CANCELED}. The connection's auto-commit is restored.
   */
  public static void create(Connection c, String slot, Duration wait) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement st = c.createStatement();
        PreparedStatement ps =
            c.prepareStatement("SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
      st.execute("SET LOCAL statement_timeout = " + Math.max(1, wait.toMillis()));
      ps.setString(1, slot);
      ps.execute();
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  private static boolean exists(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The transactions with an xid, in any database, and the prepared ones: what slot creation waits for. */
  public static List<String> blockers(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT 'pid ' || pid || ' (database ' || coalesce(datname, '?') || ', '"
                    + " || coalesce(state, '?') || ' since ' || coalesce(xact_start::text, '?')"
                    + " || ', query: ' || left(coalesce(query, ''), 80) || ')'"
                    + " FROM pg_stat_activity WHERE backend_xid IS NOT NULL"
                    + " AND pid <> pg_backend_pid()"
                    + " UNION ALL SELECT 'prepared transaction ' || quote_literal(gid)"
                    + " || ' (database ' || database || ', prepared ' || prepared || ')'"
                    + " FROM pg_prepared_xacts")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out.isEmpty() ? List.of("(none visible any more)") : out;
  }
}
