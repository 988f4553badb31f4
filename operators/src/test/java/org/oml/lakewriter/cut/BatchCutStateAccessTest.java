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

/**
 * The cut reads its buffer once per row it emits and never probes it (issue 12, the 1M-event
 * "slow mode": a {@code contains} per seq of the range, a {@code get} per row, a {@code contains}
 * before every {@code put}, and the progress read from state per element). Counted through a
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
    try (CutHarness cut = CutHarness.open(function(), backend, null)) {
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
      assertThat(CountingState.PROGRESS_WRITES)
          .as("progress writes: one per fresh row, one per cut")
          .hasValue(seqs.length + 1);
    }
  }

  /** After a restore the new function reads the progress and the buffer's keys from state once. */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void aRestoredCutReadsItsStateOnceAndCutsTheRestoredRows(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness before = CutHarness.open(function(), backend, null)) {
      before.rows(1, 2, 3, 4, 6);
      before.horizon(2);
      assertThat(rows(before.newBatches())).containsExactly(1L, 2L);
      snapshot = before.snapshot(1);
    }
    CountingState.reset();
    try (CutHarness after = CutHarness.open(function(), backend, snapshot)) {
      after.rows(3, 4, 7); // 3 and 4 redelivered: held already
      after.horizon(6);
      assertThat(rows(after.newBatches())).containsExactly(3L, 4L, 6L);
      assertThat(after.gauge("bufferedRows")).isEqualTo(1);
      after.horizon(7);
      assertThat(rows(after.newBatches())).containsExactly(7L);
      assertThat(CountingState.PROGRESS_READS).hasValue(1);
      assertThat(CountingState.CONTAINS).hasValue(0);
      assertThat(CountingState.PASSES).as("the keys, once, to rebuild the index").hasValue(1);
      assertThat(CountingState.GETS).hasValue(4);
      assertThat(CountingState.PUTS).as("only row 7 is new").hasValue(1);
    }
  }

  private static BatchCutFunction function() {
    return new BatchCutFunction(100, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 1_000)
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
