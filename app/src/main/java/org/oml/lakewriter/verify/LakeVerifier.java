package org.oml.lakewriter.verify;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Checks the lake against the outbox up to a frontier, the way the reconciler does: every
 * committed outbox row with {@code seq <= frontier} is in its tenant's bronze table or in a
 * dead-letter table, exactly once and never under another tenant's prefix; and silver holds one
 * row per promoted {@code (artifact_id, version)} in bronze. It reads the lake with {@link
 * LakeReader} (Kernel's scan), never with the writer's code.
 */
public final class LakeVerifier {
  private LakeVerifier() {}

  /** The outcome: counts per tenant and every problem found, by name. */
  public record Result(long frontier, long outboxRows, Map<String, TenantCounts> tenants,
      List<String> problems) {
    public boolean ok() {
      return problems.isEmpty();
    }
  }

  /** What one tenant's prefix holds. */
  public record TenantCounts(long outbox, long bronze, long silver, long deadLetters) {}

  public static Result verify(Connection outbox, String schema, LakeReader lake, long frontier)
      throws SQLException, IOException {
    Map<Long, String> tenantOf = new HashMap<>();
    Map<String, Long> outboxPerTenant = new TreeMap<>();
    try (PreparedStatement ps =
        outbox.prepareStatement(
            "SELECT seq, tenant_id FROM " + schema + ".oml_outbox WHERE seq <= ? ORDER BY seq")) {
      ps.setLong(1, frontier);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String tenant = rs.getString(2);
          String prefix = EventValidator.isValidTenant(tenant) ? tenant : TableId.INVALID_TENANT_PREFIX;
          tenantOf.put(rs.getLong(1), prefix);
          outboxPerTenant.merge(prefix, 1L, Long::sum);
        }
      }
    }
    List<String> problems = new ArrayList<>();
    Map<Long, String> seen = new HashMap<>();
    Map<String, TenantCounts> tenants = new TreeMap<>();
    Set<String> prefixes = new HashSet<>(outboxPerTenant.keySet());
    lake.tables().forEach(t -> prefixes.add(t.prefix()));
    for (String prefix : prefixes) {
      long bronze = 0;
      long dead = 0;
      long silver = 0;
      Set<String> promoted = new HashSet<>();
      if (!prefix.equals(TableId.INVALID_TENANT_PREFIX)) {
        for (Map<String, Object> row : rowsUpTo(lake, TableId.of(prefix, TableKind.BRONZE_JOURNAL_EVENTS), frontier)) {
          bronze++;
          place(row, prefix, "bronze", tenantOf, seen, problems);
          if ("materialize".equals(row.get("kind"))) {
            promoted.add(row.get("artifact_id") + "@" + row.get("version"));
          }
        }
        Set<String> inSilver = new HashSet<>();
        for (Map<String, Object> row : rowsUpTo(lake, TableId.of(prefix, TableKind.SILVER_MEMORIES), frontier)) {
          silver++;
          String key = row.get("artifact_id") + "@" + row.get("version");
          if (!inSilver.add(key)) {
            problems.add("DUPLICATE_SILVER_ROW " + prefix + " " + key);
          }
        }
        for (String key : promoted) {
          if (!inSilver.contains(key)) {
            problems.add("MISSING_SILVER_ROW " + prefix + " " + key);
          }
        }
      }
      TableId deadTable =
          prefix.equals(TableId.INVALID_TENANT_PREFIX)
              ? TableId.invalidTenantDeadLetter()
              : TableId.of(prefix, TableKind.DEAD_LETTER);
      for (Map<String, Object> row : rowsUpTo(lake, deadTable, frontier)) {
        dead++;
        place(row, prefix, "dead_letter", tenantOf, seen, problems);
      }
      tenants.put(prefix, new TenantCounts(outboxPerTenant.getOrDefault(prefix, 0L), bronze, silver, dead));
    }
    for (Map.Entry<Long, String> e : tenantOf.entrySet()) {
      if (!seen.containsKey(e.getKey())) {
        problems.add("MISSING_ROW seq=" + e.getKey() + " tenant=" + e.getValue());
      }
    }
    problems.sort(null);
    return new Result(frontier, tenantOf.size(), tenants, problems);
  }

  private static List<Map<String, Object>> rowsUpTo(LakeReader lake, TableId table, long frontier)
      throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Map<String, Object> row : lake.rows(table)) {
      if (((Long) row.get("seq")) <= frontier) {
        rows.add(row);
      }
    }
    return rows;
  }

  private static void place(Map<String, Object> row, String prefix, String table,
      Map<Long, String> tenantOf, Map<Long, String> seen, List<String> problems) {
    long seq = (Long) row.get("seq");
    String expected = tenantOf.get(seq);
    if (expected == null) {
      problems.add("UNKNOWN_ROW seq=" + seq + " in " + prefix + "/" + table);
    } else if (!expected.equals(prefix)) {
      problems.add("WRONG_PREFIX seq=" + seq + " of " + expected + " in " + prefix + "/" + table);
    }
    String previous = seen.put(seq, prefix + "/" + table);
    if (previous != null) {
      problems.add("DUPLICATE_ROW seq=" + seq + " in " + previous + " and " + prefix + "/" + table);
    }
  }
}
