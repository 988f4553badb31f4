package org.oml.lakewriter.delta.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.InMemoryQuarantineStore;
import org.oml.lakewriter.delta.testing.ListOutbox;
import org.oml.lakewriter.delta.testing.RecordingFrontier;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The writer's side of the quarantine. Each phase builds a NEW writer (and committer) over the same
 * fake lake and durable store, as a restart does.
 */
class WriterQuarantineTest {
  private static final TableId A = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);

  private final FakeDeltaTableClient lake = new FakeDeltaTableClient();
  private final InMemoryQuarantineStore store = new InMemoryQuarantineStore();
  private final ListOutbox outbox = new ListOutbox("writer-quarantine-test-" + System.nanoTime());

  private DeltaSinkWriter newWriter() {
    return new DeltaSinkWriter(
        lake,
        Clock.systemUTC(),
        org.oml.lakewriter.delta.writer.WriterSettings.defaults()
            .withQuarantine(
                new WriterQuarantine(
                    store, outbox, lake, 3, Clock.systemUTC(), CommitRetry.DEFAULT))
            .withGold(false)); // these cases are about bronze and silver's tables
  }

  private void commit(List<DeltaCommittable> committables) throws Exception {
    new DeltaCommitter(
            lake,
            new RecordingFrontier(),
            store,
            CommitRetry.DEFAULT,
            3,
            Clock.systemUTC(),
            Thread::sleep)
        .commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(committables)));
  }

  /** Journal rows of acme (odd seqs) and beta (even seqs) over (from, to], also in the outbox. */
  private Batch batch(long from, long to) {
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = from + 1; seq <= to; seq++) {
      events.add(Events.journal(seq, seq % 2 == 1 ? "acme" : "beta"));
    }
    outbox.add(events);
    return new Batch(from, to, events);
  }

  @Test
  void aTableThatFailsWhileWrittenHoldsOnlyItsTenantAndTheOthersGoOn() throws Exception {
    lake.failWritesTo(B, new TableUnusableException(B, "has columns (x int)", null));
    DeltaSinkWriter writer = newWriter();
    writer.write(batch(0, 10), null);
    List<DeltaCommittable> committables = new ArrayList<>(writer.prepareCommit());
    writer.write(batch(10, 20), null);
    committables.addAll(writer.prepareCommit());

    assertThat(committables).hasSize(2);
    assertThat(committables.get(0).tables()).extracting(TableCommit::table).containsExactly(A);
    assertThat(committables.get(1).tables()).extracting(TableCommit::table).containsExactly(A);
    Quarantine record = store.get("beta");
    assertThat(record.action()).isEqualTo(Quarantine.Action.OPERATOR);
    assertThat(record.resumeAfter()).isEqualTo(0);
    assertThat(record.batch()).isEqualTo("(0, 10]");
    assertThat(lake.log()).noneMatch(l -> l.startsWith("write " + B));

    commit(committables);
    assertThat(lake.committedSeqs(A)).containsExactly(1L, 3L, 5L, 7L, 9L, 11L, 13L, 15L, 17L, 19L);
    assertThat(lake.txnVersion(B)).isEqualTo(-1);
  }

  @Test
  void afterTheOperatorReleasesANewWriterReplaysTheTenantExactlyOnce() throws Exception {
    lake.failWritesTo(B, new TableUnusableException(B, "has columns (x int)", null));
    DeltaSinkWriter first = newWriter();
    first.write(batch(0, 10), null);
    commit(first.prepareCommit());
    first.close();

    // Restart: a new writer, beta still held (not released): no files for it.
    lake.healCommitsTo(B);
    DeltaSinkWriter second = newWriter();
    second.write(batch(10, 20), null);
    commit(second.prepareCommit());
    assertThat(lake.txnVersion(B)).isEqualTo(-1);
    assertThat(outbox.reads()).isZero();

    // The operator fixed the table and released beta: the next batch replays (0, 20].
    store.put(store.get("beta").releasedByOperator());
    DeltaSinkWriter third = newWriter();
    third.write(batch(20, 30), null);
    List<DeltaCommittable> replayed = third.prepareCommit();
    assertThat(replayed.get(0).frontier()).isEqualTo(0);
    assertThat(store.get("beta").replay().batchEnd()).isEqualTo(30);
    commit(replayed);

    assertThat(lake.committedSeqs(B)).containsExactly(2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L, 20L, 22L, 24L, 26L, 28L, 30L);
    assertThat(lake.committedSeqs(A)).hasSize(15).doesNotHaveDuplicates();
    assertThat(store.get("beta")).isNull();
    assertThat(lake.txnVersion(B)).isEqualTo(30);
  }

  @Test
  void aStoreBlipWhileWritingIsRetriedNotFailedOver() throws Exception {
    store.put(
        new Quarantine(
            "beta",
            B.relativePath(),
            Quarantine.Action.OPERATOR,
            "test",
            "(0, 10]",
            java.time.Instant.EPOCH,
            0,
            Map.of(),
            0,
            false,
            null));
    store.failNext(3);
    DeltaSinkWriter writer = newWriter();
    writer.write(batch(0, 10), null);
    assertThat(writer.prepareCommit().get(0).tables())
        .extracting(TableCommit::table)
        .containsExactly(A);
  }

  @Test
  void aHeldTenantsRowsOfAReCutBatchBelowTheResumePointLowerItBeforeTheyAreDropped()
      throws Exception {
    store.put(
        new Quarantine(
            "beta",
            B.relativePath(),
            Quarantine.Action.OPERATOR,
            "test",
            "(20, 30]",
            java.time.Instant.EPOCH,
            20,
            Map.of(),
            0,
            false,
            null));
    DeltaSinkWriter writer = newWriter();
    writer.write(batch(10, 20), null); // a restore re-cut from 10
    assertThat(writer.prepareCommit().get(0).tables())
        .extracting(TableCommit::table)
        .containsExactly(A);
    assertThat(store.get("beta").resumeAfter()).isEqualTo(10);
  }

  @Test
  void aReplayIsPlannedThroughTheBatchPathAndSkipsRowsItsTablesHold() throws Exception {
    // beta's bronze already holds up to 6 (the batch (0, 10] failed on another beta table after).
    lake.withTxnVersion(B, 6);
    store.put(
        new Quarantine(
            "beta",
            "beta/dead_letter",
            Quarantine.Action.REPLAN,
            "files gone",
            "(0, 10]",
            java.time.Instant.EPOCH,
            0,
            Map.of(),
            1,
            false,
            null));
    batch(0, 10); // in the outbox
    DeltaSinkWriter writer = newWriter();
    writer.write(batch(10, 20), null);
    DeltaCommittable committable = writer.prepareCommit().get(0);
    TableCommit beta =
        committable.tables().stream().filter(t -> t.table().equals(B)).findFirst().orElseThrow();
    assertThat(beta.rowCount()).isEqualTo(7); // 8, 10 replayed; 12..20 its own; not 2, 4, 6
    assertThat(lake.log()).contains("read " + B);
  }
}
