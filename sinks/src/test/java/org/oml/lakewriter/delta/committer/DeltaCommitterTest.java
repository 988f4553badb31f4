package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.RecordingFrontier;

class DeltaCommitterTest {
  private static final TableId A = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);

  private final FakeDeltaTableClient client = new FakeDeltaTableClient();
  private final RecordingFrontier frontier = new RecordingFrontier();
  private final DeltaCommitter committer = new DeltaCommitter(client, frontier);

  @Test
  void commitsBatchesInBatchEndOrderAndTablesInPathOrder() throws Exception {
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(10, 20, A, B), batch(0, 10, B, A)));
    committer.commit(FakeCommitRequest.asRequests(requests));

    assertThat(client.log().stream().filter(l -> l.startsWith("commit")))
        .containsExactly(
            "commit " + A + " 10",
            "commit " + B + " 10",
            "commit " + A + " 20",
            "commit " + B + " 20");
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(frontier.reported()).containsExactly(20L);
  }

  @Test
  void replayedBatchIsReportedAlreadyCommitted() throws Exception {
    client.withTxnVersion(A, 10).withTxnVersion(B, 10);
    FakeCommitRequest request = new FakeCommitRequest(batch(0, 10, A, B));
    committer.commit(FakeCommitRequest.asRequests(List.of(request)));
    assertThat(request.state()).isEqualTo(State.ALREADY_COMMITTED);
    assertThat(frontier.reported()).containsExactly(10L);
  }

  @Test
  void emptyBatchCommitsNothingButAdvancesTheFrontier() throws Exception {
    FakeCommitRequest request = new FakeCommitRequest(new DeltaCommittable(5, 9, List.of()));
    committer.commit(FakeCommitRequest.asRequests(List.of(request)));
    assertThat(request.state()).isEqualTo(State.PENDING);
    assertThat(client.log()).isEmpty();
    assertThat(frontier.reported()).containsExactly(9L);
  }

  @Test
  void transientFailureRetriesThatBatchAndEveryLaterOne() throws Exception {
    client.failNextCommits(2); // the first two attempts fail at their first commit (A@10)
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A), batch(10, 20, A), batch(20, 30, B)));
    committer.commit(FakeCommitRequest.asRequests(requests));
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.RETRY);
    assertThat(frontier.reported()).isEmpty();

    requests.forEach(FakeCommitRequest::resetForRetry);
    committer.commit(FakeCommitRequest.asRequests(requests)); // second injected failure
    requests.forEach(FakeCommitRequest::resetForRetry);
    committer.commit(FakeCommitRequest.asRequests(requests));
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(client.txnVersion(A)).isEqualTo(20);
    assertThat(client.txnVersion(B)).isEqualTo(30);
    assertThat(frontier.reported()).containsExactly(30L);
  }

  @Test
  void unusableTableFailsWithItsReasonFencesTheTableAndStopsTheFrontier() throws Exception {
    client.failCommitsTo(B, new TableUnusableException(B, "has columns (x int)", null));
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A, B), batch(10, 20, A), batch(20, 30, B)));
    committer.commit(FakeCommitRequest.asRequests(requests));

    assertThat(requests.get(0).state()).isEqualTo(State.FAILED_KNOWN);
    assertThat(requests.get(0).failure())
        .hasMessageContaining("batch (0, 10]")
        .hasMessageContaining("table " + B)
        .hasMessageContaining("has columns (x int)");
    assertThat(requests.get(1).state()).isEqualTo(State.PENDING);
    assertThat(requests.get(2).state()).isEqualTo(State.FAILED_KNOWN);
    assertThat(requests.get(2).failure()).hasMessageContaining("fenced since batch (0, 10]");
    assertThat(client.txnVersion(A)).isEqualTo(20);
    assertThat(client.txnVersion(B)).isEqualTo(-1);
    assertThat(frontier.reported()).isEmpty();
  }

  @Test
  void aMergeCommitsItsRewriteAndAStaleOneFencesItsTable() throws Exception {
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    TableRow row =
        TableRow.builder(LakeSchemas.SILVER_MEMORIES, 5)
            .set("artifact_id", "a")
            .set("version", 1L)
            .build();
    List<DataFile> first = client.writeDataFiles(silver, List.of(row));
    List<DataFile> copy = client.writeDataFiles(silver, List.of(row));
    List<DataFile> stale = client.writeDataFiles(silver, List.of(row));
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(
            List.of(
                new DeltaCommittable(0, 10, List.of(new TableCommit(silver, 1, first))),
                new DeltaCommittable(
                    10, 20, List.of(new TableCommit(silver, 1, copy, new Rewrite(10, first)))),
                // Planned on txn 25, which the table never reaches: the plan is not the table's.
                new DeltaCommittable(
                    20, 30, List.of(new TableCommit(silver, 1, stale, new Rewrite(25, copy)))),
                new DeltaCommittable(30, 40, List.of(new TableCommit(silver, 1, stale)))));
    committer.commit(FakeCommitRequest.asRequests(requests));

    assertThat(requests)
        .extracting(FakeCommitRequest::state)
        .containsExactly(State.PENDING, State.PENDING, State.FAILED_KNOWN, State.FAILED_KNOWN);
    assertThat(requests.get(2).failure()).hasMessageContaining("planned on txn 25");
    assertThat(requests.get(3).failure()).hasMessageContaining("fenced since batch (20, 30]");
    assertThat(client.txnVersion(silver)).isEqualTo(20);
    assertThat(client.committedSeqs(silver)).containsExactly(5L);
    assertThat(frontier.reported()).isEmpty();
  }

  @Test
  void unexpectedFailureFailsOver() {
    client.failCommitsTo(A, new IllegalArgumentException("bug"));
    FakeCommitRequest request = new FakeCommitRequest(batch(0, 10, A));
    assertThatThrownBy(() -> committer.commit(FakeCommitRequest.asRequests(List.of(request))))
        .isInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("bug");
    assertThat(request.state()).isEqualTo(State.FAILED_UNKNOWN);
  }

  @Test
  void frontierFailureDoesNotFailTheCommit() throws Exception {
    DeltaCommitter flaky =
        new DeltaCommitter(
            client,
            seq -> {
              throw new java.io.IOException("database down");
            });
    FakeCommitRequest request = new FakeCommitRequest(batch(0, 10, A));
    flaky.commit(FakeCommitRequest.asRequests(List.of(request)));
    assertThat(request.state()).isEqualTo(State.PENDING);
    assertThat(client.txnVersion(A)).isEqualTo(10);
  }

  /** A committable whose files the fake client knows, for the given tables. */
  private DeltaCommittable batch(long frontier, long batchEnd, TableId... tables) {
    java.util.List<TableId> sorted = new java.util.ArrayList<>(List.of(tables));
    java.util.Collections.sort(sorted);
    java.util.List<TableCommit> commits = new java.util.ArrayList<>();
    for (TableId table : sorted) {
      TableRow row = TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, batchEnd).build();
      List<DataFile> files = client.writeDataFiles(table, List.of(row));
      commits.add(new TableCommit(table, 1, files));
    }
    return new DeltaCommittable(frontier, batchEnd, commits);
  }
}
