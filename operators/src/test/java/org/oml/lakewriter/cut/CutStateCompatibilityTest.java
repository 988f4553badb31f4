package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.oml.lakewriter.cut.CutHarness.Backend;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.serde.StreamTypes;
import org.oml.lakewriter.testing.Events;

/**
 * State written by the cut before issue 12 ({@link LegacyBatchCutFunction}, the same state names
 * and serializers) restores into the current cut, which rebuilds its seq index from it and cuts
 * exactly what the old cut would have cut from the same snapshot. The job's operator for the cut
 * ({@link CutOperator}, write-behind) restores a snapshot of the plain keyed operator, and its own
 * snapshots, with the rows it held only in heap written at the checkpoint, restore into the old
 * cut on the plain operator: a rollback to the build before.
 */
class CutStateCompatibilityTest {
  @ParameterizedTest
  @EnumSource(Backend.class)
  void anOldCutsStateRestoresIntoTheNewCut(Backend backend) throws Exception {
    OperatorSubtaskState snapshot = firstRun(legacy(), backend);
    List<String> byOld;
    try (var old = harness(legacy(), backend, snapshot)) {
      byOld = continueCut(old);
    }
    List<String> byNew;
    try (var now = harness(current(), backend, snapshot)) {
      byNew = continueCut(now);
    }
    assertThat(byNew).isEqualTo(byOld).containsExactly(
        "(6,8] 7 8", "(8,10] 9 10", "(10,30] 12", "(30,40] 40");
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void theWriteBehindCutsSnapshotRestoresIntoTheOldCut(Backend backend) throws Exception {
    OperatorSubtaskState snapshot = firstRun(current(), backend);
    try (var old = harness(legacy(), backend, snapshot)) {
      assertThat(continueCut(old))
          .containsExactly("(6,8] 7 8", "(8,10] 9 10", "(10,30] 12", "(30,40] 40");
    }
  }

  /** Two batches cut, rows above the horizon held; the snapshot taken then. */
  private static OperatorSubtaskState firstRun(
      KeyedProcessFunction<String, OutboxChange, Batch> cut, Backend backend) throws Exception {
    try (var h = harness(cut, backend, null)) {
      feed(h, 1, 2, 3, 5, 8, 12, 40);
      h.processElement(horizon(6), 100);
      assertThat(shapes(h)).containsExactly("(0,2] 1 2", "(2,6] 3 5");
      feed(h, 7, 9);
      return h.snapshot(1, 200);
    }
  }

  private static List<String> continueCut(
      KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> h) throws Exception {
    feed(h, 4, 6, 10, 9); // 4 and 6 were cut before the snapshot; 9 is held already
    h.processElement(horizon(30), 300);
    h.processElement(horizon(40), 301);
    return shapes(h);
  }

  private static KeyedProcessFunction<String, OutboxChange, Batch> legacy() {
    return new LegacyBatchCutFunction(
        2, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, Integer.MAX_VALUE);
  }

  private static KeyedProcessFunction<String, OutboxChange, Batch> current() {
    return new BatchCutFunction(2, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, Integer.MAX_VALUE);
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> harness(
      KeyedProcessFunction<String, OutboxChange, Batch> function,
      Backend backend,
      OperatorSubtaskState restore)
      throws Exception {
    var h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            function instanceof BatchCutFunction cut
                ? new CutOperator(cut)
                : new KeyedProcessOperator<>(function),
            (KeySelector<OutboxChange, String>) change -> CutHarness.WRITER,
            Types.STRING);
    h.setStateBackend(backend.create());
    h.setup(StreamTypes.BATCH.createSerializer(h.getExecutionConfig().getSerializerConfig()));
    if (restore != null) {
      h.initializeState(restore);
    }
    h.open();
    return h;
  }

  private static HorizonUpdate horizon(long stable) {
    return new HorizonUpdate(CutHarness.WRITER, stable, stable + 5, 0, false);
  }

  private static void feed(
      KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> h, long... seqs)
      throws Exception {
    for (long seq : seqs) {
      h.processElement(Events.journal(seq).build(), seq);
    }
  }

  /** The batches emitted since the last call, as "(frontier,end] seqs...". */
  private static List<String> shapes(
      KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> h) {
    List<String> out = new ArrayList<>();
    for (Object o : h.getOutput()) {
      if (o instanceof StreamRecord<?> r && r.getValue() instanceof Batch b) {
        StringBuilder s = new StringBuilder("(" + b.frontier() + "," + b.batchEnd() + "]");
        for (OutboxEvent e : b.events()) {
          s.append(' ').append(e.seq());
        }
        out.add(s.toString());
      }
    }
    h.getOutput().clear();
    return out;
  }
}
