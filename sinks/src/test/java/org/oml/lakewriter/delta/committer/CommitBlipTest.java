package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.BlipTableClient;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.RecordingFrontier;

/**
 * Issue 11 item 9 (lake half): a 2-second object-store blip during commits must not fail the job
 * over. The committer is driven the way Flink 1.20.1 drives it: a request that asks to be retried
 * ({@code retryLater}) is retried at once, up to {@code sink.committer.retries} (10) times; one
 * more, or a failure signalled with an unknown reason, is a failover.
 */
class CommitBlipTest {
  private static final int FLINK_COMMITTER_RETRIES = 10;
  private static final TableId A = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);

  @Test
  void aTwoSecondBlipIsRiddenOutWithBackOffAndNothingOvertakesTheFailedBatch() throws Exception {
    FakeDeltaTableClient lake = new FakeDeltaTableClient();
    BlipTableClient blipping = new BlipTableClient(lake, Duration.ofSeconds(2));
    RecordingFrontier frontier = new RecordingFrontier();
    List<FakeCommitRequest> requests =
        FakeCommitRequest.of(
            List.of(batch(lake, 0, 10, A, B), batch(lake, 10, 20, A), batch(lake, 20, 30, B)));

    long started = System.nanoTime();
    boolean failedOver = false;
    try {
      // A new committer, as after a start; Flink's own retry loop around it.
      DeltaCommitter committer = new DeltaCommitter(blipping, frontier);
      committer.commit(FakeCommitRequest.asRequests(requests));
      for (int retry = 1;
          requests.stream().anyMatch(r -> r.state() == State.RETRY) && !failedOver;
          retry++) {
        if (retry > FLINK_COMMITTER_RETRIES) {
          failedOver = true;
          break;
        }
        List<FakeCommitRequest> again = new ArrayList<>();
        for (FakeCommitRequest r : requests) {
          if (r.state() == State.RETRY) {
            r.resetForRetry();
            again.add(r);
          }
        }
        committer.commit(FakeCommitRequest.asRequests(again));
      }
    } catch (IllegalStateException e) {
      failedOver = true; // signalFailedWithUnknownReason
    }

    assertThat(failedOver).as("the job failed over during a 2 s blip").isFalse();
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(blipping.failures()).isBetween(2, 40);
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(lake.log().stream().filter(l -> l.startsWith("commit")))
        .containsExactly(
            "commit " + A + " 10", "commit " + B + " 10", "commit " + A + " 20", "commit " + B + " 30");
    assertThat(frontier.reported()).containsExactly(30L);
  }

  private static DeltaCommittable batch(
      FakeDeltaTableClient lake, long frontier, long batchEnd, TableId... tables) {
    List<TableCommit> commits = new ArrayList<>();
    for (TableId table : tables) {
      TableRow row = TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, batchEnd).build();
      List<DataFile> files = lake.writeDataFiles(table, List.of(row));
      commits.add(new TableCommit(table, 1, files));
    }
    return new DeltaCommittable(frontier, batchEnd, commits);
  }
}
