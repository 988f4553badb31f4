package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.oml.lakewriter.cut.CutHarness.Backend;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.Events;

class BatchCutFunctionTest {
  private static final int NO_ROW_CAP = Integer.MAX_VALUE;
  private static final long NO_BYTE_CAP = Long.MAX_VALUE;

  @Test
  void buffersRowsUntilAStreamedHorizon() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(1, 2, 3);

      assertThat(cut.newBatches()).isEmpty();
      assertThat(cut.gauge("bufferedRows")).isEqualTo(3);

      cut.horizon(3);

      List<Batch> batches = cut.newBatches();
      assertThat(shapes(batches)).containsExactly("(0,3] 1 2 3");
      assertThat(batches.get(0).events())
          .containsExactly(
              Events.journal(1).build(), Events.journal(2).build(), Events.journal(3).build());
      assertThat(cut.gauge("frontier")).isEqualTo(3);
      assertThat(cut.gauge("horizon")).isEqualTo(3);
      assertThat(cut.gauge("bufferedRows")).isZero();
      assertThat(cut.counter("batchesCut")).isEqualTo(1);
    }
  }

  @Test
  void aHorizonReadInTheSnapshotPhaseNeverCuts() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(1, 2);
      cut.snapshotHorizon(2);
      cut.snapshotHorizon(100);

      assertThat(cut.newBatches()).isEmpty();
      assertThat(cut.gauge("horizon")).isZero();

      cut.horizon(2);

      // The snapshot's 100 was never taken as the horizon: the cut ends at the streamed 2.
      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2");
    }
  }

  @Test
  void aHorizonThatDoesNotRiseDoesNotCut() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.horizon(5);
      cut.newBatches();
      cut.rows(6);

      cut.horizon(5);
      cut.horizon(4);
      assertThat(cut.newBatches()).isEmpty();

      cut.horizon(6);
      assertThat(shapes(cut.newBatches())).containsExactly("(5,6] 6");
    }
  }

  @Test
  void anUncappedBatchEndsAtTheHorizonSteppingOverGaps() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(2, 4, 9);

      cut.horizon(7);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,7] 2 4");
      assertThat(cut.gauge("bufferedRows")).as("row 9 waits above the horizon").isEqualTo(1);
    }
  }

  @Test
  void aHorizonOverOnlyGapsEmitsAnEmptyBatchThatAdvancesTheFrontier() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.horizon(5);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,5]");
      assertThat(cut.gauge("frontier")).isEqualTo(5);

      cut.rows(6);
      cut.horizon(6);
      assertThat(shapes(cut.newBatches())).containsExactly("(5,6] 6");
    }
  }

  @Test
  void theRowCapEndsABatchAtItsLastRow() throws Exception {
    try (CutHarness cut = CutHarness.open(3, NO_BYTE_CAP)) {
      cut.rows(1, 2, 3, 4, 5, 6, 7);
      cut.horizon(10);

      assertThat(shapes(cut.newBatches()))
          .containsExactly("(0,3] 1 2 3", "(3,6] 4 5 6", "(6,10] 7");
    }
    try (CutHarness cut = CutHarness.open(3, NO_BYTE_CAP)) {
      cut.rows(1, 2, 3, 4, 5, 6);
      cut.horizon(10);

      // The batch that takes the last row below the horizon ends at the horizon.
      assertThat(shapes(cut.newBatches())).containsExactly("(0,3] 1 2 3", "(3,10] 4 5 6");
    }
  }

  @Test
  void theByteCapEndsABatchAtTheRowThatReachesIt() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, 1_000)) {
      for (long seq = 2; seq <= 10; seq += 2) {
        cut.row(Events.sized(seq, 400));
      }
      cut.horizon(12);

      // 400 + 400 = 800 is below the cap, so row 6 still goes in; 1,200 then ends the batch.
      assertThat(shapes(cut.newBatches())).containsExactly("(0,6] 2 4 6", "(6,12] 8 10");
    }
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, 1_000)) {
      for (long seq = 1; seq <= 3; seq++) {
        cut.row(Events.sized(seq, 500));
      }
      cut.horizon(3);

      // Exactly at the cap is at the cap: 500 + 500 ends the batch.
      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2", "(2,3] 3");
    }
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, 1_000)) {
      cut.row(Events.sized(1, 5_000));
      cut.row(Events.sized(2, 100));
      cut.horizon(3);

      assertThat(shapes(cut.newBatches()))
          .as("a row over the cap is a batch of its own")
          .containsExactly("(0,1] 1", "(1,3] 2");
    }
  }

  @Test
  void batchesAreContiguousCappedAndNeverPassTheHorizon() throws Exception {
    int maxRows = 4;
    long maxBytes = 1_500;
    Random random = new Random(20_240_601);
    TreeMap<Long, OutboxEvent> sent = new TreeMap<>();
    List<OutboxEvent> emitted = new ArrayList<>();
    try (CutHarness cut = CutHarness.open(maxRows, maxBytes)) {
      long seq = 0;
      long horizon = 0;
      long frontier = 0;
      for (int round = 0; round < 40; round++) {
        for (int i = random.nextInt(12); i > 0; i--) {
          seq += 1 + random.nextInt(3); // skipped seqs are rolled back
          OutboxEvent row = Events.sized(seq, 100 + random.nextInt(900));
          sent.put(seq, row);
          cut.row(row);
        }
        horizon = Math.max(horizon, seq - random.nextInt(4)); // the newest may still be open
        cut.horizon(horizon);

        List<Batch> batches = cut.newBatches();
        for (int i = 0; i < batches.size(); i++) {
          Batch b = batches.get(i);
          assertThat(b.frontier()).as("contiguous").isEqualTo(frontier);
          assertThat(b.batchEnd()).isLessThanOrEqualTo(horizon);
          assertThat(b.events()).hasSizeLessThanOrEqualTo(maxRows);
          long bytesBeforeLast =
              b.events().stream()
                  .limit(Math.max(0, b.events().size() - 1))
                  .mapToLong(OutboxEvent::estimatedBytes)
                  .sum();
          assertThat(bytesBeforeLast).isLessThan(maxBytes);
          if (i < batches.size() - 1) {
            long bytes = b.events().stream().mapToLong(OutboxEvent::estimatedBytes).sum();
            assertThat(b.events().size() == maxRows || bytes >= maxBytes)
                .as("only a cap ends a batch early: %s", b)
                .isTrue();
            assertThat(b.batchEnd()).isEqualTo(b.events().get(b.events().size() - 1).seq());
          } else {
            assertThat(b.batchEnd()).isEqualTo(horizon);
          }
          emitted.addAll(b.events());
          frontier = b.batchEnd();
        }
        assertThat(frontier).isEqualTo(horizon);
      }
      assertThat(emitted).containsExactlyElementsOf(sent.headMap(horizon, true).values());
      assertThat(cut.gauge("bufferedRows")).isEqualTo(sent.tailMap(horizon, false).size());
    }
  }

  @Test
  void aRowAtOrBelowTheFrontierIsNotEmittedAgain() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(1, 2, 3);
      cut.horizon(3);
      cut.newBatches();

      cut.rows(2, 3, 4); // CDC replays a transaction after a restore
      cut.horizon(5);

      assertThat(shapes(cut.newBatches())).containsExactly("(3,5] 4");
      assertThat(cut.counter("rowsBehindFrontier")).isEqualTo(2);
      assertThat(cut.gauge("bufferedRows")).isZero();
    }
  }

  @Test
  void aRedeliveredRowAboveTheFrontierIsHeldOnce() throws Exception {
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(1, 2, 1);

      assertThat(cut.gauge("bufferedRows")).isEqualTo(2);
      cut.horizon(2);
      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2");
      assertThat(cut.gauge("bufferedRows")).isZero();
    }
  }

  @Test
  void outOfOrderArrivalComesOutSortedAndCutsAsInOrderArrival() throws Exception {
    List<Long> seqs =
        LongStream.rangeClosed(1, 60).filter(s -> s % 7 != 0).boxed().collect(Collectors.toList());
    List<Long> shuffled = new ArrayList<>(seqs);
    Collections.shuffle(shuffled, new Random(42));
    assertThat(shuffled).isNotEqualTo(seqs);

    List<Batch> inOrder = cutAll(seqs, 64);
    List<Batch> outOfOrder = cutAll(shuffled, 64);

    assertThat(outOfOrder).isEqualTo(inOrder);
    assertThat(outOfOrder.stream().flatMap(b -> b.events().stream()).map(OutboxEvent::seq))
        .containsExactlyElementsOf(seqs);
    assertThat(shapes(outOfOrder)).hasSize(8).startsWith("(0,8] 1 2 3 4 5 6 8");
  }

  private static List<Batch> cutAll(List<Long> seqs, long horizon) throws Exception {
    try (CutHarness cut = CutHarness.open(7, NO_BYTE_CAP)) {
      for (long seq : seqs) {
        cut.rows(seq);
      }
      cut.horizon(horizon);
      return cut.newBatches();
    }
  }

  /**
   * 10,000 - 0 > 4 * 3 + 1,024 takes the pass over the buffer; 2,500 more rows above the horizon
   * make the same range dense enough for point lookups. Both must cut alike.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void theSparsePathCutsLikeTheDensePath(Backend backend) throws Exception {
    List<String> sparse;
    List<String> dense;
    try (CutHarness cut = CutHarness.open(2, NO_BYTE_CAP, backend)) {
      cut.rows(9_000, 1, 5_000);
      cut.rows(20_000); // above the horizon: the pass over the buffer must leave it
      cut.horizon(10_000);
      sparse = shapes(cut.newBatches());

      cut.horizon(20_000);
      assertThat(shapes(cut.newBatches())).containsExactly("(10000,20000] 20000");
    }
    try (CutHarness cut = CutHarness.open(2, NO_BYTE_CAP, backend)) {
      cut.rows(9_000, 1, 5_000);
      cut.rows(LongStream.rangeClosed(20_001, 22_500).toArray());
      cut.horizon(10_000);
      dense = shapes(cut.newBatches());
      assertThat(cut.gauge("bufferedRows")).isEqualTo(2_500);
    }

    assertThat(sparse).containsExactly("(0,5000] 1 5000", "(5000,10000] 9000");
    assertThat(dense).isEqualTo(sparse);
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aRestoreContinuesExactlyWhereTheCutLeftOff(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness before = CutHarness.open(2, NO_BYTE_CAP, backend)) {
      before.rows(1, 2, 3, 5, 8, 12);
      before.horizon(6);
      assertThat(shapes(before.newBatches())).containsExactly("(0,2] 1 2", "(2,6] 3 5");
      before.rows(7, 9);
      snapshot = before.snapshot(1);
    }

    List<String> first = continueAfterRestore(backend, snapshot);
    List<String> replay = continueAfterRestore(backend, snapshot);

    // 4,994 > 4 * 6 + 1,024: the restored buffer is read by the pass over its keys.
    assertThat(first)
        .containsExactly("(6,8] 7 8", "(8,10] 9 10", "(10,5000] 12", "(5000,6000] 6000");
    assertThat(replay).as("a second restore repeats the same cut").isEqualTo(first);
  }

  private static List<String> continueAfterRestore(Backend backend, OperatorSubtaskState snapshot)
      throws Exception {
    try (CutHarness after = CutHarness.restore(2, NO_BYTE_CAP, backend, snapshot)) {
      assertThat(after.newBatches()).as("nothing is emitted again on restore").isEmpty();
      after.rows(4, 6, 10, 6_000); // 4 and 6 were cut before the snapshot
      after.horizon(5_000);
      List<String> shapes = new ArrayList<>(shapes(after.newBatches()));
      assertThat(after.counter("rowsBehindFrontier")).isEqualTo(2);
      assertThat(after.gauge("frontier")).isEqualTo(5_000);
      assertThat(after.gauge("bufferedRows")).isEqualTo(1);
      after.horizon(6_000);
      shapes.addAll(shapes(after.newBatches()));
      return shapes;
    }
  }

  @Test
  void rowsWithAnErrorStayInTheirBatchAndGoToTheDeadLetters() throws Exception {
    OutboxEvent poison =
        Events.journal(2).error(new RowError(ErrorClass.UNKNOWN_KIND, "unknown kind")).build();
    try (CutHarness cut = CutHarness.open(NO_ROW_CAP, NO_BYTE_CAP)) {
      cut.rows(1);
      cut.row(poison);
      cut.rows(3);

      assertThat(cut.deadLetters()).as("nothing leaves before its batch is cut").isEmpty();
      cut.horizon(3);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,3] 1 2 3");
      assertThat(cut.deadLetters()).containsExactly(poison);
    }
  }

  @Test
  void refusesCapsThatAreNotPositive() {
    assertThatThrownBy(() -> new BatchCutFunction(0, 1, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BatchCutFunction(1, 0, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** A batch as {@code "(frontier,end] seq seq ..."}: a failure shows the whole cut at a glance. */
  private static List<String> shapes(List<Batch> batches) {
    return batches.stream()
        .map(
            b ->
                ("("
                        + b.frontier()
                        + ","
                        + b.batchEnd()
                        + "] "
                        + b.events().stream()
                            .map(e -> Long.toString(e.seq()))
                            .collect(Collectors.joining(" ")))
                    .trim())
        .collect(Collectors.toList());
  }
}
