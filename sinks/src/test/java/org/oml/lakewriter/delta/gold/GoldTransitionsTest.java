package org.oml.lakewriter.delta.gold;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.EventKind;

/** The gold rules of issue 15, one event at a time. */
class GoldTransitionsTest {
  private static final LakeSchemas.TableSchema LINEAGE = LakeSchemas.GOLD_LINEAGE;

  private static GoldEvent event(long seq, EventKind kind, String workarea, String path) {
    return new GoldEvent(
        seq, kind, "acme", "art", 1L, workarea, path, "writer-" + seq, "principal", "reviewer",
        "human", "p" + seq, "c" + seq, "key-" + seq, 1_000L * seq);
  }

  private static Object col(TableRow row, String column) {
    return row.value(LINEAGE.indexOf(column));
  }

  @Test
  void aJournalEventCreatesTheRowOnceAndLaterOnesChangeNothing() {
    TableRow row = GoldTransitions.lineage(null, event(3, EventKind.JOURNAL, "wa-1", "/a"));
    assertThat(row.seq()).isEqualTo(3);
    assertThat(col(row, "submitted_seq")).isEqualTo(3L);
    assertThat(col(row, "submitted_time")).isEqualTo(3_000L);
    assertThat(col(row, "state")).isNull();
    assertThat(col(row, "promoted_seq")).isNull();
    assertThat(col(row, "tenant_id")).isEqualTo("acme");
    assertThat(col(row, "plaintext_digest")).isEqualTo("p3");
    assertThat(col(row, "writer_identity")).isNull();
    assertThat(col(row, "paths")).isEqualTo("[\"/a\"]");
    assertThat(col(row, "retractions")).isEqualTo("[]");
    assertThat(GoldTransitions.lineage(row, event(4, EventKind.JOURNAL, "wa-2", "/b"))).isSameAs(row);
    assertThat(col(GoldTransitions.lineage(null, event(3, EventKind.JOURNAL, "wa-1", null)), "paths"))
        .isEqualTo("[]");
  }

  @Test
  void aPromotionFillsTheRowOnceAndARepromotionChangesNothing() {
    TableRow journaled = GoldTransitions.lineage(null, event(3, EventKind.JOURNAL, "wa-1", "/a"));
    TableRow promoted =
        GoldTransitions.lineage(journaled, event(5, EventKind.MATERIALIZE, "wa-2", "/b"));
    assertThat(promoted.seq()).isEqualTo(5);
    assertThat(col(promoted, "state")).isEqualTo("active");
    assertThat(col(promoted, "submitted_seq")).isEqualTo(3L);
    assertThat(col(promoted, "promoted_seq")).isEqualTo(5L);
    assertThat(col(promoted, "promoted_time")).isEqualTo(5_000L);
    assertThat(col(promoted, "workarea_id")).isEqualTo("wa-2");
    assertThat(col(promoted, "ratified_by")).isEqualTo("reviewer");
    assertThat(col(promoted, "ciphertext_digest")).isEqualTo("c5");
    assertThat(col(promoted, "data_key_id")).isEqualTo("key-5");
    assertThat(col(promoted, "paths")).isEqualTo("[\"/a\",\"/b\"]");
    assertThat(GoldTransitions.lineage(promoted, event(6, EventKind.MATERIALIZE, "wa-3", "/c")))
        .isSameAs(promoted);
    TableRow direct = GoldTransitions.lineage(null, event(7, EventKind.MATERIALIZE, "wa-1", "/a"));
    assertThat(col(direct, "submitted_seq")).isNull();
    assertThat(col(direct, "paths")).isEqualTo("[\"/a\"]");
  }

