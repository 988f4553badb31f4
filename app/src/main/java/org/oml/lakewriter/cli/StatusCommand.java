package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Frontier lag: the outbox head, the horizon (and the open transactions holding it"
            + " back, with their pids and ages), the committed frontier, and the slot's lag.")
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    Map<String, Object> status;
    try (Connection c = Preflight.connect(cfg)) {
      Preflight.requireContractTables(c, cfg, "status");
      status = status(c, cfg);
    }
    if (json) {
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(status));
    } else {
      status.forEach((k, v) -> System.out.printf("%-22s %s%n", k, v));
    }
    return 0;
  }

  static Map<String, Object> status(Connection c, LakeWriterConfig cfg) throws SQLException {
    String writer = cfg.writerId();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("writer", writer);
    s.putAll(
        one(c,
            "SELECT coalesce(max(seq), 0) AS outbox_head, count(*) AS outbox_rows FROM oml_outbox"));
    s.putAll(
        one(c,
            "SELECT stable_seq AS horizon, pending_seq AS horizon_pending, ticked_at AS"
                + " last_tick FROM oml_lake_horizon WHERE writer_id = ?",
            writer));
    s.putAll(
        one(c,
            "SELECT frontier_seq AS frontier, updated_at AS frontier_updated FROM"
                + " oml_lake_frontier WHERE writer_id = ?",
            writer));
    long frontier = s.get("frontier") == null ? 0 : ((Number) s.get("frontier")).longValue();
    s.putAll(
        one(c,
            "SELECT count(*) AS rows_behind_frontier,"
                + " coalesce(extract(epoch FROM now() - min(event_time)), 0)::bigint AS"
                + " oldest_unapplied_age_s FROM oml_outbox WHERE seq > ?",
            frontier));
    s.putAll(
        one(c,
            "SELECT active AS slot_active, pg_wal_lsn_diff(pg_current_wal_lsn(),"
                + " confirmed_flush_lsn)::bigint AS slot_lag_bytes FROM pg_replication_slots WHERE"
                + " slot_name = ?",
            cfg.get(LakeWriterOptions.SLOT)));
    s.put("holding_horizon", blockers(c, writer));
    s.putAll(quarantine(cfg));
    s.put("dependencies", dependencies(c, writer));
    s.put("leader_lease", leaderLease(c, cfg));
    return s;
  }

  /**
   * The tenants in quarantine (docs/quarantine.md), read from the lake: each with its table,
   * reason, since and own frontier (its tables' txn versions). Unreadable is said, never hidden.
   */
  private static Map<String, Object> quarantine(LakeWriterConfig cfg) {
    Map<String, Object> q = new LinkedHashMap<>();
    try {
      List<Map<String, Object>> tenants = QuarantineCommand.report(cfg);
      q.put("quarantined_tenants", tenants.size());
      q.put("quarantine", tenants);
    } catch (java.io.IOException | RuntimeException e) {
      q.put("quarantined_tenants", null);
      q.put("quarantine", "unreadable: " + e.getMessage());
    }
    return q;
  }

  /**
   * The breakers of the job's dependencies (issue 11 item 7), as the job last published them in
   * {@code oml_lake_dependency}; an open one says what the cut waits for. Empty when the table is
   * absent (a contract older than the breaker).
   */
  private static List<Map<String, Object>> dependencies(Connection c, String writer)
      throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    if (one(c, "SELECT to_regclass('oml_lake_dependency')::text AS t").get("t") == null) {
      return rows;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT dependency, state, since, last_error,"
                + " CASE WHEN state = 'CLOSED' THEN 'ok' ELSE 'the cut holds for every tenant"
                + " before the next row that needs ' || dependency || '; no row is dead-lettered"
                + " for it' END AS effect"
                + " FROM oml_lake_dependency WHERE writer_id = ? ORDER BY dependency")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    return rows;
  }

  /**
   * The lake's leader lease (docs/leader-lease.md): holder, epoch, expiry and whether its holder
   * is live (renewing), stale (stopped renewing, not yet expired) or expired; null if never taken.
   */
  private static Map<String, Object> leaderLease(Connection c, LakeWriterConfig cfg)
      throws SQLException {
    return org.oml.lakewriter.lease.LeaderLease.read(c, cfg.lakeRoot())
        .map(
            l -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("lake_root", l.lakeRoot());
              m.put("state", l.state());
              m.put("epoch", l.epoch());
              m.put("holder", l.holder());
              m.put("holder_host", l.holderHost());
              m.put("holder_pid", l.holderPid());
              m.put("job_id", l.jobId());
              m.put("writer_id", l.writerId());
              m.put("slot", l.slot());
              m.put("acquired_at", l.acquiredAt().toString());
              m.put("renewed_at", l.renewedAt().toString());
              m.put("expires_at", l.expiresAt().toString());
              return m;
            })
        .orElse(null);
  }

  /**
   * The transactions in the pending candidate set that are still open: what holds the horizon
   * back. An ordinary holder is named by its pid (from {@code pg_stat_activity}); a prepared
   * transaction has no backend and is not in {@code pg_stat_activity}, so it is named by its gid,
   * prepare time, owner and database (from {@code pg_prepared_xacts}): it holds the horizon until
   * someone runs {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED} on it. Candidates are
   * matched on the low 32 bits of their xid, which is what both views show; the range is empty
   * for a pending row of the current tick and is kept for one written before the upgrade.
   */
  private static List<Map<String, Object>> blockers(Connection c, String writer)
      throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "WITH p AS (SELECT xip, range_lo, range_hi FROM oml_lake_horizon_pending"
                + " WHERE writer_id = ?)"
                + " SELECT 'transaction' AS holder, a.pid, NULL AS gid, a.backend_xid::text AS xid,"
                + " a.datname::text AS database, a.usename::text AS owner,"
                + " a.xact_start AS since,"
                + " extract(epoch FROM now() - a.xact_start)::bigint AS age_s, a.state,"
                + " left(a.query, 120) AS query"
                + " FROM pg_stat_activity a, p WHERE a.backend_xid IS NOT NULL AND ("
                + inCandidates("a.backend_xid") + ")"
                + " UNION ALL"
                + " SELECT 'prepared', NULL, px.gid, px.transaction::text, px.database::text,"
                + " px.owner::text, px.prepared,"
                + " extract(epoch FROM now() - px.prepared)::bigint, 'prepared', NULL"
                + " FROM pg_prepared_xacts px, p WHERE ("
                + inCandidates("px.transaction") + ")"
                + " ORDER BY since")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    return rows;
  }

  /** SQL: the 32-bit xid {@code column} is one of the pending row {@code p}'s candidates. */
  private static String inCandidates(String column) {
    String x32 = column + "::text::bigint";
    return x32 + " IN (SELECT x::text::bigint % 4294967296 FROM unnest(p.xip) AS x) OR " + x32
        + " BETWEEN p.range_lo::text::bigint % 4294967296"
        + " AND p.range_hi::text::bigint % 4294967296 - 1";
  }

  private static Map<String, Object> one(Connection c, String sql, Object... args)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return row(rs);
        }
        Map<String, Object> nulls = new LinkedHashMap<>();
        ResultSetMetaData m = rs.getMetaData();
        for (int i = 1; i <= m.getColumnCount(); i++) {
          nulls.put(m.getColumnLabel(i), null);
        }
        return nulls;
      }
    }
  }

  private static Map<String, Object> row(ResultSet rs) throws SQLException {
    Map<String, Object> row = new LinkedHashMap<>();
    ResultSetMetaData m = rs.getMetaData();
    for (int i = 1; i <= m.getColumnCount(); i++) {
      row.put(m.getColumnLabel(i), iso8601(rs.getObject(i)));
    }
    return row;
  }

  /** Timestamps as ISO 8601 in UTC ({@code 2026-12-01T00:20:00.123456Z}), as dead-letters prints. */
  private static Object iso8601(Object value) {
    if (value instanceof java.sql.Timestamp t) {
      return t.toInstant().toString();
    }
    if (value instanceof java.time.OffsetDateTime t) {
      return t.toInstant().toString();
    }
    return value;
  }
}
