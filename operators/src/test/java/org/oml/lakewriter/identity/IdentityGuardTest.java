package org.oml.lakewriter.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.cut.BatchCutFunction;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.serde.StreamTypes;

/** The cut's state records the job's identity; a restore under another identity is refused. */
class IdentityGuardTest {
  static final JobIdentity A = new JobIdentity("7301", "oml", "slot_a", "w1", "file:///lake-a/");

  @Test
  void aRestoreUnderTheSameIdentityPasses() throws Exception {
    OperatorSubtaskState state = snapshotOf(A);

    try (var restored = harness(A, state)) {
      assertThat(restored.numKeyedStateEntries()).isZero();
    }
  }

  @Test
  void aRestoreAgainstAnotherDatabaseLakeOrWriterIsRefusedWithoutRestarts() throws Exception {
    OperatorSubtaskState state = snapshotOf(A);
    JobIdentity other = new JobIdentity("7302", "oml2", "slot_a", "w2", "file:///lake-b/");

    assertThatThrownBy(() -> harness(other, state))
        .isInstanceOf(SuppressRestartsException.class)
        .rootCause()
        .isInstanceOf(IdentityGuard.IdentityMismatchException.class)
        .hasMessageStartingWith("STATE_IDENTITY_MISMATCH")
        .hasMessageContaining("database: 'oml' of cluster 7301 vs 'oml2' of cluster 7302")
        .hasMessageContaining("writer.id: w1 vs w2")
        .hasMessageContaining("lake.root: file:///lake-a/ vs file:///lake-b/")
        .hasMessageContaining("--fresh");
  }

  @Test
  void stateFromBeforeTheGuardIsAcceptedAndThenRecorded() throws Exception {
    OperatorSubtaskState unguarded = snapshotOf(null);
    OperatorSubtaskState recorded;
    try (var restored = harness(A, unguarded)) {
      recorded = restored.snapshot(2, 2);
    }
    JobIdentity otherSlot = new JobIdentity("7301", "oml", "slot_b", "w1", "file:///lake-a/");

    assertThatThrownBy(() -> harness(otherSlot, recorded))
        .isInstanceOf(SuppressRestartsException.class)
        .rootCause()
        .hasMessageContaining("postgres.slot: slot_a vs slot_b");
  }

  private static OperatorSubtaskState snapshotOf(JobIdentity identity) throws Exception {
    try (var first = harness(identity, null)) {
      return first.snapshot(1, 1);
    }
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> harness(
      JobIdentity identity, OperatorSubtaskState restore) throws Exception {
    BatchCutFunction cut =
        new BatchCutFunction(10, 1 << 20, null, null, RetryBudget.DEFAULT).withIdentity(identity);
    var harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new KeyedProcessOperator<>(cut),
            (KeySelector<OutboxChange, String>) change -> "w1",
            Types.STRING);
    harness.setup(
        StreamTypes.BATCH.createSerializer(harness.getExecutionConfig().getSerializerConfig()));
    try {
      if (restore != null) {
        harness.initializeState(restore);
      }
      harness.open();
    } catch (Exception | Error e) {
      harness.close();
      throw e;
    }
    return harness;
  }
}
