package org.oml.lakewriter.delta.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

class BatchPlannerTest {
  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
  private final BatchPlanner planner = new BatchPlanner(Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void groupsPerTableInPathAndSeqOrder() {
    Batch batch =
        new Batch(
            0,
            6,
            List.of(
                Events.journal(1, "zeta"),
                Events.materialize(2, "acme", "b2"),
                Events.retraction(3, "acme", EventKind.ERASE),
                Events.journal(4, "acme").toBuilder().tenantId("Bad Tenant").build(),
                Events.materialize(5, "acme", "b5")));
    SortedMap<TableId, TableWrite> plan = planner.plan(batch);
    assertThat(plan.keySet())
        .extracting(TableId::relativePath)
        .containsExactly(
            "_invalid/dead_letter",
            "acme/bronze/journal_events",
            "acme/gold/lineage",
            "acme/gold/workarea_memories",
            "acme/silver/memories",
            "zeta/bronze/journal_events",
            "zeta/gold/lineage");
    assertThat(seqs(plan, TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS)))
        .containsExactly(2L, 3L, 5L);
    assertThat(seqs(plan, TableId.of("acme", TableKind.SILVER_MEMORIES))).containsExactly(2L, 5L);
    // Gold tables carry the bronze rows that feed them.
    assertThat(seqs(plan, TableId.of("acme", TableKind.GOLD_LINEAGE))).containsExactly(2L, 3L, 5L);
    assertThat(seqs(plan, TableId.of("zeta", TableKind.GOLD_LINEAGE))).containsExactly(1L);
    assertThat(seqs(plan, TableId.invalidTenantDeadLetter())).containsExactly(4L);
  }

  @Test
  void retractionsGoToBronzeAndMergeIntoTheirTenantsSilverInSeqOrder() {
    Batch batch =
        new Batch(
            0,
            6,
            List.of(
                Events.retract(1, "acme", EventKind.ERASE, "x", 1),
                Events.promote(2, "acme", "y", 1, "b2"),
                Events.retract(3, "acme", EventKind.REASSIGN, "y", 1),
                Events.retract(4, "zeta", EventKind.DEMOTE, "z", 1),
                Events.journal(5, "acme")));
    SortedMap<TableId, TableWrite> plan = planner.plan(batch);
    TableWrite acme = plan.get(TableId.of("acme", TableKind.SILVER_MEMORIES));
    assertThat(acme.appends()).extracting(TableRow::seq).containsExactly(2L);
    assertThat(acme.retractions()).extracting(r -> r.seq()).containsExactly(1L, 3L);
    assertThat(acme.retractions().get(1).workareaId()).isEqualTo("wa-9");
    TableWrite zeta = plan.get(TableId.of("zeta", TableKind.SILVER_MEMORIES));
    assertThat(zeta.appends()).isEmpty();
    assertThat(zeta.retractions()).extracting(r -> r.kind()).containsExactly(EventKind.DEMOTE);
    assertThat(seqs(plan, TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS)))
        .containsExactly(1L, 2L, 3L, 5L);
    // Above a txn version, retractions are filtered like rows.
    assertThat(acme.above(2).retractions()).extracting(r -> r.seq()).containsExactly(3L);
    assertThat(acme.above(2).appends()).isEmpty();
  }

  @Test
  void silverCarriesTheBodyAndStateActive() {
    OutboxEvent event = Events.materialize(2, "acme", "cipher");
    TableRow row = only(planner.plan(new Batch(0, 2, List.of(event))), TableKind.SILVER_MEMORIES);
    assertThat(row.value(LakeSchemas.SILVER_MEMORIES.indexOf("body"))).isEqualTo(event.body());
    assertThat(row.value(LakeSchemas.SILVER_MEMORIES.indexOf("state"))).isEqualTo("active");
    assertThat(row.value(LakeSchemas.SILVER_MEMORIES.indexOf("ciphertext_digest")))
        .isEqualTo(event.ciphertextDigest());
  }

  @Test
  void deadLetterCarriesTheBodyDigestNotTheBody() {
    byte[] tampered = "tampered".getBytes(StandardCharsets.UTF_8);
    OutboxEvent event = Events.materialize(2, "acme", "real").toBuilder().body(tampered).build();
    TableRow row = only(planner.plan(new Batch(0, 2, List.of(event))), TableKind.DEAD_LETTER);
    var schema = LakeSchemas.DEAD_LETTER;
    assertThat(row.value(schema.indexOf("body_sha256"))).isEqualTo(EventValidator.sha256Hex(tampered));
    assertThat(row.value(schema.indexOf("error_class"))).isEqualTo("DIGEST_MISMATCH");
    assertThat(row.value(schema.indexOf("attempts"))).isEqualTo(1);
    assertThat(row.value(schema.indexOf("first_failure_time")))
        .isEqualTo(NOW.getEpochSecond() * 1_000_000L);
    for (int i = 0; i < row.size(); i++) {
      assertThat(row.value(i) instanceof byte[]).as(schema.names().get(i)).isFalse();
    }
  }

  @Test
  void deadLetterCarriesTheRetriesOfATransientFailure() {
    RowError exhausted =
        new RowError(ErrorClass.UNKNOWN_DATA_KEY, "dk-7 unknown", 4, 1_000_000L, 4_500_000L);
    OutboxEvent event = Events.materialize(3, "acme", "real").withError(exhausted);
    TableRow row = only(planner.plan(new Batch(0, 3, List.of(event))), TableKind.DEAD_LETTER);
    var schema = LakeSchemas.DEAD_LETTER;
    assertThat(row.value(schema.indexOf("error_class"))).isEqualTo("UNKNOWN_DATA_KEY");
    assertThat(row.value(schema.indexOf("attempts"))).isEqualTo(4);
    assertThat(row.value(schema.indexOf("first_failure_time"))).isEqualTo(1_000_000L);
    assertThat(row.value(schema.indexOf("last_failure_time"))).isEqualTo(4_500_000L);
  }

  @Test
  void noBronzeOrDeadLetterSchemaHasABodyColumn() {
    assertThat(LakeSchemas.BRONZE_JOURNAL_EVENTS.names()).doesNotContain("body");
    assertThat(LakeSchemas.DEAD_LETTER.names()).doesNotContain("body");
    assertThat(LakeSchemas.SILVER_MEMORIES.names().subList(0, 4))
        .containsExactly("artifact_id", "version", "state", "seq");
  }

  private static List<Long> seqs(SortedMap<TableId, TableWrite> plan, TableId table) {
    return plan.get(table).appends().stream().map(TableRow::seq).toList();
  }

  private static TableRow only(SortedMap<TableId, TableWrite> plan, TableKind kind) {
    return plan.get(TableId.of("acme", kind)).appends().get(0);
  }
}
