package org.oml.lakewriter.verify;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Checks the lake against the outbox, the way the reconciler does. It reads the lake with {@link
 * LakeReader} (Kernel's scan) and the outbox with SQL, never with the writer's code.
 *
 * <ul>
 *   <li><b>Coverage</b>, up to the frontier: every committed outbox row with {@code seq <=
 *       frontier} is in its tenant's bronze table or in a dead-letter table, exactly once and never
 *       under another tenant's prefix.
 *   <li><b>Silver, per key</b>: each tenant's {@code silver/memories} equals the fold of that
 *       tenant's outbox ({@link SilverFold}) up to the silver table's <em>own</em> txn version (a
 *       tenant may lag behind the global frontier, and the table holds exactly the batches up to
 *       its version), leaving out the seqs in the tenant's lake {@code dead_letter} table. State,
 *       workarea, digests, seq and attribution are compared column by column ({@link
 *       SilverCheck}), so a lost or extra retraction shows up, not only a missing row. A silver
 *       table whose version is below a seq at or below the frontier that changes it is {@code
 *       SILVER_BEHIND}.
 *   <li><b>Gold, per key</b>: each tenant's three gold tables equal the fold of the same events
 *       ({@link GoldFold}), each at its own txn version; every difference is named per table and
 *       kind ({@link GoldCheck}: {@code GOLD_LINEAGE_MISMATCH}, {@code GOLD_WORKAREA_MISSING},
 *       {@code GOLD_MEMBERSHIP_EXTRA}, ..., {@code GOLD_BEHIND}).
 * </ul>
 *
 * A lake read while a batch is half committed (silver committed, its dead_letter not yet) can show
 * a finding that the writer's next commit clears; the global frontier only passes a batch once all
 * its tables committed, so a finding at or below it is real.
 */
public final class LakeVerifier {
  private static final String SILVER_KINDS =
      "('materialize', 'demote', 'erase', 'simulation_end', 'reassign')";

  private LakeVerifier() {}

  /** The outcome: counts per tenant and every finding, by name. */
  public record Result(long frontier, long outboxRows, Map<String, TenantCounts> tenants,
      List<Finding> findings) {
    public Result {
      findings = List.copyOf(findings);
    }

    public boolean ok() {
      return findings.isEmpty();
    }

    /** Each finding as one line, in {@link Finding#ORDER}: {@code NAME table subject: detail}. */
    public List<String> problems() {
      return findings.stream().sorted(Finding.ORDER).map(Finding::toString).toList();
    }

    /** How many findings of each name. */
    public Map<String, Long> findingCounts() {
      Map<String, Long> counts = new TreeMap<>();
      findings.forEach(f -> counts.merge(f.name(), 1L, Long::sum));
      return counts;
    }
  }

  /**
   * What one tenant's prefix holds; {@code silverTxnVersion} is the version the silver fold ran up
   * to ({@code -1} without a silver table).
   */
  public record TenantCounts(long outbox, long bronze, long silver, long deadLetters,
      long silverTxnVersion) {}

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
    List<Finding> findings = new ArrayList<>();
    Map<Long, String> seen = new HashMap<>();
    Map<String, TenantCounts> tenants = new TreeMap<>();
    Set<String> prefixes = new HashSet<>(outboxPerTenant.keySet());
    lake.tables().forEach(t -> prefixes.add(t.prefix()));
    for (String prefix : prefixes) {
      long bronze = 0;
      long dead = 0;
      long silver = 0;
      long silverVersion = -1;
      TableId deadTable =
          prefix.equals(TableId.INVALID_TENANT_PREFIX)
              ? TableId.invalidTenantDeadLetter()
              : TableId.of(prefix, TableKind.DEAD_LETTER);
      List<Map<String, Object>> deadRows = lake.rows(deadTable);
      for (Map<String, Object> row : upTo(deadRows, frontier)) {
        dead++;
        place(row, prefix, "dead_letter", tenantOf, seen, findings);
      }
      if (!prefix.equals(TableId.INVALID_TENANT_PREFIX)) {
        for (Map<String, Object> row :
            upTo(lake.rows(TableId.of(prefix, TableKind.BRONZE_JOURNAL_EVENTS)), frontier)) {
          bronze++;
          place(row, prefix, "bronze", tenantOf, seen, findings);
        }
        TableId silverTable = TableId.of(prefix, TableKind.SILVER_MEMORIES);
        TableContents contents = lake.contents(silverTable).orElse(null);
        List<Map<String, Object>> silverRows = contents == null ? List.of() : contents.rows();
        silverVersion = contents == null ? -1 : contents.txnVersion();
        silver = silverRows.size();
        Set<Long> deadSeqs = new HashSet<>();
        deadRows.forEach(r -> deadSeqs.add((Long) r.get("seq")));
        findings.addAll(
            checkSilver(outbox, schema, prefix, silverTable, silverVersion, silverRows, deadSeqs,
                frontier));
        findings.addAll(checkGold(outbox, schema, prefix, lake, deadSeqs, frontier));
      }
      tenants.put(prefix,
          new TenantCounts(outboxPerTenant.getOrDefault(prefix, 0L), bronze, silver, dead,
              silverVersion));
    }
    for (Map.Entry<Long, String> e : tenantOf.entrySet()) {
      if (!seen.containsKey(e.getKey())) {
        findings.add(new Finding("MISSING_ROW", e.getValue() + "/{bronze,dead_letter}",
            "seq=" + e.getKey(), "in the outbox, in neither bronze nor a dead-letter table"));
      }
    }
    findings.sort(Finding.ORDER);
    return new Result(frontier, tenantOf.size(), tenants, findings);
  }

  /**
   * Folds the tenant's outbox (dead letters left out) up to the silver table's own txn version and
   * compares; then keeps folding up to the frontier: a change there means silver is behind.
   */
  private static List<Finding> checkSilver(Connection outbox, String schema, String tenant,
      TableId silverTable, long silverVersion, List<Map<String, Object>> silverRows,
      Set<Long> deadSeqs, long frontier) throws SQLException {
    String table = silverTable.relativePath();
    SilverFold fold = new SilverFold();
    List<Finding> findings = new ArrayList<>();
    boolean compared = false;
    long bound = Math.max(silverVersion, frontier);
    for (SilverFold.Event e : silverEvents(outbox, schema, tenant, bound)) {
      if (deadSeqs.contains(e.seq())) {
        continue; // sticky: a dead letter is never applied
      }
      if (!compared && e.seq() > silverVersion) {
        findings.addAll(SilverCheck.compare(table, fold.snapshot(), silverRows));
        compared = true;
      }
      if (fold.apply(e) && e.seq() > silverVersion && e.seq() <= frontier) {
        findings.add(new Finding("SILVER_BEHIND", table, SilverFold.key(e.artifactId(),
            e.version()), "seq " + e.seq() + " (" + e.kind() + ") at or below the frontier "
                + frontier + " changes silver, whose txn version is " + silverVersion));
        break;
      }
    }
    if (!compared) {
      findings.addAll(SilverCheck.compare(table, fold.snapshot(), silverRows));
    }
    return findings;
  }

  /**
   * Folds the tenant's outbox (dead letters left out) into gold ({@link GoldFold}) and compares
   * each gold table at its own txn version ({@link GoldCheck}); a change at or below the frontier
   * that a table has not taken is {@code GOLD_BEHIND}.
   */
  private static List<Finding> checkGold(Connection outbox, String schema, String tenant,
      LakeReader lake, Set<Long> deadSeqs, long frontier) throws SQLException, IOException {
    Map<TableKind, java.util.Optional<TableContents>> gold = new java.util.EnumMap<>(TableKind.class);
    long bound = frontier;
    for (TableKind kind : GoldFold.goldKinds()) {
      java.util.Optional<TableContents> contents = lake.contents(TableId.of(tenant, kind));
      gold.put(kind, contents);
      bound = Math.max(bound, contents.map(TableContents::txnVersion).orElse(-1L));
    }
    return GoldCheck.check(tenant, goldEvents(outbox, schema, tenant, bound, deadSeqs), gold,
        frontier);
  }

  /**
   * The tenant's outbox rows with seq at or below {@code bound}, as the gold fold reads them,
   * leaving out the dead letters (never in bronze, so never in gold), before any of their columns
   * is read: a poison row's event time may be no timestamp a lake can hold.
   */
  private static List<GoldFold.Event> goldEvents(Connection outbox, String schema, String tenant,
      long bound, Set<Long> deadSeqs) throws SQLException {
    List<GoldFold.Event> events = new ArrayList<>();
    try (PreparedStatement ps =
        outbox.prepareStatement(
            "SELECT seq, kind, tenant_id, artifact_id, artifact_version, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, data_key_id, event_time FROM " + schema
                + ".oml_outbox WHERE tenant_id = ? AND seq <= ? ORDER BY seq")) {
      ps.setString(1, tenant);
      ps.setLong(2, bound);
      ps.setFetchSize(10_000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (deadSeqs.contains(rs.getLong("seq")) || rs.getString("kind") == null) {
            continue; // a row without a kind is always a dead letter (UNKNOWN_KIND)
          }
          long v = rs.getLong("artifact_version");
          Long version = rs.wasNull() ? null : v;
          events.add(new GoldFold.Event(rs.getLong("seq"), rs.getString("kind"),
              rs.getString("tenant_id"), rs.getString("artifact_id"), version,
              rs.getString("workarea_id"), rs.getString("path_at_write"),
              rs.getString("writer_identity"), rs.getString("principal"),
              rs.getString("ratified_by"), rs.getString("provenance_class"),
              rs.getString("plaintext_digest"), rs.getString("ciphertext_digest"),
              rs.getString("data_key_id"), eventMicros(rs)));
        }
      }
    }
    return events;
  }

  /** The tenant's outbox rows that can touch silver, with seq at or below {@code bound}. */
  private static List<SilverFold.Event> silverEvents(Connection outbox, String schema,
      String tenant, long bound) throws SQLException {
    List<SilverFold.Event> events = new ArrayList<>();
    try (PreparedStatement ps =
        outbox.prepareStatement(
            "SELECT seq, kind, artifact_id, artifact_version, tenant_id, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " event_time, plaintext_digest, ciphertext_digest, data_key_id FROM " + schema
                + ".oml_outbox WHERE tenant_id = ? AND seq <= ? AND kind IN " + SILVER_KINDS
                + " ORDER BY seq")) {
      ps.setString(1, tenant);
      ps.setLong(2, bound);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Map<String, Object> columns = new LinkedHashMap<>();
          for (String column : SilverFold.COPIED) {
            columns.put(column, column.equals("event_time") ? instant(rs) : rs.getString(column));
          }
          long v = rs.getLong("artifact_version");
          Long version = rs.wasNull() ? null : v;
          events.add(new SilverFold.Event(rs.getLong("seq"), rs.getString("kind"),
              rs.getString("artifact_id"), version, columns));
        }
      }
    }
    return events;
  }

  /**
   * The event time in microseconds; null for one no lake timestamp can hold (such a row is a dead
   * letter; if it is not, the comparison names the difference).
   */
  private static Long eventMicros(ResultSet rs) throws SQLException {
    try {
      return GoldFold.micros(instant(rs));
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private static Object instant(ResultSet rs) throws SQLException {
    OffsetDateTime t = rs.getObject("event_time", OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private static List<Map<String, Object>> upTo(List<Map<String, Object>> rows, long frontier) {
    List<Map<String, Object>> kept = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      if (((Long) row.get("seq")) <= frontier) {
        kept.add(row);
      }
    }
    return kept;
  }

  private static void place(Map<String, Object> row, String prefix, String table,
      Map<Long, String> tenantOf, Map<Long, String> seen, List<Finding> findings) {
    long seq = (Long) row.get("seq");
    String expected = tenantOf.get(seq);
    String where = prefix + "/" + table;
    if (expected == null) {
      findings.add(new Finding("UNKNOWN_ROW", where, "seq=" + seq,
          "no committed outbox row at or below the frontier has this seq"));
    } else if (!expected.equals(prefix)) {
      findings.add(new Finding("WRONG_PREFIX", where, "seq=" + seq,
          "the row belongs to " + expected));
    }
    String previous = seen.put(seq, where);
    if (previous != null) {
      findings.add(new Finding("DUPLICATE_ROW", where, "seq=" + seq, "also in " + previous));
    }
  }
}
