package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.EventKind;

class BatchFoldTest {
  @Test
  void promotionFollowedByRetractionsLandsOnceInItsFinalState() {
    BatchFold.Folded folded =
        BatchFold.fold(
            List.of(promoted("a", 2), promoted("b", 3)),
            List.of(
                retraction(4, "a", EventKind.DEMOTE),
                retraction(5, "a", EventKind.ERASE),
                retraction(6, "a", EventKind.REASSIGN)));
    assertThat(folded.onEarlierRows()).isEmpty();
    assertThat(folded.appends()).hasSize(2);
    TableRow a = folded.appends().get(0);
    assertThat(StateTransitionsTest.value(a, "state")).isEqualTo(StateTransitions.ERASED);
    assertThat(a.seq()).isEqualTo(5); // erased is terminal: the reassign at 6 changes nothing
    assertThat(StateTransitionsTest.value(folded.appends().get(1), "state"))
        .isEqualTo(StateTransitions.ACTIVE);
  }

  @Test
  void retractionsBeforeAnyPromotionInTheBatchGoToEarlierRowsInSeqOrder() {
    BatchFold.Folded folded =
        BatchFold.fold(
            List.of(promoted("a", 7)),
            List.of(
                retraction(2, "z", EventKind.DEMOTE),
                retraction(3, "a", EventKind.DEMOTE),
                retraction(4, "z", EventKind.ERASE),
                retraction(8, "a", EventKind.SIMULATION_END)));
    assertThat(folded.onEarlierRows().keySet())
        .containsExactly(new ArtifactKey("a", 1), new ArtifactKey("z", 1));
    assertThat(folded.onEarlierRows().get(new ArtifactKey("z", 1)))
        .extracting(Retraction::seq)
        .containsExactly(2L, 4L);
    // The demote at 3 precedes the promotion at 7: it is for an earlier row, never for this one.
    assertThat(folded.onEarlierRows().get(new ArtifactKey("a", 1)))
        .extracting(Retraction::seq)
        .containsExactly(3L);
    TableRow a = folded.appends().get(0);
    assertThat(StateTransitionsTest.value(a, "state")).isEqualTo(StateTransitions.SIMULATION_ENDED);
    assertThat(a.seq()).isEqualTo(8);
  }

  static TableRow promoted(String artifact, long seq) {
    return TableRow.builder(LakeSchemas.SILVER_MEMORIES, seq)
        .set("artifact_id", artifact)
        .set("version", 1L)
        .set("state", StateTransitions.ACTIVE)
        .set("workarea_id", "wa-1")
        .build();
  }

  static Retraction retraction(long seq, String artifact, EventKind kind) {
    return new Retraction(seq, new ArtifactKey(artifact, 1), kind, "wa-9");
  }
}
