package org.oml.lakewriter.retry;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How long the cut keeps retrying a row whose dependency failed transiently: at most {@code
 * maxAttempts} attempts, and no new attempt once {@code maxDuration} has passed since the first
 * failure. Between attempts it backs off exponentially from {@code initialBackoff} up to {@code
 * maxBackoff}. While a row is retried, the rows behind it wait (the cut is in seq order), so the
 * budget bounds how long a poison row can delay the stream.
 */
public record RetryBudget(
    int maxAttempts, Duration maxDuration, Duration initialBackoff, Duration maxBackoff)
    implements Serializable {

  public static final RetryBudget DEFAULT =
      new RetryBudget(5, Duration.ofMinutes(1), Duration.ofMillis(500), Duration.ofSeconds(15));

  public RetryBudget {
    Objects.requireNonNull(maxDuration, "maxDuration");
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("retry budget: max attempts must be at least 1");
    }
    if (initialBackoff.isNegative()
        || initialBackoff.isZero()
        || maxBackoff.compareTo(initialBackoff) < 0
        || maxDuration.isNegative()) {
      throw new IllegalArgumentException(
          "retry budget: need 0 < initial back-off <= max back-off and a max duration >= 0, got "
              + this);
    }
  }

  /** The wait after the {@code attempts}-th failed attempt: doubling, capped. */
  public long backoffMillis(int attempts) {
    long initial = initialBackoff.toMillis();
    int doublings = Math.min(Math.max(attempts - 1, 0), 30);
    return Math.min(maxBackoff.toMillis(), initial << doublings);
  }

  /** Whether a row in this state gets no further attempt. */
  public boolean isExhausted(RetryState state) {
    return state.attempts() >= maxAttempts
        || state.lastFailureMillis() - state.firstFailureMillis() >= maxDuration.toMillis();
  }
}
