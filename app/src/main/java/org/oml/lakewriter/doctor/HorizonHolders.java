package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transactions in the pending candidate set that are still open: what holds the horizon back,
 * for {@code status} and {@code doctor}. An ordinary holder is named by its pid (from {@code
 * pg_stat_activity}); a prepared transaction has no backend and is not in {@code
 * pg_stat_activity}, so it is named by its gid, prepare time, owner and database (from {@code
 * pg_prepared_xacts}): it holds the horizon until someone runs {@code COMMIT PREPARED} or {@code
 * ROLLBACK PREPARED} on it. Candidates are matched on the low 32 bits of their xid, which is what
 * both views show; the range is empty for a pending row of the current tick and is kept for one
 * written before the upgrade (docs/horizon-candidates-and-verify.md).
 */
public final class HorizonHolders {
  private HorizonHolders() {}

  /**
   * One map per holder, oldest first: holder ({@code transaction} or {@code prepared}), pid, gid,
   * xid, database, owner, since (ISO 8601, UTC), age_s, state, query.
   */
  public static List<Map<String, Object>> list(Connection c, String writer) throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "WITH p AS (SELECT xip, range_lo, range_hi FROM oml_lake_horizon_pending"
                + " WHERE writer_id = ?)"
                + " SELECT 'transaction' AS holder, a.pid, NULL AS gid, a.backend_xid::text AS xid,"
                + " a.datname::text AS database, a.usename::text AS owner,"
                + " to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS since,"
                + " extract(epoch FROM now() - a.xact_start)::bigint AS age_s, a.state,"
                + " left(a.query, 120) AS query"
                + " FROM pg_stat_activity a, p WHERE a.backend_xid IS NOT NULL AND ("
                + inCandidates("a.backend_xid") + ")"
                + " UNION ALL"
                + " SELECT 'prepared', NULL, px.gid, px.transaction::text, px.database::text,"
                + " px.owner::text, to_char(px.prepared AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'),"
                + " extract(epoch FROM now() - px.prepared)::bigint, 'prepared', NULL"
                + " FROM pg_prepared_xacts px, p WHERE ("
                + inCandidates("px.transaction") + ")"
                + " ORDER BY since")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData m = rs.getMetaData();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int i = 1; i <= m.getColumnCount(); i++) {
            row.put(m.getColumnLabel(i), rs.getObject(i));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** The same holders as {@link Facts.Holder}s, for the doctor's rules. */
  public static List<Facts.Holder> facts(Connection c, String writer) throws SQLException {
    List<Facts.Holder> holders = new ArrayList<>();
    for (Map<String, Object> r : list(c, writer)) {
      holders.add(
          new Facts.Holder(
              (String) r.get("holder"),
              r.get("pid") == null ? null : ((Number) r.get("pid")).intValue(),
              (String) r.get("gid"),
              (String) r.get("xid"),
              (String) r.get("database"),
              (String) r.get("owner"),
              (String) r.get("since"),
              r.get("age_s") == null ? 0 : ((Number) r.get("age_s")).longValue(),
              (String) r.get("state"),
              (String) r.get("query")));
    }
    return holders;
  }

  /** SQL: the 32-bit xid {@code column} is one of the pending row {@code p}'s candidates. */
  private static String inCandidates(String column) {
    String x32 = column + "::text::bigint";
    return x32 + " IN (SELECT x::text::bigint % 4294967296 FROM unnest(p.xip) AS x) OR " + x32
        + " BETWEEN p.range_lo::text::bigint % 4294967296"
        + " AND p.range_hi::text::bigint % 4294967296 - 1";
  }
}
