package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.RecordingFrontier;
import org.oml.lakewriter.lease.CommitLease;
import org.oml.lakewriter.lease.LeaseLostException;

/**
 * Issue 11 item 15, the committer's side of the leader lease: no Delta commit without a valid
 * lease, checked before every table's commit; a lapsed lease keeps every batch for a retry (never
 * drops one); each commit is tagged with the lease epoch. Crossing a restart: the lake state is
 * carried by the fake client, and each phase uses a new committer instance.
 */
class DeltaCommitterLeaseTest {
  private static final TableId A = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);

  private final FakeDeltaTableClient client = new FakeDeltaTableClient();
  private final RecordingFrontier frontier = new RecordingFrontier();

  /** A lease that passes {@code valid} checks, then is lost (taken over, or not renewed). */
  private static class CountingLease implements CommitLease {
    private int valid;
    int checks;
    boolean closed;

    CountingLease(int valid) {
      this.valid = valid;
    }

    @Override
    public void checkValid(String what) throws LeaseLostException {
      checks++;
      if (valid-- <= 0) {
        throw new LeaseLostException("not committing " + what + ": lease taken over (test)");
      }
    }

    @Override
    public String commitTag() {
      return "lease-epoch=7 lease-holder=test/1/aa";
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void aRestoredCommitterWhoseLeaseLapsedCommitsNothingAndKeepsEveryBatch() throws Exception {
    committer(new CountingLease(Integer.MAX_VALUE))
        .commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(List.of(batch(0, 10, A, B)))));
    assertThat(client.txnVersion(A)).isEqualTo(10);
    int commitsBefore = client.log().size();

    // The job restored: a new committer, whose lease can no longer be renewed.
    CountingLease lapsed = new CountingLease(0);
    DeltaCommitter restored = committer(lapsed);
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(10, 20, A), batch(20, 30, B)));
    // Retried in place while the retry window lasts, then failed over: the committables stay in
    // the checkpoint (as Flink does, the fake request throws on signalFailedWithUnknownReason).
    assertThatThrownBy(() -> restored.commit(FakeCommitRequest.asRequests(requests)))
        .hasStackTraceContaining("LEASE_LOST");

    assertThat(lapsed.checks).isGreaterThan(1);
    assertThat(client.log().subList(commitsBefore, client.log().size()))
        .noneMatch(l -> l.startsWith("commit"));
    assertThat(client.txnVersion(A)).isEqualTo(10);
    assertThat(client.txnVersion(B)).isEqualTo(10);
    // Never "failed with known reason", which would drop the committable.
    assertThat(requests.get(0).state()).isEqualTo(State.FAILED_UNKNOWN);
    assertThat(frontier.reported()).containsExactly(10L);

    restored.close();
    assertThat(lapsed.closed).isTrue();
  }

  @Test
  void theLeaseIsConfirmedBeforeEachUnitAndCheckedBeforeEachTableCommit() throws Exception {
    // Valid for the unit's confirmation and its first table, lost before the second.
    CountingLease oneMore = new CountingLease(2);
    DeltaCommitter committer = committer(oneMore);
    FakeCommitRequest request = new FakeCommitRequest(batch(0, 10, A, B));

    assertThatThrownBy(() -> committer.commit(FakeCommitRequest.asRequests(List.of(request))))
        .hasStackTraceContaining("LEASE_LOST");

    assertThat(oneMore.checks).isGreaterThanOrEqualTo(3);
    assertThat(client.txnVersion(A)).isEqualTo(10);
    assertThat(client.txnVersion(B)).isEqualTo(FakeDeltaTableClient.NO_VERSION);
    assertThat(request.state()).isEqualTo(State.FAILED_UNKNOWN);
    assertThat(frontier.reported()).isEmpty();
  }

  @Test
  void aLeaseTakenOverByAnotherHolderFailsTheJobOverWithItsReasonAndDropsNothing()
      throws Exception {
    CommitLease takenOver =
        new CountingLease(0) {
          @Override
          public void checkValid(String what) throws LeaseLostException {
            throw new LeaseLostException("not committing " + what + ": taken over (test)", true);
          }
        };
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(List.of(batch(0, 10, A), batch(10, 20, B)));

    // As Flink does, the fake request throws on signalFailedWithUnknownReason: the job fails over.
    assertThatThrownBy(
            () ->
                committer(takenOver)
                    .commit(FakeCommitRequest.asRequests(requests)))
        .hasStackTraceContaining("LEASE_LOST");

    assertThat(client.log()).noneMatch(l -> l.startsWith("commit"));
    // Failed over (the committable stays in the checkpoint), never "failed with known reason".
    assertThat(requests.get(0).state()).isEqualTo(State.FAILED_UNKNOWN);
    assertThat(requests.get(0).failure()).hasMessageContaining("LEASE_LOST");
    assertThat(frontier.reported()).isEmpty();
  }

  @Test
  void everyCommitIsTaggedWithTheLeaseEpoch() {
    committer(new CountingLease(Integer.MAX_VALUE));

    assertThat(client.commitTag()).isEqualTo("lease-epoch=7 lease-holder=test/1/aa");
  }

  /** A committer under {@code lease}, whose retry window is a few immediate attempts. */
  private DeltaCommitter committer(CommitLease lease) {
    return new DeltaCommitter(
        client,
        frontier,
        null,
        new CommitRetry(Duration.ofMillis(50), Duration.ofMillis(1), Duration.ofMillis(1)),
        3,
        Clock.systemUTC(),
        millis -> Thread.sleep(1),
        lease);
  }

  private DeltaCommittable batch(long frontierSeq, long batchEnd, TableId... tables) {
    List<TableId> sorted = new ArrayList<>(List.of(tables));
    Collections.sort(sorted);
    List<TableCommit> commits = new ArrayList<>();
    for (TableId table : sorted) {
      TableRow row = TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, batchEnd).build();
      List<DataFile> files = client.writeDataFiles(table, List.of(row));
      commits.add(new TableCommit(table, 1, files));
    }
    return new DeltaCommittable(frontierSeq, batchEnd, commits);
  }
}
