package org.oml.lakewriter.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The lease key and the liveness rule, without a database. */
class LeaderLeaseTest {
  @Test
  void oneLakeWrittenThreeWaysIsOneKey() {
    assertThat(LeaderLease.key("/tmp/lake/"))
        .isEqualTo(LeaderLease.key("file:/tmp/lake"))
        .isEqualTo(LeaderLease.key("file:///tmp/lake/"))
        .isEqualTo(LeaderLease.key("file:///tmp/x/../lake"))
        .isEqualTo("file:///tmp/lake");
    assertThat(LeaderLease.key("s3a://bucket/prefix/")).isEqualTo("s3a://bucket/prefix");
    assertThat(LeaderLease.key("S3A://bucket/prefix")).isEqualTo("s3a://bucket/prefix");
    assertThat(LeaderLease.key("s3a://bucket/other")).isNotEqualTo(LeaderLease.key("s3a://bucket/prefix"));
  }

  @Test
  void aHolderThatMissedTwoRenewalsIsStaleBeforeItsLeaseExpires() {
    Instant renewed = Instant.parse("2026-11-30T12:00:00Z");
    assertThat(at(renewed, renewed.plusSeconds(9)).state()).isEqualTo("live");
    assertThat(at(renewed, renewed.plusSeconds(11)).state()).isEqualTo("stale");
    assertThat(at(renewed, renewed.plusSeconds(30)).state()).isEqualTo("expired");
    assertThat(at(renewed, renewed.plusSeconds(11)).describe())
        .contains("pid 42", "job j-1", "lease epoch 3", "expires 2026-11-30T12:00:30Z");
  }

  /**
   * An expired lease of another holder is reserved, for one lease.duration after its expiry, to a
   * start that resumes the job the lease names; to no one when it names no job.
   */
  @Test
  void anExpiredLeaseIsReservedToItsJobsRestartForOneLeaseDuration() {
    Instant renewed = Instant.parse("2026-11-30T12:00:00Z");
    Instant expiry = renewed.plusSeconds(30);
    LeaseSettings other = settings("other/1/bb", Duration.ofSeconds(20));
    java.util.function.Predicate<String> resumesJ1 = "j-1"::equals;
    java.util.function.Predicate<String> resumesNothing = job -> false;

    // Not expired yet: nothing to reserve (the holder may be alive).
    LeaseRecord unexpired = at(renewed, expiry.minusSeconds(1));
    assertThat(LeaderLease.reservedUntil(unexpired, other, resumesNothing)).isEmpty();
    // Expired: the restart of j-1 may take it at once; another start waits until expiry + 20 s.
    LeaseRecord expired = at(renewed, expiry.plusSeconds(1));
    assertThat(LeaderLease.reservedUntil(expired, other, resumesJ1)).isEmpty();
    assertThat(LeaderLease.reservedUntil(expired, other, resumesNothing))
        .contains(expiry.plusSeconds(20));
    // The reservation ends: if the restart never came, another start takes the lease.
    LeaseRecord reservationOver = at(renewed, expiry.plusSeconds(20));
    assertThat(LeaderLease.reservedUntil(reservationOver, other, resumesNothing)).isEmpty();
    // The holder's own lease, and a lease whose holder died before its job ran: no reservation.
    LeaseSettings own = settings("h/42/aa", Duration.ofSeconds(20));
    assertThat(LeaderLease.reservedUntil(expired, own, resumesNothing)).isEmpty();
    LeaseRecord noJob =
        new LeaseRecord(
            "file:///lake", 3, "h/42/aa", "h", 42L, null, "w1", "s1", renewed.minusSeconds(60),
            renewed, expiry, Duration.ofSeconds(5), expiry.plusSeconds(1));
    assertThat(LeaderLease.reservedUntil(noJob, other, resumesNothing)).isEmpty();
  }

  private static LeaseSettings settings(String token, Duration duration) {
    return new LeaseSettings(
        "jdbc:postgresql://localhost/x", new java.util.Properties(), "file:///lake", "w1", "s1",
        new LeaseHolder(token, "h", 1), duration, Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  private static LeaseRecord at(Instant renewed, Instant now) {
    return new LeaseRecord(
        "file:///lake", 3, "h/42/aa", "h", 42L, "j-1", "w1", "s1", renewed.minusSeconds(60),
        renewed, renewed.plusSeconds(30), Duration.ofSeconds(5), now);
  }
}
