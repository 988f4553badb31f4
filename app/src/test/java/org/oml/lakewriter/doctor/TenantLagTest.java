package org.oml.lakewriter.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.TableStats;

/** The per-tenant section of {@code status}, from hand-made rows and table stats. */
class TenantLagTest {
  private static final Instant NOW = Instant.parse("2026-12-01T01:00:00Z");

  @Test
  void rowsBehindCountAboveTheFrontierAndTheTablesOwnTxnVersion() {
    Map<TableId, TableStats> lake = new LinkedHashMap<>();
    lake.put(TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS), stats(12, NOW.minusSeconds(30)));
    lake.put(TableId.of("acme", TableKind.SILVER_MEMORIES), stats(5, NOW.minusSeconds(90)));
    lake.put(TableId.of("quiet", TableKind.BRONZE_JOURNAL_EVENTS), stats(2, NOW.minusSeconds(900)));
    TenantLag.RowsAbove above =
        new TenantLag.RowsAbove(
            List.of(
                new TenantLag.Row(11, "acme", "journal"),
                new TenantLag.Row(12, "acme", "materialize"),
                new TenantLag.Row(13, "acme", "journal"),
                new TenantLag.Row(14, "globex", "journal"),
                new TenantLag.Row(15, "Bad Tenant!", "journal")),
            false);
    List<Map<String, Object>> report =
        TenantLag.report(10, above, lake, Map.of("acme", 2L, "_invalid", 1L), NOW);

    assertThat(report).extracting(t -> t.get("tenant"))
        .containsExactly("_invalid", "acme", "globex", "quiet");
    Map<String, Object> acme = report.get(1);
    assertThat(acme.get("rows_behind")).isEqualTo(3);
    assertThat(acme.get("dead_letters_waiting")).isEqualTo(2L);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tables = (List<Map<String, Object>>) acme.get("tables");
    // bronze has txn 12: only 13 is behind; silver (txn 5 < frontier 10) is asked from 10 on and
    // takes no journal rows: only 12.
    assertThat(tables.get(0)).containsEntry("table", "bronze/journal_events")
        .containsEntry("txn_version", 12L).containsEntry("rows_behind", 1L)
        .containsEntry("since_last_commit_s", 30L).containsEntry("rows_behind_bound", "exact");
    assertThat(tables.get(1)).containsEntry("table", "silver/memories")
        .containsEntry("rows_behind", 1L).containsEntry("last_commit_at", "2026-12-01T00:58:30Z");
    Map<String, Object> quiet = report.get(3);
    assertThat(quiet.get("rows_behind")).isEqualTo(0);
    assertThat(report.get(0).get("rows_behind")).isEqualTo(1);
    assertThat(report.get(2).get("tables")).isEqualTo(List.of());
  }

  @Test
  void aGoldTableCountsEveryKindAboveItsVersionAsAnUpperBound() {
    Map<TableId, TableStats> lake = new LinkedHashMap<>();
    lake.put(TableId.of("acme", TableKind.GOLD_LINEAGE), stats(11, NOW));
    TenantLag.RowsAbove above =
        new TenantLag.RowsAbove(
            List.of(
                new TenantLag.Row(11, "acme", "journal"),
                new TenantLag.Row(12, "acme", "journal"),
                new TenantLag.Row(13, "acme", "workarea_validated")),
            false);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tables =
        (List<Map<String, Object>>) TenantLag.report(10, above, lake, Map.of(), NOW).get(0)
            .get("tables");
    assertThat(tables.get(0)).containsEntry("table", "gold/lineage")
        .containsEntry("rows_behind", 2L).containsEntry("rows_behind_bound", "exact");
  }

  @Test
  void aCappedWalkMakesEveryCountALowerBound() {
    Map<TableId, TableStats> lake =
        Map.of(TableId.of("acme", TableKind.DEAD_LETTER), stats(3, NOW));
    List<Map<String, Object>> report =
        TenantLag.report(
            0, new TenantLag.RowsAbove(List.of(new TenantLag.Row(1, "acme", "journal")), true),
            lake, Map.of(), NOW);
    assertThat(report.get(0)).containsEntry("rows_behind_bound", "at_least");
    @SuppressWarnings("unchecked")
    Map<String, Object> dl = ((List<Map<String, Object>>) report.get(0).get("tables")).get(0);
    assertThat(dl.get("rows_behind")).isNull();
  }

  private static TableStats stats(long txn, Instant at) {
    return new TableStats(txn, txn, at, Optional.empty(), 10, 1, 100);
  }
}
