package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeSchemas;
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
  void transientFailureIsRetriedInPlaceAndNothingOvertakesIt() throws Exception {
    client.failNextCommits(2); // A@10 fails twice, then succeeds within the retry window
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A), batch(10, 20, A), batch(20, 30, B)));
    committer.commit(FakeCommitRequest.asRequests(requests));

    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(client.log().stream().filter(l -> l.startsWith("commit")))
        .containsExactly("commit " + A + " 10", "commit " + A + " 20", "commit " + B + " 30");
    assertThat(frontier.reported()).containsExactly(30L);
  }

  @Test
  void transientFailureBeyondTheWindowFailsOverAndLeavesLaterBatchesUnsignalled() {
    DeltaCommitter impatient =
        new DeltaCommitter(
            client,
            frontier,
            null,
            new CommitRetry(
                java.time.Duration.ofMillis(50),
                java.time.Duration.ofMillis(10),
                java.time.Duration.ofMillis(20)),
            3,
            java.time.Clock.systemUTC(),
            Thread::sleep);
    client.failNextCommits(1_000_000);
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A), batch(10, 20, B)));
    assertThatThrownBy(() -> impatient.commit(FakeCommitRequest.asRequests(requests)))
        .isInstanceOf(IllegalStateException.class)
        .rootCause()
        .hasMessageContaining("injected transient failure");
    assertThat(requests.get(0).failure())
        .hasMessageContaining("sink.commit-retry.max-duration")
        .hasMessageContaining("batch (0, 10] table " + A);
    assertThat(requests.get(1).state()).isEqualTo(State.PENDING); // never tried: restored later
    assertThat(client.txnVersion(B)).isEqualTo(-1);
    assertThat(frontier.reported()).isEmpty();
  }

  @Test
  void withoutAQuarantineStoreAnUnusableTableFailsOverInsteadOfDroppingTheBatch() {
    client.failCommitsTo(B, new TableUnusableException(B, "has columns (x int)", null));
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A, B), batch(10, 20, A)));
    assertThatThrownBy(() -> committer.commit(FakeCommitRequest.asRequests(requests)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(requests.get(0).state()).isEqualTo(State.FAILED_UNKNOWN);
    assertThat(requests.get(0).failure())
        .hasMessageContaining("batch (0, 10]")
        .hasMessageContaining("has columns (x int)")
        .hasMessageContaining("no quarantine store");
    assertThat(requests).extracting(FakeCommitRequest::state).doesNotContain(State.FAILED_KNOWN);
    assertThat(client.txnVersion(B)).isEqualTo(-1);
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
