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

  private static LeaseRecord at(Instant renewed, Instant now) {
    return new LeaseRecord(
        "file:///lake", 3, "h/42/aa", "h", 42L, "j-1", "w1", "s1", renewed.minusSeconds(60),
        renewed, renewed.plusSeconds(30), Duration.ofSeconds(5), now);
  }
}
