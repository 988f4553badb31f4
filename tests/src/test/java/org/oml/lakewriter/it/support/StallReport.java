package org.oml.lakewriter.it.support;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Says where a stuck test is stuck. Registered for every test of this module (service file plus
 * {@code junit.jupiter.extensions.autodetection.enabled}): when a test method runs longer than
 * {@value #METHOD_LIMIT_PROPERTY} (default {@link #METHOD_LIMIT}), or a test class longer than
 * {@link #CLASS_LIMIT}, it writes every thread's stack to {@code target/stall-reports/} and the
 * stack of the thread that runs the test to the process's own stderr (not {@code System.err},
 * which {@link CliRun} may have swapped), then interrupts that thread, so that a wait which
 * listens to interrupts ends as a failure of the test instead of using up the build's time.
 */
public final class StallReport
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  static final String METHOD_LIMIT_PROPERTY = "oml.test.stall-after";
  private static final Duration METHOD_LIMIT = Duration.ofMinutes(10);
  private static final Duration CLASS_LIMIT = Duration.ofMinutes(30);
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "stall-report");
            t.setDaemon(true);
            return t;
          });
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(StallReport.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    watch(context, CLASS_LIMIT);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    String limit = System.getProperty(METHOD_LIMIT_PROPERTY, METHOD_LIMIT.toString());
    watch(context, Duration.parse(limit));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    unwatch(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    unwatch(context);
  }

  private static void watch(ExtensionContext context, Duration limit) {
    Thread runner = Thread.currentThread();
    String name = context.getUniqueId();
    ScheduledFuture<?> report =
        TIMER.schedule(
            () -> report(name, limit, runner, processStderr()), limit.toMillis(),
            TimeUnit.MILLISECONDS);
    context.getStore(NS).put("report", report);
  }

  private static void unwatch(ExtensionContext context) {
    ScheduledFuture<?> report = context.getStore(NS).remove("report", ScheduledFuture.class);
    if (report != null) {
      report.cancel(false);
    }
  }

  /** Not System.err: a CliRun in progress has it pointed at a buffer. */
  private static PrintStream processStderr() {
    return new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
  }

  /**
   * Reports {@code test}, stalled in {@code runner}: every stack to a file, the runner's to {@code
   * stderr}; then interrupts the runner. Returns the file.
   */
  static Path report(String test, Duration limit, Thread runner, PrintStream stderr) {
    String all =
        Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(true, true))
            .map(StallReport::format)
            .collect(Collectors.joining("\n"));
    Path file = Path.of("target", "stall-reports", "stall-" + System.currentTimeMillis() + ".txt");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, test + "\n\n" + all);
    } catch (IOException e) {
      stderr.println("stall report: could not write " + file + ": " + e);
    }
    stderr.printf(
        "%nSTALLED: %s has run longer than %s; every thread's stack is in %s. The test's thread"
            + " (%s, %s), now interrupted:%n",
        test, limit, file.toAbsolutePath(), runner.getName(), runner.getState());
    for (StackTraceElement frame : runner.getStackTrace()) {
      stderr.println("\tat " + frame);
    }
    runner.interrupt();
    return file;
  }

  /** A thread's full stack with its locks ({@link ThreadInfo#toString()} cuts at 8 frames). */
  private static String format(ThreadInfo t) {
    StringBuilder b = new StringBuilder("\"" + t.getThreadName() + "\" " + t.getThreadState());
    if (t.getLockName() != null) {
      b.append(" on ").append(t.getLockName());
    }
    if (t.getLockOwnerName() != null) {
      b.append(" owned by \"").append(t.getLockOwnerName()).append('"');
    }
    b.append('\n');
    for (StackTraceElement frame : t.getStackTrace()) {
      b.append("\tat ").append(frame).append('\n');
    }
    for (var m : t.getLockedMonitors()) {
      b.append("\tholds ").append(m).append(" (locked at ").append(m.getLockedStackFrame());
      b.append(")\n");
    }
    return b.toString();
  }
}
