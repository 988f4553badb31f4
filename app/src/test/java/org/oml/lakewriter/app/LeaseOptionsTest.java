package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseSettings;

/** The leader lease's options (docs/leader-lease.md): defaults, and timings that cannot work. */
class LeaseOptionsTest {
  private static Map<String, String> options() {
    Map<String, String> o = new HashMap<>();
    o.put("postgres.url", "jdbc:postgresql://db:5432/oml");
    o.put("lake.root", "/lake/");
    return o;
  }

  @Test
  void defaultsGiveTheJobItsLeaseSettings() {
    LeaseSettings s =
        LakeWriterConfig.of(options(), name -> null)
            .leaseSettings(new LeaseHolder("h/1/aa", "h", 1));

    assertThat(s.duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.renewPeriod()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.validFor()).isEqualTo(Duration.ofSeconds(20));
    assertThat(org.oml.lakewriter.lease.LeaderLease.key(s.lakeRoot())).isEqualTo("file:///lake");
    assertThat(s.toString()).doesNotContain("password");
  }

  @Test
  void aRenewPeriodThatDoesNotFitInTheLeaseIsRefusedNamingTheOptions() {
    Map<String, String> o = options();
    o.put("lease.duration", "10s");
    o.put("lease.safety-margin", "4s");
    o.put("lease.renew-period", "6s");

    assertThatThrownBy(() -> LakeWriterConfig.of(o, name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lease.renew-period")
        .hasMessageContaining("lease.duration")
        .hasMessageContaining("lease.safety-margin");
  }

  @Test
  void aNegativeWaitIsRefused() {
    Map<String, String> o = options();
    o.put("lease.wait", "-1s");

    assertThatThrownBy(() -> LakeWriterConfig.of(o, name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lease.wait");
  }
}
