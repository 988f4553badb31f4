package org.oml.lakewriter.retry;

import java.util.Objects;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.RowError;

/**
 * A row that failed transiently and waits for its next attempt: kept in the cut's keyed state,
 * so a restart neither forgets the attempts already made nor resets the budget. Times are
 * processing-time milliseconds since the epoch.
 */
public record RetryState(
    ErrorClass errorClass,
    String message,
    int attempts,
    long firstFailureMillis,
    long lastFailureMillis,
    long nextAttemptMillis) {

  public RetryState {
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(message, "message");
  }

  /** The state after a failed attempt at {@code nowMillis}; {@code previous} is null at first. */
  public static RetryState failed(
      RetryState previous, RowError failure, long nowMillis, RetryBudget budget) {
    int attempts = previous == null ? 1 : previous.attempts + 1;
    long first = previous == null ? nowMillis : previous.firstFailureMillis;
    return new RetryState(
        failure.errorClass(),
        failure.message(),
        attempts,
        first,
        nowMillis,
        nowMillis + budget.backoffMillis(attempts));
  }

  /** The error the row is dead-lettered with once the budget is spent. */
  public RowError toDeadLetter() {
    return new RowError(
        errorClass,
        message + " (gave up after " + attempts + " attempts)",
        attempts,
        firstFailureMillis * 1000L,
        lastFailureMillis * 1000L);
  }
}
