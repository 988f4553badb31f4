package org.oml.lakewriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;

/** Issue 15: each gold rule (docs/gold.md), one event stream at a time. */
class GoldFoldTest {
  private static final String T = "acme";
  private static final Set<TableKind> LINEAGE = Set.of(TableKind.GOLD_LINEAGE);
  private static final Set<TableKind> LINEAGE_AND_MEMORY =
      Set.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES);

  private final GoldFold fold = new GoldFold();

  @Test
  void journalCreatesTheRowOnceAndLaterJournalsChangeNothing() {
    assertThat(fold.apply(journal(1, "a", "wa-1", "/p1"))).isEqualTo(LINEAGE);
    assertThat(fold.apply(journal(2, "a", "wa-2", "/p2"))).isEmpty();
    Map<String, Object> row = lineage("a");
    assertThat(row).containsEntry("seq", 1L).containsEntry("workarea_id", "wa-1")
        .containsEntry("tenant_id", T).containsEntry("state", null)
        .containsEntry("submitted_seq", 1L).containsEntry("submitted_time", 1_000L)
        .containsEntry("plaintext_digest", "pd-1").containsEntry("ciphertext_digest", null)
        .containsEntry("promoted_seq", null).containsEntry("writer_identity", null)
        .containsEntry("paths", "[\"/p1\"]").containsEntry("retractions", "[]");
    // A journal event without a key, and one without a path, are handled.
    assertThat(fold.apply(event(3, "journal", null, null, null))).isEmpty();
    fold.apply(journal(4, "b", "wa-1", null));
    assertThat(lineage("b")).containsEntry("paths", "[]");
  }

  @Test
  void materializePromotesAJournaledKeyAndAKeyWithoutJournal() {
    fold.apply(journal(1, "a", "wa-1", "/p1"));
    fold.apply(materialize(2, "a", "wa-1", "/p1b"));
    assertThat(lineage("a")).containsEntry("seq", 2L).containsEntry("state", "active")
        .containsEntry("submitted_seq", 1L).containsEntry("promoted_seq", 2L)
        .containsEntry("promoted_time", 2_000L).containsEntry("writer_identity", "alice")
        .containsEntry("principal", "alice@acme").containsEntry("ratified_by", "bob")
        .containsEntry("provenance_class", "human").containsEntry("plaintext_digest", "pd-2")
        .containsEntry("ciphertext_digest", "cd-2").containsEntry("data_key_id", "dek-2")
        .containsEntry("paths", "[\"/p1\",\"/p1b\"]");
    fold.apply(materialize(3, "c", "wa-9", "/c"));
    assertThat(lineage("c")).containsEntry("submitted_seq", null)
        .containsEntry("submitted_time", null).containsEntry("promoted_seq", 3L)
        .containsEntry("workarea_id", "wa-9").containsEntry("paths", "[\"/c\"]");
  }

  @Test
  void aRePromotionAndAJournalAfterPromotionChangeNothing() {
    fold.apply(materialize(1, "a", "wa-1", "/p"));
    List<TableRow> before = fold.lineageRows();
    assertThat(fold.apply(materialize(2, "a", "wa-2", "/q"))).isEmpty();
    assertThat(fold.apply(journal(3, "a", "wa-3", "/r"))).isEmpty();
    assertThat(fold.lineageRows()).isEqualTo(before);
  }

  @Test
  void everyRetractionKindIsAppendedAndMovesTheStateAsSilver() {
    fold.apply(materialize(1, "a", "wa-1", "/p"));
    fold.apply(event(2, "demote", "a", "wa-1", null));
    assertThat(lineage("a")).containsEntry("state", "demoted").containsEntry("seq", 2L);
    fold.apply(event(3, "demote", "a", "wa-1", null)); // same state: still appended
    fold.apply(event(4, "simulation_end", "a", "wa-1", null));
    assertThat(lineage("a")).containsEntry("state", "simulation_ended").containsEntry("seq", 4L);
    fold.apply(event(5, "reassign", "a", "wa-2", "/moved"));
    assertThat(lineage("a")).containsEntry("state", "simulation_ended")
        .containsEntry("workarea_id", "wa-2").containsEntry("paths", "[\"/p\",\"/moved\"]");
    fold.apply(event(6, "erase", "a", "wa-1", null));
    assertThat(lineage("a")).containsEntry("state", "erased").containsEntry("seq", 6L)
        .containsEntry("retractions",
            "[{\"seq\":2,\"kind\":\"demote\",\"time\":2000},"
                + "{\"seq\":3,\"kind\":\"demote\",\"time\":3000},"
                + "{\"seq\":4,\"kind\":\"simulation_end\",\"time\":4000},"
                + "{\"seq\":5,\"kind\":\"reassign\",\"time\":5000},"
                + "{\"seq\":6,\"kind\":\"erase\",\"time\":6000}]");
  }

  @Test
  void erasedIsTerminalButEveryLaterRetractionIsStillRecorded() {
    fold.apply(materialize(1, "a", "wa-1", "/p"));
    fold.apply(event(2, "erase", "a", null, null));
    assertThat(fold.apply(event(3, "demote", "a", null, null))).isEqualTo(LINEAGE);
    fold.apply(event(4, "reassign", "a", "wa-2", "/q"));
    fold.apply(timeless(5, "simulation_end", "a"));
    assertThat(lineage("a")).containsEntry("state", "erased").containsEntry("seq", 5L)
        .containsEntry("workarea_id", "wa-1").containsEntry("paths", "[\"/p\"]");
    assertThat((String) lineage("a").get("retractions"))
        .endsWith("{\"seq\":4,\"kind\":\"reassign\",\"time\":4000},"
            + "{\"seq\":5,\"kind\":\"simulation_end\",\"time\":null}]");
  }

  @Test
  void retractionsOfAnUnpromotedRowAreRecordedAndAReassignMovesIt() {
    fold.apply(journal(1, "a", "wa-1", "/p"));
    fold.apply(event(2, "demote", "a", null, null));
    fold.apply(event(3, "reassign", "a", "wa-2", "/q"));
    assertThat(lineage("a")).containsEntry("state", null).containsEntry("seq", 3L)
        .containsEntry("workarea_id", "wa-2").containsEntry("paths", "[\"/p\",\"/q\"]");
    fold.apply(materialize(4, "a", "wa-2", "/q"));
    assertThat(lineage("a")).containsEntry("state", "active"); // a later promotion still counts
  }

  @Test
  void aRetractionWithoutARowChangesNothing() {
    for (String kind : List.of("demote", "erase", "simulation_end", "reassign")) {
      assertThat(fold.apply(event(seq++, kind, "ghost", "wa-1", "/g"))).isEmpty();
    }
    assertThat(fold.lineageRows()).isEmpty();
    assertThat(fold.membershipRows()).isEmpty();
  }

  @Test
  void pathsAreDistinctInOrderOfFirstAppearance() {
    fold.apply(journal(1, "a", "wa-1", "/x"));
    fold.apply(materialize(2, "a", "wa-1", "/x"));
    fold.apply(event(3, "reassign", "a", "wa-2", "/y"));
    fold.apply(event(4, "reassign", "a", "wa-1", "/x"));
    fold.apply(event(5, "reassign", "a", "wa-3", null));
    assertThat(lineage("a")).containsEntry("paths", "[\"/x\",\"/y\"]")
        .containsEntry("workarea_id", "wa-3");
  }

  @Test
  void workareaValidationRevocationAndRevalidation() {
    assertThat(fold.apply(invalidated(1, "wa-1", "rev"))).isEqualTo(Set.of(TableKind.GOLD_WORKAREAS));
    assertThat(workarea("wa-1")).containsEntry("state", "invalidated").containsEntry("path", null)
        .containsEntry("invalidated_by", "rev").containsEntry("invalidated_seq", 1L)
        .containsEntry("validated_seq", null).containsEntry("tenant_id", T);
    fold.apply(validated(2, "wa-1", "val", "/teams/a"));
    assertThat(workarea("wa-1")).containsEntry("state", "validated").containsEntry("seq", 2L)
        .containsEntry("path", "/teams/a").containsEntry("validated_by", "val")
        .containsEntry("validated_seq", 2L).containsEntry("validated_time", 2_000L)
        .containsEntry("invalidated_seq", 1L); // kept
    fold.apply(invalidated(3, "wa-1", "rev2"));
    assertThat(workarea("wa-1")).containsEntry("state", "invalidated").containsEntry("seq", 3L)
        .containsEntry("path", "/teams/a").containsEntry("validated_seq", 2L)
        .containsEntry("invalidated_by", "rev2");
    // Every validation event changes its row, even a repeat.
    assertThat(fold.apply(invalidated(4, "wa-1", "rev2"))).isEqualTo(Set.of(TableKind.GOLD_WORKAREAS));
    fold.apply(validated(5, "wa-1", "val2", "/teams/b"));
    assertThat(workarea("wa-1")).containsEntry("validated_seq", 5L).containsEntry("path", "/teams/b")
        .containsEntry("invalidated_seq", 4L);
  }

  @Test
  void aValidationBringsInTheActiveMemoriesOfItsWorkareaAndARevocationTakesThemOut() {
    fold.apply(materialize(1, "a", "wa-1", "/a"));
    fold.apply(materialize(2, "b", "wa-1", "/b"));
    fold.apply(materialize(3, "c", "wa-2", "/c"));
    fold.apply(event(4, "demote", "b", null, null));
    assertThat(fold.membershipRows()).isEmpty();
    assertThat(fold.apply(validated(5, "wa-1", "val", "/wa1")))
        .containsExactlyInAnyOrder(TableKind.GOLD_WORKAREAS, TableKind.GOLD_WORKAREA_MEMORIES);
    assertThat(memoryKeys()).containsExactly("a@1");
    Map<String, Object> m = memory("a");
    assertThat(m).containsEntry("workarea_id", "wa-1").containsEntry("seq", 5L)
        .containsEntry("validated_seq", 5L).containsEntry("promoted_seq", 1L)
        .containsEntry("writer_identity", "alice").containsEntry("tenant_id", T)
        .containsEntry("data_key_id", "dek-1");
    assertThat(fold.apply(invalidated(6, "wa-1", "rev")))
        .containsExactlyInAnyOrder(TableKind.GOLD_WORKAREAS, TableKind.GOLD_WORKAREA_MEMORIES);
    assertThat(fold.membershipRows()).isEmpty();
    // A workarea without memories: only its own row changes.
    assertThat(fold.apply(validated(7, "wa-empty", "val", "/e")))
        .isEqualTo(Set.of(TableKind.GOLD_WORKAREAS));
    // Re-validation brings a's memory back, with the new validation's seq.
    fold.apply(validated(8, "wa-1", "val", "/wa1"));
    assertThat(memory("a")).containsEntry("seq", 8L).containsEntry("validated_seq", 8L);
    // A memory whose lineage changed after the validation carries the lineage's seq.
    fold.apply(materialize(9, "d", "wa-1", "/d"));
    assertThat(memory("d")).containsEntry("seq", 9L).containsEntry("validated_seq", 8L);
  }

  @Test
  void retractionsTakeMemoriesOutAndAReassignMovesThemBetweenWorkareas() {
    fold.apply(validated(1, "wa-v", "val", "/v"));
    fold.apply(validated(2, "wa-w", "val", "/w"));
    fold.apply(invalidated(3, "wa-x", "rev"));
    fold.apply(materialize(4, "a", "wa-v", "/a"));
    fold.apply(materialize(5, "b", "wa-v", "/b"));
    fold.apply(materialize(6, "c", "wa-v", "/c"));
    fold.apply(materialize(7, "d", "wa-u", "/d")); // a workarea never validated
    assertThat(memoryKeys()).containsExactly("a@1", "b@1", "c@1");
    assertThat(fold.apply(event(8, "demote", "a", null, null))).isEqualTo(LINEAGE_AND_MEMORY);
    fold.apply(event(9, "erase", "b", null, null));
    fold.apply(event(10, "simulation_end", "c", null, null));
    assertThat(fold.membershipRows()).isEmpty();
    fold.apply(materialize(11, "e", "wa-v", "/e"));
    // validated -> validated: the memory moves with the lineage's new seq.
    assertThat(fold.apply(event(12, "reassign", "e", "wa-w", "/e2"))).isEqualTo(LINEAGE_AND_MEMORY);
    assertThat(memory("e")).containsEntry("workarea_id", "wa-w").containsEntry("seq", 12L)
        .containsEntry("validated_seq", 2L);
    // validated -> invalidated: it leaves; invalidated -> unknown: nothing for memories.
    assertThat(fold.apply(event(13, "reassign", "e", "wa-x", null))).isEqualTo(LINEAGE_AND_MEMORY);
    assertThat(fold.membershipRows()).isEmpty();
    assertThat(fold.apply(event(14, "reassign", "e", "wa-u", null))).isEqualTo(LINEAGE);
    // unvalidated -> validated: it comes in.
    assertThat(fold.apply(event(15, "reassign", "d", "wa-v", null))).isEqualTo(LINEAGE_AND_MEMORY);
    assertThat(memoryKeys()).containsExactly("d@1");
    // Validating the workarea the other memory moved to brings it in too.
    fold.apply(validated(16, "wa-u", "val", "/u"));
    assertThat(memoryKeys()).containsExactly("d@1", "e@1");
    assertThat(memory("d")).containsEntry("seq", 15L).containsEntry("validated_seq", 1L);
    assertThat(memory("e")).containsEntry("seq", 16L);
  }

  @Test
  void aSeqOutOfOrderIsRefused() {
    fold.apply(journal(5, "a", "wa-1", null));
    assertThatThrownBy(() -> fold.apply(journal(5, "b", "wa-1", null)))
        .hasMessageContaining("seq 5 is not after the last applied seq 5");
  }

  @Test
  void rowsHaveExactlyTheSchemasColumns() {
    fold.apply(validated(1, "wa-1", "val", "/v"));
    fold.apply(journal(2, "a", "wa-1", "/a"));
    fold.apply(materialize(3, "a", "wa-1", "/a"));
    for (TableKind kind : GoldFold.goldKinds()) {
      assertThat(fold.rows(kind)).hasSize(1).allSatisfy(r ->
          assertThat(r.size()).isEqualTo(LakeSchemas.of(kind).columns().size()));
    }
    Map<String, Object> read = GoldFold.asReadRow(LakeSchemas.GOLD_WORKAREAS, fold.workareaRows().get(0));
    assertThat(read.keySet()).containsExactlyElementsOf(LakeSchemas.GOLD_WORKAREAS.names());
    assertThat(read.get("validated_time")).isEqualTo(java.time.Instant.ofEpochMilli(1));
    assertThat(GoldFold.micros(java.time.Instant.ofEpochMilli(1))).isEqualTo(1_000L);
  }

  // ---------------------------------------------------------------------------------------------

  private long seq = 100;

  private Map<String, Object> lineage(String artifact) {
    return fold.lineageRows().stream()
        .map(r -> GoldFold.asReadRow(LakeSchemas.GOLD_LINEAGE, r))
        .filter(m -> m.get("artifact_id").equals(artifact))
        .map(GoldFoldTest::microsBack)
        .findFirst().orElseThrow();
  }

  private Map<String, Object> workarea(String id) {
    return fold.workareaRows().stream()
        .map(r -> GoldFold.asReadRow(LakeSchemas.GOLD_WORKAREAS, r))
        .filter(m -> m.get("workarea_id").equals(id))
        .map(GoldFoldTest::microsBack)
        .findFirst().orElseThrow();
  }

  private Map<String, Object> memory(String artifact) {
    return fold.membershipRows().stream()
        .map(r -> GoldFold.asReadRow(LakeSchemas.GOLD_WORKAREA_MEMORIES, r))
        .filter(m -> m.get("artifact_id").equals(artifact))
        .map(GoldFoldTest::microsBack)
        .findFirst().orElseThrow();
  }

  private List<String> memoryKeys() {
    return fold.membershipRows().stream()
        .map(r -> GoldFold.asReadRow(LakeSchemas.GOLD_WORKAREA_MEMORIES, r))
        .map(m -> m.get("artifact_id") + "@" + m.get("version")).toList();
  }

  /** Timestamps back to microseconds, so tests compare them with longs. */
  private static Map<String, Object> microsBack(Map<String, Object> row) {
    Map<String, Object> m = new java.util.LinkedHashMap<>(row);
    m.replaceAll((k, v) -> v instanceof java.time.Instant ? GoldFold.micros(v) : v);
    return m;
  }

  private static GoldFold.Event journal(long seq, String artifact, String wa, String path) {
    return new GoldFold.Event(seq, "journal", T, artifact, 1L, wa, path, "alice", "alice@acme",
        null, null, "pd-" + seq, null, null, seq * 1_000);
  }

  private static GoldFold.Event materialize(long seq, String artifact, String wa, String path) {
    return new GoldFold.Event(seq, "materialize", T, artifact, 1L, wa, path, "alice",
        "alice@acme", "bob", "human", "pd-" + seq, "cd-" + seq, "dek-" + seq, seq * 1_000);
  }

  private static GoldFold.Event event(long seq, String kind, String artifact, String wa,
      String path) {
    return new GoldFold.Event(seq, kind, T, artifact, artifact == null ? null : 1L, wa, path,
        "carol", null, null, null, null, null, null, seq * 1_000);
  }

  private static GoldFold.Event timeless(long seq, String kind, String artifact) {
    return new GoldFold.Event(seq, kind, T, artifact, 1L, null, null, null, null, null, null,
        null, null, null, null);
  }

  private static GoldFold.Event validated(long seq, String wa, String by, String path) {
    return new GoldFold.Event(seq, "workarea_validated", T, null, null, wa, path, by, null, null,
        null, null, null, null, seq * 1_000);
  }

  private static GoldFold.Event invalidated(long seq, String wa, String by) {
    return new GoldFold.Event(seq, "workarea_invalidated", T, null, null, wa, null, by, null,
        null, null, null, null, null, seq * 1_000);
  }
}
