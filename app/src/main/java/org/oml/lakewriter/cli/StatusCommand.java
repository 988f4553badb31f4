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
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableStats;
import org.oml.lakewriter.doctor.HorizonHolders;
import org.oml.lakewriter.doctor.OutboxCounts;
import org.oml.lakewriter.doctor.TenantLag;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Frontier lag: the outbox head, the horizon (and the open transactions holding it"
            + " back, with their pids and ages), the committed frontier, and the slot's lag; then per"
            + " tenant and table the txn version, rows behind, seconds since the last commit and"
            + " dead letters waiting. Reads PostgreSQL and the lake, never Flink state, so it works"
            + " while the job is down. Counts walk the seq index up to --count-limit rows.")
final class StatusCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Option(
      names = "--count-limit",
      paramLabel = "N",
      defaultValue = "" + OutboxCounts.DEFAULT_LIMIT,
      description =
          "Row counts walk the seq index up to this many rows and then say 'at_least' (default:"
              + " ${DEFAULT-VALUE}); seq_behind_frontier_upper_bound bounds them from above.")
  long countLimit;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    Map<String, Object> status;
    try (Connection c = Preflight.connect(cfg)) {
      Preflight.requireContractTables(c, cfg, "status");
      status = status(c, cfg, countLimit);
    }
    if (json) {
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(status));
    } else {
      status.forEach(
          (k, v) -> {
            if (!k.equals("tenants")) {
              System.out.printf("%-22s %s%n", k, v);
            }
          });
      printTenants(status.get("tenants"));
    }
    return 0;
  }

  static Map<String, Object> status(Connection c, LakeWriterConfig cfg) throws SQLException {
    return status(c, cfg, OutboxCounts.DEFAULT_LIMIT);
  }

  static Map<String, Object> status(Connection c, LakeWriterConfig cfg, long countLimit)
      throws SQLException {
    String writer = cfg.writerId();
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("writer", writer);
    // max(seq) is one probe of the primary key; the row count walks it up to a bound (never a
    // count(*) over the whole outbox, which reads every row of a billion-row table).
    s.putAll(one(c, "SELECT coalesce(max(seq), 0) AS outbox_head FROM oml_outbox"));
    OutboxCounts.Bounded rows = OutboxCounts.rowsAbove(c, Long.MIN_VALUE, countLimit);
    s.put("outbox_rows", rows.count());
    s.put("outbox_rows_bound", rows.bound());
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
    s.putAll(lag(c, frontier, countLimit));
    s.putAll(
        one(c,
            "SELECT active AS slot_active, pg_wal_lsn_diff(pg_current_wal_lsn(),"
                + " confirmed_flush_lsn)::bigint AS slot_lag_bytes FROM pg_replication_slots WHERE"
                + " slot_name = ?",
            cfg.get(LakeWriterOptions.SLOT)));
    s.put("holding_horizon", HorizonHolders.list(c, writer));
    s.putAll(quarantine(cfg));
    s.put("dependencies", dependencies(c, writer));
    s.put("leader_lease", leaderLease(c, cfg));
    s.put("tenants", tenants(c, cfg, frontier, countLimit));
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
   * The lag behind the frontier, cheap on a billion-row outbox (docs/doctor.md, "Counting on a
   * large outbox"): the rows above it counted along the seq index up to {@code limit} ({@code
   * rows_behind_frontier_bound} says {@code exact} or {@code at_least}), the seqs handed out above
   * it as an upper bound (rolled-back and open ones included), and the age of the first row above
   * it (by seq, one index probe; seq order is insert order, so it is about the oldest).
   */
  private static Map<String, Object> lag(Connection c, long frontier, long limit)
      throws SQLException {
    Map<String, Object> m = new LinkedHashMap<>();
    OutboxCounts.Bounded behind = OutboxCounts.rowsAbove(c, frontier, limit);
    m.put("rows_behind_frontier", behind.count());
    m.put("rows_behind_frontier_bound", behind.bound());
    m.put("seq_behind_frontier_upper_bound", OutboxCounts.seqSpan(c, frontier));
    m.putAll(
        one(c,
            "SELECT coalesce((SELECT extract(epoch FROM now() - event_time) FROM oml_outbox"
                + " WHERE seq > ? ORDER BY seq LIMIT 1), 0)::bigint AS oldest_unapplied_age_s",
            frontier));
    return m;
  }

  /**
   * Per tenant and table ({@link TenantLag}): txn version, rows behind, time since the last
   * commit, dead letters waiting. Read from the lake's logs and PostgreSQL, never Flink state; an
   * unreadable lake is said, never hidden.
   */
  private static Object tenants(Connection c, LakeWriterConfig cfg, long frontier, long limit)
      throws SQLException {
    Map<TableId, TableStats> stats = new LinkedHashMap<>();
    try {
      LakeReader lake = LakeReader.open(cfg.lake());
      for (TableId t : lake.tables()) {
        lake.stats(t).ifPresent(st -> stats.put(t, st));
      }
    } catch (java.io.IOException | RuntimeException e) {
      return "unreadable lake at " + cfg.lakeRoot() + ": " + e.getMessage();
    }
    return TenantLag.report(
        frontier,
        TenantLag.rowsAbove(c, frontier, limit),
        stats,
        TenantLag.deadLettersByTenant(c, cfg.writerId()),
        java.time.Instant.now());
  }

  @SuppressWarnings("unchecked")
  private static void printTenants(Object tenants) {
    if (!(tenants instanceof List<?> list)) {
      System.out.printf("%-22s %s%n", "tenants", tenants);
      return;
    }
    System.out.printf(
        "%n%-12s %-22s %12s %12s %14s %8s%n",
        "tenant", "table", "txn_version", "rows_behind", "last_commit_s", "dead");
    for (Object o : list) {
      Map<String, Object> t = (Map<String, Object>) o;
      String atLeast = "at_least".equals(t.get("rows_behind_bound")) ? ">=" : "";
      System.out.printf(
          "%-12s %-22s %12s %12s %14s %8s%n",
          t.get("tenant"), "(tenant)", "", atLeast + t.get("rows_behind"), "",
          t.get("dead_letters_waiting"));
      for (Map<String, Object> table : (List<Map<String, Object>>) t.get("tables")) {
        Object behind = table.get("rows_behind");
        System.out.printf(
            "%-12s %-22s %12s %12s %14s %8s%n",
            "", table.get("table"), table.get("txn_version"),
            behind == null ? "-" : atLeast + behind, table.get("since_last_commit_s"), "");
      }
    }
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
