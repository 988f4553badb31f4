package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.TableStats;

/**
 * {@code status} per tenant and table: each table's txn version, Delta version and time since its
 * last commit (from its log), the rows it has not yet been asked about, and the tenant's dead
 * letters waiting for a repair. Reads the lake and PostgreSQL, never Flink state, so it works while
 * the job is down.
 *
 * <p>Rows behind a table are the tenant's outbox rows above both the committed frontier and the
 * table's txn version (every row at or below the frontier has been applied to every table it
 * touches, so a quiet tenant's older txn version is not lag). Bronze counts every kind; silver
 * every kind but {@code journal}, an upper bound because a row that fails validation goes to the
 * dead letters instead; each gold table every kind, an upper bound too (only a key's first journal
 * event, a promotion, a retraction of a known key or a validation changes gold); the dead-letter
 * table none (which rows fail is only known once they are
 * processed). They come from one bounded walk of the seq index above the frontier ({@link
 * #rowsAbove}); when the walk reaches its limit, every count is a lower bound, marked {@code
 * at_least}.
 */
public final class TenantLag {
  private TenantLag() {}

  /** One outbox row above the frontier: its seq, tenant id and kind. */
  public record Row(long seq, String tenant, String kind) {}

  /** The rows above {@code frontier}, in seq order, at most {@code limit}; capped if more exist. */
  public record RowsAbove(List<Row> rows, boolean capped) {}

  public static RowsAbove rowsAbove(Connection c, long frontier, long limit) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, tenant_id, kind FROM oml_outbox WHERE seq > ? ORDER BY seq LIMIT ?")) {
      ps.setLong(1, frontier);
      ps.setLong(2, limit + 1);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3)));
        }
      }
    }
    boolean capped = rows.size() > limit;
    return new RowsAbove(capped ? rows.subList(0, (int) limit) : rows, capped);
  }

  /** Dead letters waiting ({@code status = 'dead'}) per tenant prefix of the writer. */
  public static Map<String, Long> deadLettersByTenant(Connection c, String writer)
      throws SQLException {
    Map<String, Long> byTenant = new TreeMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT tenant_id, count(*) FROM oml_lake_dead_letter"
                + " WHERE status = 'dead' AND writer_id = ? GROUP BY tenant_id")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          byTenant.merge(prefix(rs.getString(1)), rs.getLong(2), Long::sum);
        }
      }
    }
    return byTenant;
  }

  /**
   * The per-tenant section: one entry per tenant that has a lake table, a row above the frontier
   * or a waiting dead letter, sorted by tenant; its tables sorted by path.
   */
  public static List<Map<String, Object>> report(
      long frontier,
      RowsAbove above,
      Map<TableId, TableStats> lake,
      Map<String, Long> deadLetters,
      Instant now) {
    Map<String, List<Map.Entry<TableId, TableStats>>> tables = new TreeMap<>();
    lake.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> tables.computeIfAbsent(e.getKey().prefix(), t -> new ArrayList<>()).add(e));
    Map<String, List<Row>> rows = new TreeMap<>();
    for (Row r : above.rows()) {
      rows.computeIfAbsent(prefix(r.tenant()), t -> new ArrayList<>()).add(r);
    }
    java.util.SortedSet<String> tenants = new java.util.TreeSet<>(tables.keySet());
    tenants.addAll(rows.keySet());
    tenants.addAll(deadLetters.keySet());
    String bound = above.capped() ? "at_least" : "exact";
    List<Map<String, Object>> out = new ArrayList<>();
    for (String tenant : tenants) {
      List<Row> mine = rows.getOrDefault(tenant, List.of());
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("tenant", tenant);
      t.put("rows_behind", mine.size());
      t.put("rows_behind_bound", bound);
      t.put("dead_letters_waiting", deadLetters.getOrDefault(tenant, 0L));
      List<Map<String, Object>> list = new ArrayList<>();
      for (Map.Entry<TableId, TableStats> e : tables.getOrDefault(tenant, List.of())) {
        list.add(table(e.getKey(), e.getValue(), frontier, mine, bound, now));
      }
      t.put("tables", list);
      out.add(t);
    }
    return out;
  }

  private static Map<String, Object> table(
      TableId id, TableStats s, long frontier, List<Row> rows, String bound, Instant now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("table", id.kind().path());
    m.put("txn_version", s.txnVersion());
    m.put("delta_version", s.tableVersion());
    m.put("last_commit_at", s.lastCommitAt().toString());
    m.put("since_last_commit_s", Math.max(0, Duration.between(s.lastCommitAt(), now).toSeconds()));
    long asked = Math.max(frontier, s.txnVersion());
    Long behind = null;
    if (id.kind() == TableKind.BRONZE_JOURNAL_EVENTS) {
      behind = rows.stream().filter(r -> r.seq() > asked).count();
    } else if (id.kind() == TableKind.SILVER_MEMORIES) {
      behind = rows.stream().filter(r -> r.seq() > asked && !"journal".equals(r.kind())).count();
    } else if (id.kind().path().startsWith("gold/")) {
      // Every kind may change gold (a journal event creates a lineage row): an upper bound.
      behind = rows.stream().filter(r -> r.seq() > asked).count();
    }
    m.put("rows_behind", behind);
    m.put("rows_behind_bound", behind == null ? null : bound);
    m.put("files", s.fileCount());
    return m;
  }

  /** The lake prefix a row's tenant id lands under: itself if valid, else the invalid prefix. */
  static String prefix(String tenant) {
    return TableId.isValidTenant(tenant) ? tenant : TableId.INVALID_TENANT_PREFIX;
  }
}
