package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.promoted;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.retraction;
import static org.oml.lakewriter.delta.merge.StateTransitionsTest.value;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.CapturedLog;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.event.EventKind;

class SilverMergeTest {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);

  private final FakeDeltaTableClient client = new FakeDeltaTableClient();
  private final SilverMerge merge = new SilverMerge(client);

  @Test
  void retractionOfARowWhoseBatchIsNotCommittedYetRewritesThatBatchsFile() throws Exception {
    SilverMerge.Outcome first =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2)), List.of());
    SilverMerge.Outcome second =
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.DEMOTE)));

    assertThat(second.filesRead()).isEqualTo(1);
    assertThat(second.commit().rewrite().baseTxnVersion()).isEqualTo(10);
    assertThat(second.commit().removes()).isEqualTo(first.commit().files());
    commit(10, first);
    commit(20, second);
    assertThat(client.committedRows(SILVER))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(value(r, "state")).isEqualTo(StateTransitions.DEMOTED);
              assertThat(r.seq()).isEqualTo(12);
            });
  }

  @Test
  void aFileReplacedByAPendingBatchIsNeverReadOrReplacedAgain() throws Exception {
    SilverMerge.Outcome base =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2), promoted("b", 3)), List.of());
    commit(10, base);
    SilverMerge.Outcome first =
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.DEMOTE)));
    SilverMerge.Outcome second =
        merge.write(
            "(20, 30]", 30, SILVER, List.of(), List.of(retraction(22, "b", EventKind.ERASE)));

    assertThat(first.commit().removes()).isEqualTo(base.commit().files());
    // The table still lists the file `first` replaces; `second` rewrites first's copy instead.
    assertThat(second.commit().removes()).isEqualTo(first.commit().files());
    assertThat(second.commit().rewrite().baseTxnVersion()).isEqualTo(20);
    commit(20, first);
    commit(30, second);
    List<TableRow> rows = client.committedRows(SILVER);
    assertThat(rows).extracting(r -> value(r, "artifact_id")).containsExactly("a", "b");
    assertThat(rows)
        .extracting(r -> value(r, "state"))
        .containsExactly(StateTransitions.DEMOTED, StateTransitions.ERASED);
    assertThat(rows).extracting(TableRow::seq).containsExactly(12L, 22L);
  }

  @Test
  void retractionsWithoutARowCommitNothingAndAreCounted() throws Exception {
    SilverMerge.Outcome outcome =
        merge.write(
            "(0, 10]",
            10,
            SILVER,
            List.of(),
            List.of(
                retraction(5, "held", EventKind.ERASE), retraction(6, "held", EventKind.DEMOTE)));
    assertThat(outcome.commit()).isNull();
    assertThat(outcome.retractsWithoutRow()).isEqualTo(2);
    assertThat(client.log()).noneMatch(l -> l.startsWith("write"));
  }

  @Test
  void aBatchsFindingsAreOneWarningPerTableNamingTheFirstFew() throws Exception {
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2)), List.of()));
    List<TableRow> retries = new java.util.ArrayList<>();
    List<Retraction> held = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      retries.add(promoted("a", 11 + i));
      held.add(retraction(21 + i, "held-" + i, EventKind.DEMOTE));
    }
    try (CapturedLog log = CapturedLog.of(SilverMerge.class)) {
      SilverMerge.Outcome outcome = merge.write("(10, 30]", 30, SILVER, retries, held);
      assertThat(outcome.promotionsOfExistingKeys()).isEqualTo(5);
      assertThat(outcome.retractsWithoutRow()).isEqualTo(5);
      assertThat(log.lines()).hasSize(2);
      assertThat(log.lines().get(0))
          .startsWith("finding PROMOTE_EXISTING_KEY: batch (10, 30] table " + SILVER + ": 5 ")
          .contains("promotion at seq 11 of ", "promotion at seq 13 of ")
          .doesNotContain("seq 14")
          .endsWith("; and 2 more (each at DEBUG)");
      assertThat(log.lines().get(1))
          .startsWith("finding RETRACT_WITHOUT_ROW: batch (10, 30] table " + SILVER + ": 5 ")
          .contains("held-0", "held-2")
          .doesNotContain("held-3")
          .endsWith("; and 2 more (each at DEBUG)");
    }
  }

  @Test
  void aRetractionThatChangesNothingReadsTheFileButReplacesNothing() throws Exception {
    SilverMerge.Outcome base =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2)), List.of());
    commit(10, base);
    commit(
        20,
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.ERASE))));

    SilverMerge.Outcome again =
        merge.write(
            "(20, 30]", 30, SILVER, List.of(), List.of(retraction(22, "a", EventKind.DEMOTE)));
    assertThat(again.commit()).isNull();
    assertThat(again.filesRead()).isEqualTo(1);
    assertThat(again.filesReplaced()).isZero();
    assertThat(again.retractsWithoutRow()).isZero();
  }

  @Test
  void theBarrierForgetsBatchesOnceTheTableHoldsThem() throws Exception {
    SilverMerge.Outcome first =
        merge.write("(0, 10]", 10, SILVER, List.of(promoted("a", 2)), List.of());
    merge.barrier(); // hands (0, 10] over; nothing older is pending
    assertThat(readsOfSilver()).isZero();
    commit(10, first);
    merge.barrier(); // (0, 10] was handed over earlier: is it in the table now?
    assertThat(readsOfSilver()).isEqualTo(1);
    merge.barrier(); // nothing pending any more
    assertThat(readsOfSilver()).isEqualTo(1);

    SilverMerge.Outcome retract =
        merge.write(
            "(10, 20]", 20, SILVER, List.of(), List.of(retraction(12, "a", EventKind.DEMOTE)));
    assertThat(retract.commit().rewrite().baseTxnVersion()).isEqualTo(10);
    assertThat(retract.commit().removes()).isEqualTo(first.commit().files());
  }

  private long readsOfSilver() {
    return client.log().stream().filter(l -> l.equals("snapshot " + SILVER)).count();
  }

  @Test
  void eachFileIsReadInTheColumnsOfItsOwnRetractionsAnEraseOnesWithTheBody() throws Exception {
    commit(10, merge.write("(0, 10]", 10, SILVER, List.of(withBody("a", 2)), List.of()));
    commit(20, merge.write("(10, 20]", 20, SILVER, List.of(withBody("b", 12)), List.of()));
    byte[] bodyOfA = (byte[]) value(client.committedRows(SILVER).get(0), "body");
    int mark = client.log().size();
    SilverMerge.Outcome both =
        merge.write(
            "(20, 30]",
            30,
            SILVER,
            List.of(),
            List.of(retraction(22, "a", EventKind.DEMOTE), retraction(23, "b", EventKind.ERASE)));
    commit(30, both);

    assertThat(client.log().subList(mark, client.log().size()))
        .filteredOn(l -> l.startsWith("read-columns "))
        .extracting(l -> l.substring(l.indexOf('[')))
        .containsExactlyInAnyOrder(
            "[artifact_id, seq, state, version, workarea_id]",
            "[artifact_id, body, seq, state, version, workarea_id]");
    List<TableRow> rows = client.committedRows(SILVER);
    assertThat(rows).extracting(r -> value(r, "state"))
        .containsExactly(StateTransitions.DEMOTED, StateTransitions.ERASED);
    assertThat((byte[]) value(rows.get(0), "body")).isEqualTo(bodyOfA).isNotEmpty();
    assertThat(value(rows.get(1), "body")).isNull();
    assertThat(rows).allSatisfy(r -> assertThat(value(r, "plaintext_digest")).isNotNull());
  }

  private static TableRow withBody(String artifact, long seq) {
    return promoted(artifact, seq).toBuilder(LakeSchemas.SILVER_MEMORIES, seq)
        .set("body", new byte[] {1, 2, (byte) seq})
        .set("plaintext_digest", "digest-" + artifact)
        .build();
  }

  private void commit(long batchEnd, SilverMerge.Outcome outcome) throws Exception {
    assertThat(
            client.commitRewrite(
                SILVER, batchEnd, outcome.commit().files(), outcome.commit().rewrite()))
        .isEqualTo(CommitOutcome.COMMITTED);
  }
}
