package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code lakewriter args...} in its own JVM, as a supervisor runs it, with stdout and stderr in a
 * log file: the process can be SIGKILLed, and a run that should refuse at once cannot hang the
 * test's JVM if it starts a job instead.
 */
public final class CliProcess {
  /** The main class of {@code lakewriter}. */
  public static final String LAKEWRITER = "org.oml.lakewriter.cli.LakeWriterCli";

  private CliProcess() {}

  public static Process start(List<String> args, Path log) throws IOException {
    return start(LAKEWRITER, args, log);
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
    return start(List.of("-Dlog4j.configurationFile=" + config), LAKEWRITER, args, log);
  }

  /** Any main class of the test classpath, with extra JVM options and a 1 GiB heap. */
  public static Process start(List<String> jvmOptions, String mainClass, List<String> args, Path log)
      throws IOException {
    return start("1g", jvmOptions, mainClass, args, log);
  }

  /** The same with a heap of at most {@code maxHeap}, as {@code -Xmx} takes it. */
  public static Process start(
      String maxHeap, List<String> jvmOptions, String mainClass, List<String> args, Path log)
      throws IOException {
    return new ProcessBuilder(command(maxHeap, jvmOptions, mainClass, args))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /**
   * The command line of {@code mainClass args...} in a child JVM ({@link ChildJvm}) with the test
   * classpath and its shared classes ({@link ClassDataSharing}), a heap of at most {@code maxHeap}
   * (as {@code -Xmx} takes it) and {@code jvmOptions}.
   */
  public static List<String> command(
      String maxHeap, List<String> jvmOptions, String mainClass, List<String> args) {
    ClassDataSharing.Setup shared = ClassDataSharing.forChildren();
    List<String> command = ChildJvm.command("-Xmx" + maxHeap);
    command.addAll(shared.options());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(shared.classpath());
    command.add(mainClass);
    command.addAll(args);
    return command;
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
