package org.oml.lakewriter.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;

/** Which tables the committer compacts after a checkpoint, in which order, within the budget. */
class CompactionSchedulerTest {
  private static final CompactionPolicy POLICY =
      new CompactionPolicy(true, 3, 100, 1000, Duration.ofMillis(10));
  private static final TableId A = TableId.of("a", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId B = TableId.of("b", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId C = TableId.of("c", TableKind.BRONZE_JOURNAL_EVENTS);

  /** Small files per table; each compaction leaves one; every call advances the clock 6 ms. */
  private final Map<TableId, Integer> small = new LinkedHashMap<>();

  private final List<TableId> compacted = new ArrayList<>();
  /** A table's compaction commit fails with this, once. */
  private final Map<TableId, IOException> failOnce = new LinkedHashMap<>();
  /** A table's compaction commit finds its files replaced first (commits nothing), once. */
  private final Set<TableId> raceLostOnce = new java.util.HashSet<>();
  private final AtomicLong now = new AtomicLong();

  private final ForwardingDeltaTableClient client =
      new ForwardingDeltaTableClient(null) {
        @Override
        public LiveFiles smallFiles(TableId table, long maxBytes) {
          Map<String, DataFile> files = new LinkedHashMap<>();
          for (int i = 0; i < small.getOrDefault(table, 0); i++) {
            files.put("f" + i, new DataFile("f" + i, 10, i, null));
          }
          return new LiveFiles(new SnapshotId(1, 1), files);
        }

        @Override
        public List<TableRow> readDataFile(TableId table, DataFile file) {
          return List.of();
        }

        @Override
        public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) {
          return List.of(new DataFile("out", 30, 0, null));
        }

        @Override
        public boolean commitCompaction(TableId table, List<DataFile> removes, List<DataFile> adds)
            throws IOException {
          IOException failure = failOnce.remove(table);
          if (failure != null) {
            throw failure;
          }
          if (raceLostOnce.remove(table)) {
            return false;
          }
          now.addAndGet(6_000_000);
          compacted.add(table);
          small.put(table, 1);
          return true;
        }
      };

  private CompactionScheduler scheduler(CompactionGuard guard) {
    return new CompactionScheduler(
        new TableCompactor(client, POLICY, guard), POLICY, guard, now::get);
  }

  /** A scheduler whose writer wrote a unit, and the tables with 5 small files each, all due. */
  private CompactionScheduler withDue(TableId... tables) {
    CompactionGuard guard = CompactionGuard.unshared();
    CompactionScheduler scheduler = scheduler(guard);
    guard.unitWritten();
    for (TableId table : tables) {
      small.put(table, 5);
      scheduler.committed(table, 1);
    }
    return scheduler;
  }

  @Test
  void idleTablesGoFirstAndTheBudgetEndsTheRound() {
    CompactionScheduler scheduler = withDue(A, B, C);

    // A was touched by this checkpoint: B and C (idle) first; the budget (10 ms) ends the round
    // after two compactions of 6 ms each, and A waits.
    scheduler.afterCheckpoint(Set.of(A), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(B, C);

    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(B, C, A);
  }

  @Test
  void aTableIsCheckedAgainOnlyOnceItsEstimateReachesMinFiles() {
    CompactionGuard guard = CompactionGuard.unshared();
    CompactionScheduler scheduler = scheduler(guard);
    guard.unitWritten();
    small.put(A, 5);
    scheduler.committed(A, 1);
    scheduler.afterCheckpoint(Set.of(A), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(A);

    // One small file left, which the size tier leaves out on its own (the estimate counts 0); two
    // more commits make an estimate of two, below min-files 3: not even looked at.
    for (int files = 2; files <= 3; files++) {
      scheduler.committed(A, 1);
      small.put(A, files);
      scheduler.afterCheckpoint(Set.of(A), TableCompactor.IoCheck.NONE);
      assertThat(compacted).containsExactly(A);
    }
    scheduler.committed(A, 1);
    small.put(A, 4);
    scheduler.afterCheckpoint(Set.of(A), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(A, A);
  }

  @Test
  void anInterruptedCompactionEndsTheRoundAndItsTableStaysDue() {
    CompactionScheduler scheduler = withDue(A, B, C);
    failOnce.put(
        A,
        new IOException("storage failure", new InterruptedIOException("Thread was interrupted")));

    try {
      scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
      // B and C are not tried: they would be interrupted too. The flag is set again for the task.
      assertThat(compacted).isEmpty();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }

    // All three stayed due: the next round starts again from A (and its budget ends it after B).
    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(A, B);
  }

  @Test
  void aTimeoutIsAStorageFailureNotAnInterrupt() {
    CompactionScheduler scheduler = withDue(A, B);
    failOnce.put(A, new IOException("storage failure", new SocketTimeoutException("read")));

    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);

    // COMPACTION_FAILED for A (tried again later), and the round goes on to B.
    assertThat(compacted).containsExactly(B);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  /** Restored committables are committed before the writer gets a batch: no compaction then. */
  @Test
  void nothingIsCompactedBeforeTheWriterOfThisAttemptWroteAUnit() {
    CompactionGuard guard = CompactionGuard.unshared();
    guard.unitWritten(); // a unit of an earlier attempt, in the same class loader
    CompactionScheduler scheduler = scheduler(guard);
    small.put(A, 5);
    scheduler.committed(A, 1);
    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
    assertThat(compacted).isEmpty();
    guard.unitWritten();
    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
    assertThat(compacted).containsExactly(A);
  }

  @Test
  void filesOfAPlannedRewriteAreLeftAloneUntilItsBatchIsInTheTable() throws Exception {
    CompactionGuard guard = CompactionGuard.unshared();
    small.put(A, 3);
    guard.planned(A, 5, List.of(new DataFile("f1", 10, 1, null)));
    TableCompactor compactor = new TableCompactor(client, POLICY, guard);
    // The table's txn version (1) is below the rewrite's batch (5): only 2 files are free.
    assertThat(compactor.compact(A, TableCompactor.IoCheck.NONE).compacted()).isFalse();
    assertThat(guard.pendingRemovals(A, 5)).isEmpty();
  }

  @Test
  void theStatsCountCommitsAbandonedAndFailedCompactionsAndKeepABoundedTail() {
    CompactionScheduler scheduler = withDue(A, B, C);
    failOnce.put(A, new IOException("storage failure"));
    raceLostOnce.add(B);

    // 10 ms budget, 6 ms a commit: A fails and B loses its race at no clock cost, C commits.
    scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);

    CompactionStats stats = scheduler.stats();
    assertThat(compacted).containsExactly(C);
    assertThat(stats.rounds()).isEqualTo(1);
    assertThat(stats.failures()).isEqualTo(1);
    assertThat(stats.abandoned()).isEqualTo(1);
    assertThat(stats.commits()).isEqualTo(1);
    assertThat(stats.filesRemoved()).isEqualTo(5);
    assertThat(stats.recent())
        .extracting(TableCompactor.Result::table, TableCompactor.Result::abandoned)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(B, true),
            org.assertj.core.groups.Tuple.tuple(C, false));

    // A job compacts for months: the tail is bounded, the counters are not.
    int rounds = CompactionStats.RECENT + 10;
    for (int i = 0; i < rounds; i++) {
      small.put(A, 5);
      scheduler.committed(A, 5);
      scheduler.afterCheckpoint(Set.of(), TableCompactor.IoCheck.NONE);
    }
    assertThat(stats.commits()).isEqualTo(1 + rounds);
    assertThat(stats.recent()).hasSize(CompactionStats.RECENT);
    assertThat(stats.recent().get(CompactionStats.RECENT - 1).table()).isEqualTo(A);
  }
}
