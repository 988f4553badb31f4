package org.oml.lakewriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.oml.lakewriter.doctor.DoctorThresholds;
import picocli.CommandLine;

/**
 * The defaults of {@code lakewriter doctor}'s options are written as text for its help; they must
 * stay the thresholds the code names, e.g. {@code --keyed-small-file-size} half of the job's
 * default keyed cap.
 */
class DoctorCommandDefaultsTest {
  @Test
  void theOptionsDefaultToTheNamedThresholds() {
    DoctorCommand doctor = new DoctorCommand();
    new CommandLine(doctor).parseArgs();
    assertThat(doctor.thresholds()).isEqualTo(DoctorThresholds.defaults());
    assertThat(doctor.thresholds().keyedSmallFileBytes()).isEqualTo(32L << 10);
  }
}
