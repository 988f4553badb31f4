package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.cdc.SlotInvalidatedException;

/** How {@code run} reports a job that ended for good: by the named error, not Flink's trace. */
class RunFailureTest {
  private static final SlotInvalidatedException INVALID =
      new SlotInvalidatedException("s1", "lost", "wal_removed");

  @Test
  void anInvalidatedSlotDeepInTheCauseChainIsAConfigErrorWithItsMessage() {
    Exception failure =
        new ExecutionException(
            new RuntimeException("Job failed", new SuppressRestartsException(INVALID)));

    Exception named = RunCommand.namedFailure(failure);

    assertThat(named).isInstanceOf(ConfigException.class);
    assertThat(named.getMessage())
        .startsWith("SLOT_INVALIDATED: replication slot 's1' (postgres.slot)")
        .contains("invalidation_reason wal_removed")
        .contains("--accept-lost-slot");
  }

  @Test
  void theMessageIsFoundWhenFlinkHandsTheCauseOverSerialized() {
    Exception failure =
        new ExecutionException(
            new RuntimeException("Job failed", new SerializedThrowable(INVALID)));

    Exception named = RunCommand.namedFailure(failure);

    assertThat(named).isInstanceOf(ConfigException.class);
    assertThat(named.getMessage()).startsWith("SLOT_INVALIDATED: replication slot 's1'");
  }

  @Test
  void anyOtherFailureIsLeftAsItIs() {
    Exception failure = new ExecutionException(new IllegalStateException("boom"));

    assertThat(RunCommand.namedFailure(failure)).isSameAs(failure);
  }
}
