package org.oml.lakewriter.cli.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketException;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.junit.jupiter.api.Test;

/** Item 12 of issue 17: only the aborts a stop causes are dropped, never a real failure. */
class StopSavepointNoiseFilterTest {
  @Test
  void dropsOnlyTheCheckpointAbortsOfAStop() {
    assertThat(StopSavepointNoiseFilter.isStopAbort(
            new CheckpointException(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SUSPEND)))
        .isTrue();
    assertThat(StopSavepointNoiseFilter.isStopAbort(new RuntimeException(
            new CheckpointException(CheckpointFailureReason.PERIODIC_SCHEDULER_SHUTDOWN))))
        .isTrue();
    for (CheckpointFailureReason real :
        new CheckpointFailureReason[] {
          CheckpointFailureReason.CHECKPOINT_EXPIRED,
          CheckpointFailureReason.CHECKPOINT_DECLINED,
          CheckpointFailureReason.IO_EXCEPTION,
          CheckpointFailureReason.TASK_FAILURE
        }) {
      assertThat(StopSavepointNoiseFilter.isStopAbort(new CheckpointException(real)))
          .as("%s", real)
          .isFalse();
    }
    assertThat(StopSavepointNoiseFilter.isStopAbort(null)).isFalse();
    assertThat(StopSavepointNoiseFilter.isClosedSocket(
            new IllegalStateException(new SocketException("Socket is closed"))))
        .isTrue();
    assertThat(StopSavepointNoiseFilter.isClosedSocket(new SocketException("Connection reset")))
        .isFalse();
    assertThat(StopSavepointNoiseFilter.isClosedSocket(
            new org.postgresql.util.PSQLException(
                "PGStream is closed", org.postgresql.util.PSQLState.CONNECTION_DOES_NOT_EXIST)))
        .isTrue();
    assertThat(StopSavepointNoiseFilter.isClosedSocket(
            new org.postgresql.util.PSQLException(
                "An I/O error occurred", org.postgresql.util.PSQLState.CONNECTION_FAILURE)))
        .isFalse();
  }
}
