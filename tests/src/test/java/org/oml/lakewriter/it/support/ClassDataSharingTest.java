package org.oml.lakewriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataSharingTest {
  @TempDir Path tmp;

  /**
   * A {@code lakewriter} child loads the CLI's classes from the build's archive, and prints only
   * what the command prints: the JVM's class-data-sharing logging stays off.
   */
  @Test
  void aLakewriterChildLoadsItsClassesFromTheArchive() throws Exception {
    assumeFalse(
        System.getProperty(ClassDataSharing.DIR_PROPERTY, "").isBlank(),
        "sharing turned off with -Dtest.child-jvm-cds=");
    Path log = tmp.resolve("version.log");
    Process p =
        CliProcess.start(
            "256m",
            List.of("-Xlog:class+load=info:file=" + tmp.resolve("classes.log")),
            CliProcess.LAKEWRITER,
            List.of("--version"),
            log);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log)).doesNotContain("cds").doesNotContain("shared");
    List<String> cli =
        Files.readAllLines(tmp.resolve("classes.log")).stream()
            .filter(l -> l.contains("org.oml.lakewriter.cli.LakeWriterCli "))
            .toList();
    assertThat(cli).hasSize(1);
    assertThat(cli.get(0)).contains("shared objects file");
  }
}
