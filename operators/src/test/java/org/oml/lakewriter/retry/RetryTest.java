package org.oml.lakewriter.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.SerdeChecks;

class RetryTest {
  private static final RetryBudget BUDGET =
      new RetryBudget(4, Duration.ofSeconds(10), Duration.ofMillis(300), Duration.ofSeconds(1));

  static final RetryState STORED_V1 =
      new RetryState(ErrorClass.UNKNOWN_DATA_KEY, "dk-1", 2, 1_000, 1_300, 1_900);

  static final String STORED_V1_HEX =
      "00000010554e4b4e4f574e5f444154415f4b455900000004646b2d3100000002"
          + "00000000000003e80000000000000514000000000000076c";

  @Test
  void backOffDoublesUpToTheCap() {
    assertThat(BUDGET.backoffMillis(1)).isEqualTo(300);
    assertThat(BUDGET.backoffMillis(2)).isEqualTo(600);
    assertThat(BUDGET.backoffMillis(3)).isEqualTo(1_000);
    assertThat(BUDGET.backoffMillis(60)).isEqualTo(1_000);
  }

  @Test
  void theStateCountsAttemptsAndKeepsTheFirstFailure() {
    RowError down = new RowError(ErrorClass.DEPENDENCY_UNAVAILABLE, "timeout");
    RetryState first = RetryState.failed(null, down, 5_000, BUDGET);
    RetryState second = RetryState.failed(first, down, 5_300, BUDGET);

    assertThat(first).isEqualTo(new RetryState(down.errorClass(), "timeout", 1, 5_000, 5_000, 5_300));
    assertThat(second).isEqualTo(new RetryState(down.errorClass(), "timeout", 2, 5_000, 5_300, 5_900));
    assertThat(BUDGET.isExhausted(second)).isFalse();
    RowError dead = second.toDeadLetter();
    assertThat(dead.attempts()).isEqualTo(2);
    assertThat(dead.firstFailureMicros()).isEqualTo(5_000_000);
    assertThat(dead.lastFailureMicros()).isEqualTo(5_300_000);
  }

  @Test
  void theBudgetEndsAtTheAttemptLimitOrTheDuration() {
    assertThat(BUDGET.isExhausted(new RetryState(ErrorClass.UNKNOWN_DATA_KEY, "m", 4, 0, 10, 0)))
        .isTrue();
    assertThat(BUDGET.isExhausted(new RetryState(ErrorClass.UNKNOWN_DATA_KEY, "m", 2, 0, 10_000, 0)))
        .isTrue();
    assertThat(BUDGET.isExhausted(new RetryState(ErrorClass.UNKNOWN_DATA_KEY, "m", 3, 0, 9_999, 0)))
        .isFalse();
  }

  @Test
  void refusesABudgetThatCannotWork() {
    assertThatThrownBy(() -> new RetryBudget(0, Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(1)))
        .hasMessageContaining("max attempts");
    assertThatThrownBy(
            () -> new RetryBudget(3, Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("back-off");
  }

  @Test
  void theSerializerReadsBytesStoredByVersion1() throws IOException {
    RetryStateSerializer serializer = new RetryStateSerializer();

    assertThat(serializer.deserialize(1, hex(STORED_V1_HEX))).isEqualTo(STORED_V1);
    assertThat(serializer.serialize(STORED_V1)).isEqualTo(hex(STORED_V1_HEX));
    assertThat(SerdeChecks.typed(RetryStateSerializer.class, STORED_V1)).isEqualTo(STORED_V1);
    assertThatThrownBy(() -> serializer.deserialize(2, hex(STORED_V1_HEX)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }
}
