package org.oml.lakewriter.delta.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.InMemoryQuarantineStore;
import org.oml.lakewriter.delta.testing.RecordingFrontier;

/**
 * The committer's side of the quarantine, across restarts: each phase runs on a NEW committer over
 * the same lake (the fake client) and the same durable store, as after a failover.
 */
class CommitterQuarantineTest {
  private static final TableId A = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B_SILVER = TableId.of("beta", TableKind.SILVER_MEMORIES);

  private final FakeDeltaTableClient lake = new FakeDeltaTableClient();
  private final InMemoryQuarantineStore store = new InMemoryQuarantineStore();
  private final RecordingFrontier frontier = new RecordingFrontier();

  private DeltaCommitter newCommitter() {
    return new DeltaCommitter(
        lake, frontier, store, CommitRetry.DEFAULT, 3, Clock.systemUTC(), Thread::sleep);
  }

  private List<FakeCommitRequest> commit(DeltaCommittable... batches) throws Exception {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(List.of(batches));
    newCommitter().commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  @Test
  void aTableThatCannotTakeABatchHoldsItsTenantDurablyAndNoLaterCommitterPassesTheGap()
      throws Exception {
    lake.failCommitsTo(B, new TableUnusableException(B, "has columns (x int)", null));
    List<FakeCommitRequest> first = commit(batch(0, 10, A, B), batch(10, 20, A, B));

    // Never discarded, never failed: the batch committed for acme, beta is held.
    assertThat(first).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(lake.txnVersion(A)).isEqualTo(20);
    assertThat(lake.txnVersion(B)).isEqualTo(-1);
    Quarantine record = store.get("beta");
    assertThat(record.table()).isEqualTo(B.relativePath());
    assertThat(record.action()).isEqualTo(Quarantine.Action.OPERATOR);
    assertThat(record.reason()).contains("has columns (x int)");
    assertThat(record.batch()).isEqualTo("(0, 10]");
    assertThat(record.resumeAfter()).isEqualTo(0);
    assertThat(record.txnVersions()).containsEntry(B.relativePath(), -1L);
    assertThat(frontier.reported()).containsExactly(20L);

    // Failover: the fence must survive it. The table works again but nobody released beta.
    lake.healCommitsTo(B);
    commit(batch(20, 30, A, B));
    assertThat(lake.txnVersion(A)).isEqualTo(30);
    assertThat(lake.txnVersion(B)).as("txn version never passes an unapplied batch").isEqualTo(-1);
    assertThat(store.get("beta")).isNotNull();
  }

  @Test
  void skippingABatchBelowTheResumePointLowersItFirst() throws Exception {
    store.put(held("beta", 20));
    commit(batch(5, 10, B));
    assertThat(store.get("beta").resumeAfter()).isEqualTo(5);
    assertThat(store.log()).containsExactly("put beta resume=20", "put beta resume=5");
    assertThat(lake.txnVersion(B)).isEqualTo(-1);
  }

  @Test
  void theReplayBatchCommitsTheTenantAndDeletesTheRecordEarlierOnesStaySkipped() throws Exception {
    store.put(held("beta", 0).replaying("writer-1", 30));
    List<FakeCommitRequest> requests = commit(batch(0, 10, B), batch(10, 30, A, B));
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(lake.log().stream().filter(l -> l.startsWith("commit")))
        .containsExactly("commit " + A + " 30", "commit " + B + " 30");
    assertThat(store.get("beta")).isNull();
  }

  @Test
  void aReplayThatStartedAboveASkippedBatchIsCancelledNotTrusted() throws Exception {
    store.put(held("beta", 20).replaying("writer-1", 40));
    commit(batch(10, 20, B));
    Quarantine record = store.get("beta");
    assertThat(record.replay()).isNull();
    assertThat(record.resumeAfter()).isEqualTo(10);
  }

  @Test
  void aStaleRewriteIsReplannedAutomaticallyThenNeedsAnOperatorAfterTheCap() throws Exception {
    TableRow row =
        TableRow.builder(LakeSchemas.SILVER_MEMORIES, 5)
            .set("artifact_id", "a")
            .set("version", 1L)
            .build();
    List<DataFile> first = lake.writeDataFiles(B_SILVER, List.of(row));
    commit(new DeltaCommittable(0, 10, List.of(new TableCommit(B_SILVER, 1, first))));
    for (int attempt = 1; attempt <= 4; attempt++) {
      long end = 10 + attempt * 10L;
      List<DataFile> copy = lake.writeDataFiles(B_SILVER, List.of(row));
      // Planned on txn 5, which the table is not at: the plan is not the table's.
      DeltaCommittable stale =
          new DeltaCommittable(
              end - 10, end, List.of(new TableCommit(B_SILVER, 1, copy, new Rewrite(5, first))));
      if (attempt > 1) {
        store.put(store.get("beta").replaying("writer-" + attempt, end));
      }
      assertThat(commit(stale).get(0).state()).isEqualTo(State.PENDING);
      Quarantine record = store.get("beta");
      assertThat(record.replans()).isEqualTo(attempt);
      assertThat(record.resumeAfter()).isEqualTo(10);
      assertThat(record.replayable()).isEqualTo(attempt <= 3);
    }
    assertThat(store.get("beta").action()).isEqualTo(Quarantine.Action.OPERATOR);
    assertThat(store.get("beta").reason()).contains("sink.quarantine.max-replans");
    assertThat(store.get("beta").releasedByOperator().replayable()).isTrue();
    assertThat(lake.txnVersion(B_SILVER)).isEqualTo(10);
  }

  @Test
  void aStoreBlipIsRetriedNotFailedOver() throws Exception {
    lake.failCommitsTo(B, new TableUnusableException(B, "not a Delta table", null));
    store.failNext(2);
    List<FakeCommitRequest> requests = commit(batch(0, 10, A, B));
    assertThat(requests.get(0).state()).isEqualTo(State.PENDING);
    assertThat(store.get("beta")).isNotNull();
  }

  @Test
  void theRecordSurvivesItsJsonForm() throws Exception {
    Quarantine record =
        new Quarantine(
                "beta",
                "beta/silver/memories",
                Quarantine.Action.REPLAN,
                "files gone",
                "(10, 20]",
                java.time.Instant.parse("2026-11-30T21:00:00Z"),
                10,
                Map.of("beta/silver/memories", 10L, "beta/bronze/journal_events", 20L),
                2,
                false,
                null)
            .replaying("w", 40);
    assertThat(Quarantine.fromJson(record.toJson(), "test")).isEqualTo(record);
  }

  private static Quarantine held(String tenant, long resumeAfter) {
    return new Quarantine(
        tenant,
        tenant + "/bronze/journal_events",
        Quarantine.Action.OPERATOR,
        "test",
        "(0, 10]",
        java.time.Instant.EPOCH,
        resumeAfter,
        Map.of(),
        0,
        false,
        null);
  }

  private DeltaCommittable batch(long from, long batchEnd, TableId... tables) {
    List<TableId> sorted = new ArrayList<>(List.of(tables));
    Collections.sort(sorted);
    List<TableCommit> commits = new ArrayList<>();
    for (TableId table : sorted) {
      TableRow row = TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, batchEnd).build();
      commits.add(new TableCommit(table, 1, lake.writeDataFiles(table, List.of(row))));
    }
    return new DeltaCommittable(from, batchEnd, commits);
  }
}
