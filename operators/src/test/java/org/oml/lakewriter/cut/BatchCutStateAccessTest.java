package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.oml.lakewriter.cut.CutHarness.Backend;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.testing.Events;

/**
 * The cut reads its buffer once per row it emits and never probes it (issue 12, the 1M-event
 * "slow mode": a {@code contains} per seq of the range, a {@code get} per row, a {@code contains}
 * before every {@code put}, and the progress read from state per element); with its row cache, it
 * reads back from state only the rows this run did not keep in heap, and writes a cached row to
 * state only if it is still buffered at a checkpoint (write-behind, stop 43). Counted through a
 * wrapper of the state handles, on both backends; no timing.
 */
class BatchCutStateAccessTest {
  private static final int ROWS = 2_000;

  @BeforeEach
  void reset() {
    CountingState.reset();
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void theCutReadsEachBufferedRowOnceAndProbesNothing(Backend backend) throws Exception {
    // Every third seq rolled back (a gap), the horizon far above the last row, a few redeliveries.
    long[] seqs = LongStream.rangeClosed(1, ROWS * 3 / 2).filter(s -> s % 3 != 0).toArray();
    try (CutHarness cut = CutHarness.open(function(0), backend, null)) {
      cut.rows(seqs);
      cut.rows(5, 7, 11);
      cut.horizon(10 * ROWS);
      List<Batch> batches = cut.newBatches();

      assertThat(rows(batches)).containsExactly(LongStream.of(seqs).boxed().toArray(Long[]::new));
      assertThat(CountingState.CONTAINS).as("contains() calls").hasValue(0);
      assertThat(CountingState.GETS).as("get() calls: one per emitted row").hasValue(seqs.length);
      assertThat(CountingState.PASSES).as("passes over the buffer: the one after open").hasValue(1);
      assertThat(CountingState.ENTRIES).as("entries iterated").hasValue(0);
      assertThat(CountingState.PUTS).as("put() calls: one per distinct row").hasValue(seqs.length);
      assertThat(CountingState.REMOVES).hasValue(seqs.length);
      assertThat(CountingState.PROGRESS_READS).as("progress reads: the one after open").hasValue(1);
      assertThat(CountingState.PROGRESS_WRITES).as("progress writes before a checkpoint").hasValue(0);
      cut.snapshot(1);
      assertThat(CountingState.PROGRESS_WRITES).as("the checkpoint writes it once").hasValue(1);
      assertThat(CountingState.PUTS).as("no row was deferred: none written again").hasValue(seqs.length);
    }
  }

  /**
   * With the cache, rows that arrive and are emitted between two checkpoints never touch state:
   * no get, no put, no remove; the batches are the same.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void aCachedCutWritesNothingToStateForRowsEmittedBeforeACheckpoint(Backend backend)
      throws Exception {
    long[] seqs = LongStream.rangeClosed(1, ROWS * 3 / 2).filter(s -> s % 3 != 0).toArray();
    try (CutHarness cut =
        CutHarness.open(function(BatchCutFunction.DEFAULT_ROW_CACHE_BYTES), backend, null)) {
      cut.rows(seqs);
      cut.rows(5, 7, 11);
      cut.horizon(10 * ROWS);

      assertThat(rows(cut.newBatches()))
          .containsExactly(LongStream.of(seqs).boxed().toArray(Long[]::new));
      assertThat(CountingState.GETS).as("get() calls").hasValue(0);
      assertThat(CountingState.PUTS).as("put() calls").hasValue(0);
      assertThat(CountingState.REMOVES).as("remove() calls").hasValue(0);
      assertThat(cut.counter("rowsWrittenToState")).isZero();
      assertThat(cut.gauge("bufferedRows")).isEqualTo(0);
    }
  }

  /**
   * A checkpoint writes exactly the rows buffered at that moment, once (a second checkpoint
   * writes nothing again); those rows are removed from state when they are emitted, and the rows
   * that arrive after the checkpoint and leave before the next one are never written.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void aCheckpointWritesTheBufferedRowsOnce(Backend backend) throws Exception {
    try (CutHarness cut =
        CutHarness.open(function(BatchCutFunction.DEFAULT_ROW_CACHE_BYTES), backend, null)) {
      cut.rows(1, 2, 3, 4, 6);
      cut.horizon(2);
      assertThat(rows(cut.newBatches())).containsExactly(1L, 2L);
      assertThat(CountingState.PUTS).hasValue(0);

      cut.snapshot(1);
      assertThat(CountingState.PUTS).as("3, 4 and 6, buffered at the checkpoint").hasValue(3);
      cut.snapshot(2);
      assertThat(CountingState.PUTS).as("nothing new at the second checkpoint").hasValue(3);
      assertThat(cut.counter("rowsWrittenToState")).isEqualTo(3);

      cut.rows(7, 8);
      cut.horizon(8);
      assertThat(rows(cut.newBatches())).containsExactly(3L, 4L, 6L, 7L, 8L);
      assertThat(CountingState.GETS).as("every row from the heap").hasValue(0);
      assertThat(CountingState.REMOVES).as("the three rows state held").hasValue(3);
      assertThat(CountingState.PUTS).as("7 and 8 left before a checkpoint").hasValue(3);
    }
  }

  /**
   * A full cache takes no more rows: those are read from state, and an emitted row frees its
   * bytes for the rows that come after it.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void rowsBeyondTheBudgetAreReadFromState(Backend backend) throws Exception {
    long rowBytes = RowCache.sizeOf(Events.journal(1).build());
    for (long seq = 2; seq <= 9; seq++) {
      // The budget below counts on rows of one size.
      assertThat(RowCache.sizeOf(Events.journal(seq).build())).isEqualTo(rowBytes);
    }
    try (CutHarness cut = CutHarness.open(function(3 * rowBytes), backend, null)) {
      cut.rows(1, 2, 3, 4, 5);
      assertThat(cut.gauge("rowCacheBytes")).isEqualTo(3 * rowBytes);
      cut.horizon(4);
      assertThat(rows(cut.newBatches())).containsExactly(1L, 2L, 3L, 4L);
      assertThat(CountingState.GETS).as("rows 4 and 5 did not fit; 4 was emitted").hasValue(1);

      cut.rows(6, 7, 8, 9);
      cut.horizon(9);
      assertThat(rows(cut.newBatches())).containsExactly(5L, 6L, 7L, 8L, 9L);
      assertThat(CountingState.GETS)
          .as("5 (never cached) and 9 (after 6, 7, 8 filled the freed budget)")
          .hasValue(3);
      assertThat(cut.counter("rowsReadFromState")).isEqualTo(3);
      assertThat(cut.gauge("rowCacheBytes")).isZero();
      assertThat(CountingState.PUTS).as("4, 5 and 9, which did not fit, written on arrival").hasValue(3);
      assertThat(cut.counter("rowsWrittenToState")).isEqualTo(3);
    }
  }

  /**
   * After a restore the new function reads the progress and the buffer's keys from state once,
   * and the restored rows from state: the cache of the run before is gone with it. The rows the
   * run before held only in heap were written at its checkpoint, so the restore has them.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void aRestoredCutReadsItsStateOnceAndCutsTheRestoredRows(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness before =
        CutHarness.open(function(BatchCutFunction.DEFAULT_ROW_CACHE_BYTES), backend, null)) {
      before.rows(1, 2, 3, 4, 6);
      before.horizon(2);
      assertThat(rows(before.newBatches())).containsExactly(1L, 2L);
      snapshot = before.snapshot(1);
      assertThat(CountingState.PUTS).as("3, 4 and 6, written at the checkpoint").hasValue(3);
    }
    CountingState.reset();
    try (CutHarness after =
        CutHarness.open(function(BatchCutFunction.DEFAULT_ROW_CACHE_BYTES), backend, snapshot)) {
      after.rows(3, 4, 7); // 3 and 4 redelivered: held already
      after.horizon(6);
      assertThat(rows(after.newBatches())).containsExactly(3L, 4L, 6L);
      assertThat(after.gauge("bufferedRows")).isEqualTo(1);
      after.horizon(7);
      assertThat(rows(after.newBatches())).containsExactly(7L);
      assertThat(CountingState.PROGRESS_READS).hasValue(1);
      assertThat(CountingState.CONTAINS).hasValue(0);
      assertThat(CountingState.PASSES).as("the keys, once, to rebuild the index").hasValue(1);
      assertThat(CountingState.GETS).as("the restored rows 3, 4 and 6; 7 from the cache").hasValue(3);
      assertThat(after.counter("rowsReadFromState")).isEqualTo(3);
      assertThat(CountingState.PUTS).as("7, the one new row, left before a checkpoint").hasValue(0);
    }
  }

  private static BatchCutFunction function(long rowCacheBytes) {
    return new BatchCutFunction(100, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 1_000)
        .withRowCache(rowCacheBytes)
        .withStateView(new CountingState());
  }

  private static List<Long> rows(List<Batch> batches) {
    List<Long> seqs = new ArrayList<>();
    for (Batch b : batches) {
      for (OutboxEvent e : b.events()) {
        seqs.add(e.seq());
      }
    }
    return seqs;
  }
}
