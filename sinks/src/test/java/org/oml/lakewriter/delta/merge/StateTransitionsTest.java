package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.delta.merge.StateTransitions.ACTIVE;
import static org.oml.lakewriter.delta.merge.StateTransitions.DEMOTED;
import static org.oml.lakewriter.delta.merge.StateTransitions.ERASED;
import static org.oml.lakewriter.delta.merge.StateTransitions.SIMULATION_ENDED;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.EventKind;

class StateTransitionsTest {
  private static final LakeSchemas.TableSchema SILVER = LakeSchemas.SILVER_MEMORIES;
  private static final EventKind[] KINDS = {
    EventKind.DEMOTE, EventKind.ERASE, EventKind.SIMULATION_END, EventKind.REASSIGN
  };

  /** The table of the class Javadoc: state after each retraction, per current state. */
  private static final String[][] TABLE = {
    // current         demote   erase   simulation_end    reassign (keeps the state)
    {ACTIVE, DEMOTED, ERASED, SIMULATION_ENDED, ACTIVE},
    {DEMOTED, DEMOTED, ERASED, SIMULATION_ENDED, DEMOTED},
    {SIMULATION_ENDED, DEMOTED, ERASED, SIMULATION_ENDED, SIMULATION_ENDED},
    {ERASED, ERASED, ERASED, ERASED, ERASED},
  };

  @Test
  void everyStateUnderEveryRetraction() {
    for (String[] line : TABLE) {
      for (int k = 0; k < KINDS.length; k++) {
        TableRow before = row(line[0], 5);
        TableRow after = StateTransitions.apply(before, retraction(KINDS[k], 9));
        String expected = line[k + 1];
        boolean changes =
            !line[0].equals(ERASED)
                && (KINDS[k] == EventKind.REASSIGN || !expected.equals(line[0]));
        String what = line[0] + " + " + KINDS[k];
        assertThat(value(after, "state")).as(what).isEqualTo(expected);
        assertThat(after.seq()).as(what).isEqualTo(changes ? 9 : 5);
        assertThat(value(after, "seq")).as(what).isEqualTo(changes ? 9L : 5L);
        assertThat(after == before).as(what + " unchanged instance").isEqualTo(!changes);
        boolean moved = changes && KINDS[k] == EventKind.REASSIGN;
        assertThat(value(after, "workarea_id")).as(what).isEqualTo(moved ? "wa-9" : "wa-1");
        // Everything else is copied (the path at write is history), except the body of an erase.
        assertThat(value(after, "path_at_write")).as(what).isEqualTo("/notes/a");
        boolean cleared = changes && KINDS[k] == EventKind.ERASE;
        assertThat(value(after, "body")).as(what).isEqualTo(cleared ? null : new byte[] {1, 2, 3});
        assertThat(value(after, "ciphertext_digest")).as(what).isEqualTo("c");
      }
    }
  }

  @Test
  void eraseClearsTheBodyAndKeepsTheDigestsAndTheDataKeyId() {
    TableRow before =
        row(ACTIVE, 5).toBuilder(SILVER, 5).set("data_key_id", "dek-1").build();
    TableRow after = StateTransitions.apply(before, retraction(EventKind.ERASE, 9));
    assertThat(value(after, "state")).isEqualTo(ERASED);
    assertThat(value(after, "body")).as("the ciphertext leaves the new file version").isNull();
    assertThat(value(after, "ciphertext_digest")).isEqualTo("c");
    assertThat(value(after, "data_key_id")).isEqualTo("dek-1");
    // Terminal: nothing brings a body back, and nothing rewrites the erased row again.
    for (EventKind kind : KINDS) {
      assertThat(StateTransitions.apply(after, retraction(kind, 12))).isSameAs(after);
    }
  }

  @Test
  void reassignToTheSameWorkareaChangesNothing() {
    TableRow before = row(ACTIVE, 5);
    Retraction sameWorkarea =
        new Retraction(9, new ArtifactKey("a", 1), EventKind.REASSIGN, "wa-1");
    assertThat(StateTransitions.apply(before, sameWorkarea)).isSameAs(before);
  }

  @Test
  void aStateThisWriterNeverWritesIsOverwritten() {
    TableRow odd = row("quarantined", 5);
    assertThat(value(StateTransitions.apply(odd, retraction(EventKind.DEMOTE, 9)), "state"))
        .isEqualTo(DEMOTED);
  }

  @Test
  void aRetractionIsNeverAppliedBeforeItsRow() {
    assertThatThrownBy(() -> StateTransitions.apply(row(ACTIVE, 9), retraction(EventKind.ERASE, 9)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not after the row it retracts");
  }

  private static Retraction retraction(EventKind kind, long seq) {
    return new Retraction(seq, new ArtifactKey("a", 1), kind, "wa-9");
  }

  static TableRow row(String state, long seq) {
    return TableRow.builder(SILVER, seq)
        .set("artifact_id", "a")
        .set("version", 1L)
        .set("state", state)
        .set("workarea_id", "wa-1")
        .set("path_at_write", "/notes/a")
        .set("ciphertext_digest", "c")
        .set("body", new byte[] {1, 2, 3})
        .build();
  }

  static Object value(TableRow row, String column) {
    return row.value(SILVER.indexOf(column));
  }
}
