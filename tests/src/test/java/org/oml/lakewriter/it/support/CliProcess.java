package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code lakewriter args...} in its own JVM, as a supervisor runs it, with stdout and stderr in a
 * log file: the process can be SIGKILLed, and a run that should refuse at once cannot hang the
 * test's JVM if it starts a job instead.
 */
public final class CliProcess {
  private CliProcess() {}

  public static Process start(List<String> args, Path log) throws IOException {
    return start("org.oml.lakewriter.cli.LakeWriterCli", args, log);
  }

  /** Any main class of the test classpath. */
  public static Process start(String mainClass, List<String> args, Path log) throws IOException {
    return start(List.of(), mainClass, args, log);
  }

  /**
   * {@code lakewriter args...} with the launcher's logging ({@code ./lakewriter} passes the CLI's
   * log4j2 configuration), stdout and stderr in one log.
   */
  public static Process startAsLauncher(List<String> args, Path log) throws IOException {
    Path config =
        Path.of("..", "app", "src", "main", "resources", "org", "oml", "lakewriter", "cli",
                "log4j2-cli.properties")
            .toAbsolutePath()
            .normalize();
    return start(
        List.of("-Dlog4j.configurationFile=" + config),
        "org.oml.lakewriter.cli.LakeWriterCli",
        args,
        log);
  }

  /** Any main class of the test classpath, with extra JVM options. */
  public static Process start(List<String> jvmOptions, String mainClass, List<String> args, Path log)
      throws IOException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(ChildJvm.command("-Xmx1g"));
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(args);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /** The exit code and the log of a run that must end by itself within {@code timeout}. */
  public record Finished(int exitCode, String log) {}

  public static Finished runToEnd(List<String> args, Path log, Duration timeout) throws Exception {
    Process p = start(args, log);
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError(
          "lakewriter " + args + " was still running after " + timeout + ":\n"
              + Files.readString(log));
    }
    return new Finished(p.exitValue(), Files.readString(log));
  }

  /** Waits until the log contains {@code text}; fails if the process ends first. */
  public static void awaitLog(Process p, Path log, String text, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String s = Files.exists(log) ? Files.readString(log) : "";
      if (s.contains(text)) {
        return;
      }
      if (!p.isAlive()) {
        throw new AssertionError(
            "lakewriter ended (exit " + p.exitValue() + ") before printing '" + text + "':\n" + s);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no '" + text + "' within " + timeout + ":\n" + Files.readString(log));
  }
}
