package org.oml.lakewriter.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.TableContents;

/** {@link GoldCheck} on hand-made table contents: what is behind, and what is not. */
class GoldCheckTest {
  private static final List<GoldFold.Event> EVENTS =
      List.of(
          event(1, "materialize", "a", "wa-1", null),
          event(2, "workarea_validated", null, "wa-1", "/w"),
          event(3, "workarea_invalidated", null, "wa-1", null));

  /**
   * A memory that came in and left within one batch: the writer's net change to {@code
   * gold/workarea_memories} is nothing, so it never commits (or creates) that table. Not behind.
   * Found by {@code DemoCommandITCase} with the streaming writer: the first {@code GoldCheck}
   * flagged any change in between.
   */
  @Test
  void aMemoryThatCameAndWentWithinABatchIsNotBehind() {
    GoldFold fold = new GoldFold();
    EVENTS.forEach(fold::apply);
    Map<TableKind, Optional<TableContents>> gold = new EnumMap<>(TableKind.class);
    gold.put(TableKind.GOLD_LINEAGE, table(3, fold.lineageRows(), LakeSchemas.GOLD_LINEAGE));
    gold.put(TableKind.GOLD_WORKAREAS, table(3, fold.workareaRows(), LakeSchemas.GOLD_WORKAREAS));
    gold.put(TableKind.GOLD_WORKAREA_MEMORIES, Optional.empty());
    assertThat(GoldCheck.check("acme", EVENTS, gold, 3)).isEmpty();
  }

  @Test
  void aTableThatMissedANetChangeIsBehindAndComparedAtItsOwnVersion() {
    GoldFold atOne = new GoldFold();
    atOne.apply(EVENTS.get(0));
    Map<TableKind, Optional<TableContents>> gold = new EnumMap<>(TableKind.class);
    // Lineage at its own version 1 is right; workareas lost; memories at 1 (empty) are right.
    gold.put(TableKind.GOLD_LINEAGE, table(1, atOne.lineageRows(), LakeSchemas.GOLD_LINEAGE));
    gold.put(TableKind.GOLD_WORKAREAS, Optional.empty());
    gold.put(TableKind.GOLD_WORKAREA_MEMORIES, table(1, List.of(), LakeSchemas.GOLD_WORKAREAS));
    assertThat(GoldCheck.check("acme", EVENTS.subList(0, 2), gold, 2))
        .extracting(Finding::toString)
        .containsExactlyInAnyOrder(
            "GOLD_BEHIND acme/gold/workareas wa-1: the events after its txn version -1 (the table"
                + " is missing) up to 2 change 1 of its rows",
            "GOLD_BEHIND acme/gold/workarea_memories a@1: the events after its txn version 1 up"
                + " to 2 change 1 of its rows");
  }

  private static Optional<TableContents> table(
      long txn, List<TableRow> rows, LakeSchemas.TableSchema schema) {
    return Optional.of(
        new TableContents(1, txn, 1, rows.stream().map(r -> GoldFold.asReadRow(schema, r)).toList()));
  }

  private static GoldFold.Event event(
      long seq, String kind, String artifact, String workarea, String path) {
    return new GoldFold.Event(seq, kind, "acme", artifact, artifact == null ? null : 1L, workarea,
        path, "alice", "alice@acme", "bob", "human", "pd", "cd", "dek", seq * 1_000);
  }
}
