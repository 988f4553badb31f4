package org.oml.lakewriter.it.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of the command line of every JVM a test starts (a writer, a CLI command, a Flink
 * cluster's processes, the S3 server): this JVM's {@code java}, then the options the build passes
 * in {@code lakewriter.test.child-jvm-options}. The build passes {@code -XX:TieredStopAtLevel=1}
 * (the tests POM, {@code test.jvm.jit}): most child JVMs live for seconds, and on two cores the C2
 * compiler's threads took as much CPU as the code they compiled. {@code -Dtest.jvm.jit=} runs the
 * suite with the JVM's default compilers.
 */
public final class ChildJvm {
  /** The system property the build sets; blank or absent adds nothing. */
  static final String OPTIONS_PROPERTY = "lakewriter.test.child-jvm-options";

  private ChildJvm() {}

  /** {@code java}, the build's child JVM options, then {@code options}. */
  public static List<String> command(String... options) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String configured = System.getProperty(OPTIONS_PROPERTY, "").trim();
    if (!configured.isEmpty()) {
      command.addAll(List.of(configured.split("\\s+")));
    }
    command.addAll(List.of(options));
    return command;
  }

  /** The test classpath, which surefire passes to its JVM apart from {@code java.class.path}. */
  public static String testClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }
}
