package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.retraction;
import static org.oml.lakewriter.delta.merge.StateTransitionsTest.value;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.event.EventKind;

/**
 * Silver rule 2: a promotion of a key that silver already holds changes nothing, wherever that key
 * is: committed in the table, in a batch this writer wrote but has not committed, earlier in the
 * same batch, or in a table another run of the writer filled.
 */
class RepromotionTest {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);

  private final FakeDeltaTableClient client = new FakeDeltaTableClient();
  private SilverMerge merge = new SilverMerge(client);

  @Test
  void aRetriedPromotionOfACommittedDemotedKeyChangesNothing() throws Exception {
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2, "first")), List.of()));
    commit(
        20,
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.DEMOTE))));

    SilverMerge.Outcome retry =
        merge.write("(20, 30]", 30, SILVER, List.of(promoted("a", 25, "retry")), List.of());

    assertThat(retry.commit()).isNull();
    assertThat(retry.promotionsOfExistingKeys()).isEqualTo(1);
    assertThat(client.committedRows(SILVER))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(value(r, "state")).isEqualTo(StateTransitions.DEMOTED);
              assertThat(body(r)).isEqualTo("first");
            });
  }

  @Test
  void aRetryOfAPromotionWhoseBatchIsNotCommittedYetChangesNothing() throws Exception {
    SilverMerge.Outcome first =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2, "first")), List.of());
    SilverMerge.Outcome retry =
        merge.write("(10, 20]", 20, SILVER, List.of(promoted("a", 12, "retry")), List.of());

    assertThat(retry.commit()).isNull();
    commit(10, first);
    assertThat(client.committedRows(SILVER)).extracting(TableRow::seq).containsExactly(2L);
  }

  @Test
  void aRepeatWithinTheBatchChangesNothingAndLaterRetractionsApplyToTheFirst() throws Exception {
    SilverMerge.Outcome outcome =
        merge.write(
            "(0, 10]",
            10,
            SILVER,
            List.of(promoted("a", 2, "first"), promoted("a", 4, "retry")),
            List.of(retraction(3, "a", EventKind.ERASE)));

    assertThat(outcome.promotionsOfExistingKeys()).isEqualTo(1);
    commit(10, outcome);
    assertThat(client.committedRows(SILVER))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(value(r, "state")).isEqualTo(StateTransitions.ERASED);
              // The erase cleared the first body; the retry's never entered.
              assertThat(value(r, "body")).isNull();
            });
  }

  @Test
  void aRetryFollowedByARetractionInOneBatchRetractsTheExistingRow() throws Exception {
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2, "first")), List.of()));

    SilverMerge.Outcome outcome =
        merge.write(
            "(10, 20]",
            20,
            SILVER,
            List.of(promoted("a", 12, "retry")),
            List.of(retraction(13, "a", EventKind.DEMOTE)));

    commit(20, outcome);
    assertThat(client.committedRows(SILVER))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(value(r, "state")).isEqualTo(StateTransitions.DEMOTED);
              assertThat(body(r)).isEqualTo("first");
              assertThat(r.seq()).isEqualTo(13);
            });
  }

  @Test
  void afterARestartAnErasedKeysBodyNeverReentersSilver() throws Exception {
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2, "first")), List.of()));
    commit(
        20,
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.ERASE))));

    merge = new SilverMerge(client); // a restart: nothing in memory, the lake is the authority
    SilverMerge.Outcome retry =
        merge.write("(20, 30]", 30, SILVER, List.of(promoted("a", 25, "retry")), List.of());

    assertThat(retry.commit()).isNull();
    assertThat(client.committedRows(SILVER))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(value(r, "state")).isEqualTo(StateTransitions.ERASED);
              assertThat(value(r, "body")).as("erased in a rewrite, never re-entered").isNull();
            });
  }

  @Test
  void theKeysAreReadOnceAndTheTableStateAtMostOncePerCheckpoint() throws Exception {
    for (int b = 0; b < 5; b++) {
      long end = (b + 1) * 10L;
      commit(
          end,
          merge.write(
              "b" + b, end, SILVER, List.of(promoted("k" + b, end - 5, "body")), List.of()));
      merge.barrier();
    }
    assertThat(client.log()).filteredOn(l -> l.startsWith("keys ")).hasSize(1);
    // One state read per barrier at most (the barrier's own, which also settles pending files).
    assertThat(client.log()).filteredOn(l -> l.startsWith("snapshot ")).hasSizeLessThanOrEqualTo(5);
    assertThat(client.log()).noneMatch(l -> l.startsWith("read-file"));
  }

  @Test
  void aCommitByAnotherEngineRebuildsTheIndexFromTheLake() throws Exception {
    commit(
        10,
        merge.write(
            "(0, 10]",
            10,
            SILVER,
            List.of(promoted("a", 2, "first"), promoted("b", 3, "first")),
            List.of()));
    merge.barrier();
    // A manual repair by another engine deletes a's row; the index must not still believe in it.
    client.outOfBandCommit(
        SILVER, rows -> rows.stream().filter(r -> !"a".equals(value(r, "artifact_id"))).toList());
    merge.barrier();

    SilverMerge.Outcome again =
        merge.write(
            "(10, 20]",
            20,
            SILVER,
            List.of(promoted("a", 12, "again"), promoted("b", 13, "retry")),
            List.of());

    assertThat(again.promotionsOfExistingKeys()).isEqualTo(1);
    commit(20, again);
    assertThat(client.committedRows(SILVER))
        .extracting(r -> value(r, "artifact_id") + "@" + r.seq())
        .containsExactly("b@3", "a@12");
    assertThat(client.log()).filteredOn(l -> l.startsWith("keys ")).hasSize(2);
  }

  static TableRow promoted(String artifact, long seq, String body) {
    return TableRow.builder(LakeSchemas.SILVER_MEMORIES, seq)
        .set("artifact_id", artifact)
        .set("version", 1L)
        .set("state", StateTransitions.ACTIVE)
        .set("workarea_id", "wa-1")
        .set("body", body.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static String body(TableRow row) {
    return new String((byte[]) value(row, "body"), StandardCharsets.UTF_8);
  }

  private void commit(long batchEnd, SilverMerge.Outcome outcome) throws Exception {
    assertThat(
            client.commitRewrite(
                SILVER, batchEnd, outcome.commit().files(), outcome.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
  }
}
