package org.oml.lakewriter.lease;

import java.io.Serializable;
import java.time.Duration;
import java.util.Properties;

/**
 * Everything a {@link LeaseKeeper} needs on the task manager: where the lease row is, which lease
 * (the lake root), who holds it, and its timing. Serialized into the job graph; the connection
 * properties hold the password and are never printed.
 *
 * <p>Timing: the lease lasts {@code duration} from each renewal, in the database's time; the
 * holder renews every {@code renewPeriod} and stops committing once {@code duration -
 * safetyMargin} has passed on its monotonic clock since it sent its last successful renewal.
 */
public record LeaseSettings(
    String jdbcUrl,
    Properties connectionProperties,
    String lakeRoot,
    String writerId,
    String slot,
    LeaseHolder holder,
    Duration duration,
    Duration renewPeriod,
    Duration safetyMargin)
    implements Serializable {

  public LeaseSettings {
    if (safetyMargin.isNegative() || safetyMargin.isZero()) {
      throw new IllegalArgumentException("lease.safety-margin must be positive: " + safetyMargin);
    }
    if (renewPeriod.isNegative() || renewPeriod.isZero()) {
      throw new IllegalArgumentException("lease.renew-period must be positive: " + renewPeriod);
    }
    if (renewPeriod.compareTo(duration.minus(safetyMargin)) >= 0) {
      throw new IllegalArgumentException(
          "lease.renew-period ("
              + renewPeriod
              + ") must be shorter than lease.duration - lease.safety-margin ("
              + duration.minus(safetyMargin)
              + "), or a healthy writer would stop committing between two renewals");
    }
  }

  /** How long after a successful renewal was sent this holder may still commit. */
  public Duration validFor() {
    return duration.minus(safetyMargin);
  }

  @Override
  public String toString() {
    return "LeaseSettings{lake="
        + lakeRoot
        + ", holder="
        + holder.token()
        + ", duration="
        + duration
        + ", renewPeriod="
        + renewPeriod
        + ", safetyMargin="
        + safetyMargin
        + "}";
  }
}
