package org.oml.lakewriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ChildJvmTest {
  /**
   * The options the build passes reach a child JVM: with the tests POM's {@code test.jvm.jit}
   * ({@code -XX:TieredStopAtLevel=1}) the child stops at C1, with {@code -Dtest.jvm.jit=} it keeps
   * the JVM's default (level 4).
   */
  @Test
  void aChildJvmRunsWithTheOptionsTheBuildPasses() throws Exception {
    String configured = System.getProperty(ChildJvm.OPTIONS_PROPERTY, "");
    Process p =
        new ProcessBuilder(ChildJvm.command("-XX:+PrintFlagsFinal", "-version"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    Matcher level = Pattern.compile("TieredStopAtLevel\\s+=\\s+(\\d+)").matcher(out);
    assertThat(level.find()).as(out).isTrue();
    assertThat(level.group(1)).isEqualTo(configured.contains("TieredStopAtLevel=1") ? "1" : "4");
  }
}
