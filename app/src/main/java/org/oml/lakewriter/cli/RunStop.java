package org.oml.lakewriter.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.oml.lakewriter.cli.CheckpointFinder.RestorePoint;
import sun.misc.Signal;

/**
 * What SIGTERM (or SIGINT) does to {@code lakewriter run}: stop the job with a savepoint under
 * {@code <state.dir>/savepoints}, prune old savepoints, say what the next start will resume from,
 * and give the process an exit code that tells a supervisor how it went:
 *
 * <ul>
 *   <li>{@code 0}: the savepoint was taken and the job stopped cleanly;
 *   <li>{@code 1}: the savepoint failed; the job was cancelled, and the next start resumes from the
 *       newest completed checkpoint (printed), or starts fresh.
 * </ul>
 *
 * <p>A signal handler, not a shutdown hook: a shutdown hook cannot choose the exit code (the JVM
 * exits 143 after SIGTERM whatever the hook did), and it races the JVM's other hooks. The handler
 * replaces the JVM's default for the two signals only while the job runs.
 */
final class RunStop {
  static final int STOPPED_WITH_SAVEPOINT = 0;
  static final int SAVEPOINT_FAILED = 1;

  private final JobClient job;
  private final Path stateDir;
  private final int retained;
  private final PrintStream out;
  private final PrintStream err;
  private final AtomicBoolean requested = new AtomicBoolean();
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile int exitCode = SAVEPOINT_FAILED;

  RunStop(JobClient job, Path stateDir, int retained, PrintStream out, PrintStream err) {
    this.job = job;
    this.stateDir = stateDir;
    this.retained = retained;
    this.out = out;
    this.err = err;
  }

  /** SIGTERM and SIGINT stop the job with a savepoint from now on. */
  void installSignalHandlers() {
    for (String name : List.of("TERM", "INT")) {
      Signal.handle(new Signal(name), signal -> onSignal("SIG" + name));
    }
  }

  private void onSignal(String signal) {
    if (!requested.compareAndSet(false, true)) {
      err.println("lakewriter: " + signal + " again: still stopping with a savepoint, please wait");
      return;
    }
    Thread stopper = new Thread(() -> stop(signal), "lakewriter-stop");
    stopper.setDaemon(false);
    stopper.start();
  }

  /** Whether a signal asked the job to stop. */
  boolean requested() {
    return requested.get();
  }

  /** The exit code, once the stop has finished. */
  int awaitExitCode() throws InterruptedException {
    done.await();
    return exitCode;
  }

  void stop(String signal) {
    try {
      out.println("lakewriter: " + signal + ": stopping the job with a savepoint...");
      org.oml.lakewriter.cli.log.StopSavepointNoiseFilter.stopping();
      String savepoint;
      try {
        savepoint =
            job.stopWithSavepoint(
                    false,
                    stateDir.resolve("savepoints").toUri().toString(),
                    SavepointFormatType.CANONICAL)
                .get();
      } catch (Exception e) {
        err.println("lakewriter: stop with savepoint failed: " + rootMessage(e));
        cancel();
        Optional<RestorePoint> next = CheckpointFinder.latest(stateDir);
        out.println(
            "lakewriter: the job was cancelled without a savepoint (exit "
                + SAVEPOINT_FAILED
                + "); the next start"
                + next.map(p -> " (`lakewriter run`, with or without --restore) resumes from the " + p)
                    .orElse(" starts fresh: no completed checkpoint under " + stateDir));
        exitCode = SAVEPOINT_FAILED;
        return;
      }
      out.println("stopped with savepoint " + savepoint);
      Optional<RestorePoint> next = CheckpointFinder.latest(stateDir);
      prune(next);
      out.println(
          "lakewriter: the next start (`lakewriter run`, with or without --restore) resumes from"
              + " the " + next.map(RestorePoint::toString).orElse("savepoint " + savepoint));
      exitCode = STOPPED_WITH_SAVEPOINT;
    } finally {
      out.flush();
      err.flush();
      done.countDown();
    }
  }

  private void prune(Optional<RestorePoint> next) {
    try {
      List<Path> deleted =
          SavepointPruner.prune(
              stateDir.resolve("savepoints"), retained, next.map(RestorePoint::dir));
      if (!deleted.isEmpty()) {
        out.println(
            "lakewriter: deleted " + deleted.size() + " old savepoint(s), keeping the newest "
                + retained + " (state.savepoints.retained): " + deleted);
      }
    } catch (RuntimeException e) {
      // The savepoint is taken; a failed clean-up must not turn a clean stop into a failure.
      err.println("lakewriter: warning: old savepoints not pruned: " + e.getMessage());
    }
  }

  private void cancel() {
    try {
      job.cancel().get();
    } catch (Exception e) {
      err.println("lakewriter: cancelling the job failed too: " + rootMessage(e));
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? String.valueOf(e) : e.getClass().getSimpleName() + ": " + root;
  }
}
