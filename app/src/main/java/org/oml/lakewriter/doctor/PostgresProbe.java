package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads PostgreSQL's side of the doctor's {@link Facts}: catalog views and the contract's own
 * tables, one small query each. Every query is bounded (primary-key probes, bounded counts, the
 * journal's status index): nothing scans the outbox.
 */
public final class PostgresProbe {
  private final Connection c;
  private final long countLimit;

  public PostgresProbe(Connection c, long countLimit) {
    this.c = c;
    this.countLimit = countLimit;
  }

  public String walLevel() throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT current_setting('wal_level')");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  public Facts.Slot slot(String name) throws SQLException {
    String keep;
    String here;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT current_setting('max_slot_wal_keep_size'), current_database()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      keep = rs.getString(1);
      here = rs.getString(2);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT database::text, plugin::text, active, active_pid,"
                + " pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint AS retained,"
                + " wal_status, safe_wal_size FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Facts.Slot.missing(name, keep, here);
        }
        return new Facts.Slot(
            name,
            true,
            rs.getString(1),
            rs.getString(2),
            rs.getBoolean(3),
            (Integer) rs.getObject(4),
            (Long) rs.getObject(5),
            rs.getString(6),
            rs.getObject(7) == null ? null : rs.getLong(7),
            keep,
            here);
      }
    }
  }

  public Facts.Publication publication(String name, String schema) throws SQLException {
    Set<String> required = Set.of(schema + ".oml_outbox", schema + ".oml_lake_horizon");
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pubinsert, pubupdate, puballtables FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Facts.Publication(name, false, false, false, false, Set.of(), required);
        }
        boolean insert = rs.getBoolean(1);
        boolean update = rs.getBoolean(2);
        boolean all = rs.getBoolean(3);
        Set<String> tables = new HashSet<>();
        try (PreparedStatement t =
            c.prepareStatement(
                "SELECT schemaname || '.' || tablename FROM pg_publication_tables"
                    + " WHERE pubname = ?")) {
          t.setString(1, name);
          try (ResultSet trs = t.executeQuery()) {
            while (trs.next()) {
              tables.add(trs.getString(1));
            }
          }
        }
        return new Facts.Publication(name, true, insert, update, all, tables, required);
      }
    }
  }

  public Facts.Horizon horizon(String writer) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT stable_seq, pending_seq, extract(epoch FROM now() - ticked_at)::float8"
                + " FROM oml_lake_horizon WHERE writer_id = ?")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Facts.Horizon(false, 0, null, null);
        }
        return new Facts.Horizon(
            true, rs.getLong(1), (Long) rs.getObject(2), rs.getDouble(3));
      }
    }
  }

  /** The frontier cache row and the rows waiting above it, counted to the bound. */
  public Facts.Frontier frontier(String writer, long horizon) throws SQLException {
    Long frontier = null;
    Double age = null;
    java.time.Instant updated = null;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT frontier_seq, extract(epoch FROM now() - updated_at)::float8, updated_at"
                + " FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          frontier = rs.getLong(1);
          age = rs.getDouble(2);
          Timestamp t = rs.getTimestamp(3);
          updated = t == null ? null : t.toInstant();
        }
      }
    }
    long f = frontier == null ? 0 : frontier;
    OutboxCounts.Bounded above = OutboxCounts.rowsAbove(c, f, countLimit);
    OutboxCounts.Bounded underHorizon =
        horizon > f
            ? OutboxCounts.rowsBetween(c, f, horizon, countLimit)
            : new OutboxCounts.Bounded(0, false);
    return new Facts.Frontier(
        frontier, age, updated, above.count(), above.capped(), underHorizon.count(), horizon);
  }

  /** The outbox's highest seq at or below {@code frontier} and its tenant; nulls if none. */
  public Object[] lastCommitted(long frontier) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, tenant_id FROM oml_outbox WHERE seq <= ? ORDER BY seq DESC LIMIT 1")) {
      ps.setLong(1, frontier);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new Object[] {rs.getLong(1), rs.getString(2)}
            : new Object[] {null, null};
      }
    }
  }

  public Facts.DeadLetters deadLetters(String writer) throws SQLException {
    Map<String, Long> byClass = new LinkedHashMap<>();
    Map<String, Long> byTenant = new LinkedHashMap<>();
    long total = 0;
    Double oldest = null;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT error_class, coalesce(tenant_id, ''), count(*),"
                + " extract(epoch FROM now() - min(first_failure_at))::float8"
                + " FROM oml_lake_dead_letter WHERE status = 'dead' AND writer_id = ?"
                + " GROUP BY 1, 2 ORDER BY 1, 2")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long n = rs.getLong(3);
          byClass.merge(rs.getString(1), n, Long::sum);
          byTenant.merge(rs.getString(2), n, Long::sum);
          total += n;
          double age = rs.getDouble(4);
          oldest = oldest == null ? age : Math.max(oldest, age);
        }
      }
    }
    return new Facts.DeadLetters(total, byClass, byTenant, oldest);
  }

  public Facts.Retention retention(long frontier) throws SQLException {
    Long min;
    try (PreparedStatement ps = c.prepareStatement("SELECT min(seq) FROM oml_outbox");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      min = (Long) rs.getObject(1);
    }
    return new Facts.Retention(frontier, min, OutboxCounts.sequenceLastValue(c));
  }

  /**
   * This connection's TLS state and the role's missing writer grants (issue 16).
   *
   * @param sslmode {@code postgres.url}'s sslmode, null if unset
   */
  public Facts.Connection connection(String host, String sslmode, String schema)
      throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT current_user, coalesce(s.ssl, false), s.version, s.client_dn IS NOT NULL"
                    + " FROM pg_stat_ssl s WHERE s.pid = pg_backend_pid()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new Facts.Connection(
          rs.getString(1),
          host,
          sslmode,
          rs.getBoolean(2),
          rs.getString(3),
          rs.getBoolean(4),
          org.oml.lakewriter.contract.WriterGrants.missing(c, schema));
    }
  }
}