  @Test
  void retractionsAreListedInOrderAndMoveTheStateAsSilverDoes() {
    TableRow row = GoldTransitions.lineage(null, event(2, EventKind.MATERIALIZE, "wa-1", "/a"));
    row = GoldTransitions.lineage(row, event(4, EventKind.DEMOTE, "wa-1", null));
    assertThat(col(row, "state")).isEqualTo("demoted");
    row = GoldTransitions.lineage(row, event(5, EventKind.REASSIGN, "wa-2", "/a"));
    assertThat(col(row, "state")).isEqualTo("demoted");
    assertThat(col(row, "workarea_id")).isEqualTo("wa-2");
    assertThat(col(row, "paths")).isEqualTo("[\"/a\"]");
    row = GoldTransitions.lineage(row, event(6, EventKind.SIMULATION_END, "wa-2", null));
    assertThat(col(row, "state")).isEqualTo("simulation_ended");
    row = GoldTransitions.lineage(row, event(7, EventKind.ERASE, "wa-2", null));
    assertThat(col(row, "state")).isEqualTo("erased");
    row = GoldTransitions.lineage(row, event(8, EventKind.REASSIGN, "wa-3", "/z"));
    row = GoldTransitions.lineage(row, event(9, EventKind.DEMOTE, "wa-3", null));
    assertThat(col(row, "state")).as("erased is terminal").isEqualTo("erased");
    assertThat(col(row, "workarea_id")).as("an erased row is not reassigned").isEqualTo("wa-2");
    assertThat(row.seq()).as("but every retraction is recorded").isEqualTo(9);
    assertThat(col(row, "retractions"))
        .isEqualTo(
            "[{\"seq\":4,\"kind\":\"demote\",\"time\":4000},"
                + "{\"seq\":5,\"kind\":\"reassign\",\"time\":5000},"
                + "{\"seq\":6,\"kind\":\"simulation_end\",\"time\":6000},"
                + "{\"seq\":7,\"kind\":\"erase\",\"time\":7000},"
                + "{\"seq\":8,\"kind\":\"reassign\",\"time\":8000},"
                + "{\"seq\":9,\"kind\":\"demote\",\"time\":9000}]");
  }

  @Test
  void aRetractionOfAnUnpromotedRowKeepsItsNullStateAndOneWithoutARowDoesNothing() {
    assertThat(GoldTransitions.lineage(null, event(4, EventKind.DEMOTE, "wa-1", null))).isNull();
    TableRow journaled = GoldTransitions.lineage(null, event(3, EventKind.JOURNAL, "wa-1", null));
    TableRow demoted = GoldTransitions.lineage(journaled, event(4, EventKind.DEMOTE, "wa-1", null));
    assertThat(col(demoted, "state")).isNull();
    TableRow moved = GoldTransitions.lineage(demoted, event(5, EventKind.REASSIGN, "wa-4", "/m"));
    assertThat(col(moved, "workarea_id")).isEqualTo("wa-4");
    assertThat(col(moved, "paths")).isEqualTo("[\"/m\"]");
    assertThat(GoldTransitions.lineage(moved, event(6, EventKind.WORKAREA_VALIDATED, "wa-4", "/w")))
        .isSameAs(moved);
  }

  @Test
  void workareasAndMemories() {
    TableRow validated =
        GoldTransitions.workarea(null, event(3, EventKind.WORKAREA_VALIDATED, "wa-1", "/wa"));
    LakeSchemas.TableSchema w = LakeSchemas.GOLD_WORKAREAS;
    assertThat(validated.value(w.indexOf("state"))).isEqualTo("validated");
    assertThat(validated.value(w.indexOf("path"))).isEqualTo("/wa");
    assertThat(validated.value(w.indexOf("validated_by"))).isEqualTo("writer-3");
    assertThat(validated.value(w.indexOf("invalidated_seq"))).isNull();
    TableRow invalidated =
        GoldTransitions.workarea(validated, event(8, EventKind.WORKAREA_INVALIDATED, "wa-1", null));
    assertThat(invalidated.seq()).isEqualTo(8);
    assertThat(invalidated.value(w.indexOf("state"))).isEqualTo("invalidated");
    assertThat(invalidated.value(w.indexOf("path"))).isEqualTo("/wa");
    assertThat(invalidated.value(w.indexOf("validated_seq"))).isEqualTo(3L);
    assertThat(invalidated.value(w.indexOf("invalidated_time"))).isEqualTo(8_000L);

    TableRow active = GoldTransitions.lineage(null, event(5, EventKind.MATERIALIZE, "wa-1", "/a"));
    TableRow memory = GoldTransitions.memory(active, validated);
    LakeSchemas.TableSchema m = LakeSchemas.GOLD_WORKAREA_MEMORIES;
    assertThat(memory.seq()).isEqualTo(5);
    assertThat(memory.value(m.indexOf("validated_seq"))).isEqualTo(3L);
    assertThat(memory.value(m.indexOf("workarea_id"))).isEqualTo("wa-1");
    assertThat(memory.value(m.indexOf("writer_identity"))).isEqualTo("writer-5");
    assertThat(GoldTransitions.memory(active, invalidated)).isNull();
    assertThat(
            GoldTransitions.memory(
                GoldTransitions.lineage(active, event(9, EventKind.DEMOTE, "wa-1", null)),
                validated))
        .isNull();
    TableRow revalidated =
        GoldTransitions.workarea(invalidated, event(12, EventKind.WORKAREA_VALIDATED, "wa-1", "/x"));
    assertThat(GoldTransitions.memory(active, revalidated).seq()).isEqualTo(12);
  }
}
