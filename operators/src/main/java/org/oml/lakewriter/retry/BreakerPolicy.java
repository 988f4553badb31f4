package org.oml.lakewriter.retry;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * When a dependency's circuit breaker opens and how long it stays open: it opens once {@code
 * failureThreshold} of the last {@code failureThreshold} calls failed, and after {@code openWait}
 * it lets one probe call through (half-open).
 */
public record BreakerPolicy(int failureThreshold, Duration openWait) implements Serializable {
  public static final BreakerPolicy DEFAULT = new BreakerPolicy(3, Duration.ofSeconds(5));

  public BreakerPolicy {
    Objects.requireNonNull(openWait, "openWait");
    if (failureThreshold < 1 || openWait.isNegative() || openWait.isZero()) {
      throw new IllegalArgumentException(
          "breaker: need a failure threshold >= 1 and a positive open wait, got "
              + failureThreshold + " and " + openWait);
    }
  }
}
