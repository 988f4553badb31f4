package org.oml.lakewriter.lease;

import java.time.Duration;
import java.time.Instant;

/**
 * One row of {@code oml_lake_lease}, read together with the database's own time ({@code dbNow}),
 * so that expiry and liveness are always judged on one clock: PostgreSQL's.
 *
 * @param lakeRoot the key: the lake root the lease guards (see {@link LeaderLease#key})
 * @param epoch grows by one each time the lease passes to another holder
 * @param holder the holder's token ({@code host/pid/nonce}), one per deployment start
 * @param jobId the Flink job id the holder runs, once its committer has renewed (may be null)
 * @param renewPeriod how often the holder renews; a holder that missed two renewals is stale
 */
public record LeaseRecord(
    String lakeRoot,
    long epoch,
    String holder,
    String holderHost,
    Long holderPid,
    String jobId,
    String writerId,
    String slot,
    Instant acquiredAt,
    Instant renewedAt,
    Instant expiresAt,
    Duration renewPeriod,
    Instant dbNow) {

  /** True once the database's clock has passed the expiry: another holder may take it. */
  public boolean expired() {
    return !dbNow.isBefore(expiresAt);
  }

  /**
   * True while the lease is unexpired and its holder renewed within two of its renew periods: a
   * holder that stopped renewing (SIGKILL, a lost network) is stale before its lease expires.
   */
  public boolean live() {
    return !expired() && !dbNow.isAfter(renewedAt.plus(renewPeriod.multipliedBy(2)));
  }

  /** "live", "stale" (unexpired, not renewing) or "expired". */
  public String state() {
    return expired() ? "expired" : live() ? "live" : "stale";
  }

  /** Who holds it and until when, for messages and {@code status}. */
  public String describe() {
    return "holder "
        + holder
        + " (host "
        + holderHost
        + ", pid "
        + holderPid
        + ", job "
        + (jobId == null ? "not started yet" : jobId)
        + ", writer.id "
        + writerId
        + ", slot "
        + slot
        + "), lease epoch "
        + epoch
        + ", held since "
        + acquiredAt
        + ", last renewed "
        + renewedAt
        + ", expires "
        + expiresAt
        + " (database time, now "
        + dbNow
        + ": "
        + state()
        + ")";
  }
}
