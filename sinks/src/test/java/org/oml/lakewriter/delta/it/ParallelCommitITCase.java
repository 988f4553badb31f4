package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.CommitMetrics;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.RecordingFrontier;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.lease.CommitLease;

/**
 * The committer commits the tenants of one unit in parallel on a bounded pool, on real tables: all
 * of them commit, the frontier moves only once every table has, a table that fails fails the whole
 * unit and a new committer's replay applies nothing twice, and at parallelism 1 every table commits
 * on the caller's thread in path order, as before.
 */
class ParallelCommitITCase {
  private static final int TENANTS = 12;
  private static final long END = 100;

  @TempDir Path dir;

  @Test
  void aUnitWithManyTenantsCommitsEveryTableWithTenantsInParallel() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    List<DeltaCommittable> unit = writeUnit(lake);
    RecordingClient client = new RecordingClient(new KernelDeltaTableClient(lake), true);
    RecordingFrontier frontier = new RecordingFrontier();
    try (DeltaCommitter committer = committer(client, frontier, CommitRetry.DEFAULT, 4)) {
      assertThat(commit(committer, unit))
          .extracting(FakeCommitRequest::state)
          .containsExactly(FakeCommitRequest.State.PENDING);
    }
    assertThat(client.maxInFlight.get()).as("tables committing at once").isBetween(2, 4);
    assertThat(client.threads)
        .as("the pool's threads")
        .allMatch(t -> t.startsWith("delta-committer-"));
    // A tenant's own tables still commit one after the other, in path order.
    for (int t = 0; t < TENANTS; t++) {
      String tenant = tenant(t);
      assertThat(client.order.stream().filter(table -> table.prefix().equals(tenant)).toList())
          .containsExactly(
              TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS),
              TableId.of(tenant, TableKind.GOLD_LINEAGE),
              TableId.of(tenant, TableKind.SILVER_MEMORIES));
    }
    assertThat(frontier.reported()).containsExactly(END);
    assertEveryTableHoldsTheUnitOnce(lake);
  }

  @Test
  void oneFailingTableFailsTheUnitOnceTheTenantsInFlightEndedAndANewCommitterAppliesNothingTwice()
      throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    List<DeltaCommittable> unit = writeUnit(lake);
    TableId failing = TableId.of(tenant(5), TableKind.SILVER_MEMORIES);
    // A later tenant's first table is in flight when the failure comes, and ends after it.
    TableId inFlight = TableId.of(tenant(6), TableKind.BRONZE_JOURNAL_EVENTS);
    RecordingFrontier frontier = new RecordingFrontier();
    RecordingClient faulty = new RecordingClient(new KernelDeltaTableClient(lake), false);
    faulty.failing = failing;
    faulty.inFlightAtFailure = inFlight;
    try (DeltaCommitter committer = committer(faulty, frontier, CommitRetry.NONE, 4)) {
      List<FakeCommitRequest> requests = FakeCommitRequest.of(unit);
      // Flink's request throws on an unknown failure, which fails the job over.
      assertThatThrownBy(() -> committer.commit(FakeCommitRequest.asRequests(requests)))
          .hasRootCauseMessage("injected storage failure committing " + failing);
      assertThat(requests)
          .extracting(FakeCommitRequest::state)
          .containsExactly(FakeCommitRequest.State.FAILED_UNKNOWN);
    }
    assertThat(faulty.interrupted).as("tables interrupted mid-commit").isEmpty();
    assertThat(faulty.order)
        .as("the tenant in flight at the failure committed all its tables")
        .contains(
            inFlight,
            TableId.of(tenant(6), TableKind.GOLD_LINEAGE),
            TableId.of(tenant(6), TableKind.SILVER_MEMORIES));
    assertThat(frontier.reported()).as("no frontier before every table committed").isEmpty();
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.txnVersion(failing)).isEqualTo(DeltaTableClient.NO_VERSION);
    assertThat(faulty.order).as("other tables committed meanwhile").isNotEmpty();

    // After the failover, a new committer restored with the same committable replays it.
    RecordingFrontier after = new RecordingFrontier();
    RecordingClient replay = new RecordingClient(new KernelDeltaTableClient(lake), false);
    try (DeltaCommitter committer = committer(replay, after, CommitRetry.DEFAULT, 4)) {
      assertThat(commit(committer, unit))
          .extracting(FakeCommitRequest::state)
          .containsExactly(FakeCommitRequest.State.PENDING);
    }
    assertThat(after.reported()).containsExactly(END);
    assertThat(replay.outcomes.get(failing)).isEqualTo(CommitOutcome.COMMITTED);
    for (TableId table : faulty.order) {
      assertThat(replay.outcomes.get(table))
          .as(table + " committed before the failure")
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    assertEveryTableHoldsTheUnitOnce(lake);
  }

  @Test
  void atParallelismOneEveryTableCommitsOnTheCallersThreadInPathOrder() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    List<DeltaCommittable> unit = writeUnit(lake);
    RecordingClient client = new RecordingClient(new KernelDeltaTableClient(lake), false);
    RecordingFrontier frontier = new RecordingFrontier();
    try (DeltaCommitter committer = committer(client, frontier, CommitRetry.DEFAULT, 1)) {
      commit(committer, unit);
    }
    assertThat(client.threads).containsOnly(Thread.currentThread().getName());
    assertThat(client.maxInFlight.get()).isEqualTo(1);
    assertThat(client.order)
        .containsExactlyElementsOf(unit.get(0).tables().stream().map(TableCommit::table).toList());
    assertThat(frontier.reported()).containsExactly(END);
    assertEveryTableHoldsTheUnitOnce(lake);
  }

  private static DeltaCommitter committer(
      DeltaTableClient client, FrontierListener frontier, CommitRetry retry, int parallelism) {
    return new DeltaCommitter(
        client,
        frontier,
        null,
        retry,
        3,
        Clock.systemUTC(),
        Thread::sleep,
        CommitLease.NONE,
        CommitMetrics.none(),
        parallelism);
  }

  /** One unit of {@link #TENANTS} tenants, a bronze and a silver table each. */
  private static List<DeltaCommittable> writeUnit(LakeConfig lake) throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    long seq = 0;
    for (int t = 0; t < TENANTS; t++) {
      events.add(Events.journal(++seq, tenant(t)));
      events.add(Events.promote(++seq, tenant(t), "k" + t, 1, "body-" + t));
    }
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC())) {
      writer.write(new Batch(0, END, events), null);
      List<DeltaCommittable> unit = writer.prepareCommit();
      assertThat(unit).hasSize(1);
      assertThat(unit.get(0).tables()).hasSize(3 * TENANTS);
      return unit;
    }
  }

  private static List<FakeCommitRequest> commit(
      DeltaCommitter committer, List<DeltaCommittable> unit) throws Exception {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(unit);
    committer.commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  private void assertEveryTableHoldsTheUnitOnce(LakeConfig lake) throws IOException {
    LakeReader reader = LakeReader.open(lake);
    for (int t = 0; t < TENANTS; t++) {
      for (TableKind kind : List.of(TableKind.BRONZE_JOURNAL_EVENTS, TableKind.SILVER_MEMORIES)) {
        TableId table = TableId.of(tenant(t), kind);
        assertThat(reader.txnVersion(table)).as(table + " txn").isEqualTo(END);
        assertThat(dataCommits(table)).as(table + " data commits").isEqualTo(1);
      }
      assertThat(reader.rows(TableId.of(tenant(t), TableKind.BRONZE_JOURNAL_EVENTS))).hasSize(2);
      assertThat(reader.rows(TableId.of(tenant(t), TableKind.SILVER_MEMORIES))).hasSize(1);
    }
  }

  private long dataCommits(TableId table) throws IOException {
    try (Stream<Path> log = Files.list(dir.resolve(table.relativePath()).resolve("_delta_log"))) {
      return log.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .filter(n -> !n.equals("00000000000000000000.json"))
          .count();
    }
  }

  private static String tenant(int t) {
    return String.format("tenant%02d", t);
  }

  /**
   * Records each commit's table, thread and outcome and how many were in flight at once; with
   * {@code awaitOverlap}, a commit waits (up to 5 s) until another one is in flight, so that a
   * committer that commits in parallel shows it however fast the disk is. Fails every commit to
   * {@link #failing} with an {@link IOException}, as a storage outage of one table would; with an
   * {@link #inFlightAtFailure} table too, the failure waits until that table's commit started,
   * and that commit goes on 200 ms after the failure (tables interrupted meanwhile are recorded).
   */
  private static final class RecordingClient extends ForwardingDeltaTableClient {
    final List<TableId> order = new CopyOnWriteArrayList<>();
    final List<String> threads = Collections.synchronizedList(new ArrayList<>());
    final Map<TableId, CommitOutcome> outcomes = new ConcurrentHashMap<>();
    final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final boolean awaitOverlap;
    final List<TableId> interrupted = new CopyOnWriteArrayList<>();
    private final CountDownLatch inFlightStarted = new CountDownLatch(1);
    private final CountDownLatch failed = new CountDownLatch(1);
    volatile TableId failing;
    volatile TableId inFlightAtFailure;

    RecordingClient(DeltaTableClient delegate, boolean awaitOverlap) {
      super(delegate);
      this.awaitOverlap = awaitOverlap;
    }

    @Override
    public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
        throws IOException {
      return record(table, () -> delegate.commit(table, batchEnd, files));
    }

    @Override
    public CommitOutcome commitRewrite(
        TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
      return record(table, () -> delegate.commitRewrite(table, batchEnd, files, rewrite));
    }

    private CommitOutcome record(TableId table, CommitRetry.Call<CommitOutcome> call)
        throws IOException {
      threads.add(Thread.currentThread().getName());
      int now = inFlight.incrementAndGet();
      maxInFlight.accumulateAndGet(now, Math::max);
      try {
        if (awaitOverlap) {
          long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
          while (maxInFlight.get() < 2 && System.nanoTime() < deadline) {
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IOException("interrupted", e);
            }
          }
        }
        if (table.equals(failing)) {
          if (inFlightAtFailure != null) {
            awaitOrFail(table, inFlightStarted);
          }
          failed.countDown();
          throw new IOException("injected storage failure committing " + table);
        }
        if (table.equals(inFlightAtFailure)) {
          inFlightStarted.countDown();
          awaitOrFail(table, failed);
          await(table, new CountDownLatch(1), Duration.ofMillis(200)); // 200 ms, interruptibly
        }
        CommitOutcome outcome = call.run();
        outcomes.put(table, outcome);
        order.add(table);
        return outcome;
      } finally {
        inFlight.decrementAndGet();
      }
    }

    /** Waits up to {@code timeout} for {@code latch}; whether it opened. Records an interrupt. */
    private boolean await(TableId table, CountDownLatch latch, Duration timeout)
        throws IOException {
      try {
        return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        interrupted.add(table);
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted committing " + table);
      }
    }

    private void awaitOrFail(TableId table, CountDownLatch latch) throws IOException {
      if (!await(table, latch, Duration.ofSeconds(10))) {
        throw new IOException("timed out in the commit of " + table);
      }
    }
  }
}
