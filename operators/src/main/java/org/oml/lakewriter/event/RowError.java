package org.oml.lakewriter.event;

import java.util.Objects;

/**
 * The error marker a row carries through the cut, so that the dead-letter path can route it.
 *
 * <p>A permanent error is found once: {@code attempts} is 1 and both failure times are 0, which
 * means "when the row is dead-lettered". A transient error that used up its retry budget carries
 * how many attempts it took and when the first and the last one failed (microseconds since the
 * epoch, UTC).
 */
public record RowError(
    ErrorClass errorClass,
    String message,
    int attempts,
    long firstFailureMicros,
    long lastFailureMicros) {
  public RowError {
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(message, "message");
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
    }
  }

  /** An error found once, without retries. */
  public RowError(ErrorClass errorClass, String message) {
    this(errorClass, message, 1, 0L, 0L);
  }

  /** The first failure time, or {@code nowMicros} when none was recorded. */
  public long firstFailureOr(long nowMicros) {
    return firstFailureMicros == 0L ? nowMicros : firstFailureMicros;
  }

  /** The last failure time, or {@code nowMicros} when none was recorded. */
  public long lastFailureOr(long nowMicros) {
    return lastFailureMicros == 0L ? nowMicros : lastFailureMicros;
  }
}
