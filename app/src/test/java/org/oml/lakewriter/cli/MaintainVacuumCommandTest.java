package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.app.ConfigException;

class MaintainVacuumCommandTest {
  private static final Duration WEEK = Duration.ofDays(7);

  @Test
  void aRetentionBelowTheMinimumIsRefusedByName() {
    assertThatThrownBy(() -> MaintainVacuumCommand.retention("1h", WEEK))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("RETENTION_BELOW_MINIMUM: --retain 1 h is below"
            + " maintain.vacuum.min-retention = 7 d")
        .hasMessageContaining("Give --retain 7 d or more");
    assertThatThrownBy(() -> MaintainVacuumCommand.retention("6d 23h", WEEK))
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void theMinimumAndAboveAreAccepted() {
    assertThat(MaintainVacuumCommand.retention("7d", WEEK)).isEqualTo(WEEK);
    assertThat(MaintainVacuumCommand.retention("30d", WEEK)).isEqualTo(Duration.ofDays(30));
    assertThat(MaintainVacuumCommand.retention("2 s", Duration.ofSeconds(1)))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aRetentionThatIsNoDurationIsNamed() {
    assertThatThrownBy(() -> MaintainVacuumCommand.retention("a week", WEEK))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--retain is a week, not a duration");
  }
}
