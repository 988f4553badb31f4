package org.oml.lakewriter.it.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.oml.lakewriter.it.support.CliProcess;

/**
 * What a process supervisor does to {@code lakewriter run}: starts it in its own JVM, and whenever
 * it exits (killed, crashed, refused to start) starts it again with exactly the same command line.
 * {@link #kill()} sends SIGKILL, as an OOM killer or a node loss would.
 */
final class Supervisor implements AutoCloseable {
  private volatile List<String> command;
  private final Path logDir;
  private final Thread loop;
  private volatile boolean running = true;
  private volatile Process current;
  private volatile int starts;

  Supervisor(List<String> args, Path logDir) {
    this.command = javaCommand(args);
    this.logDir = logDir;
    this.loop = new Thread(this::superviseLoop, "supervisor");
    loop.setDaemon(true);
  }

  void start() {
    loop.start();
  }

  static List<String> javaCommand(List<String> args) {
    return CliProcess.command("1g", List.of(), CliProcess.LAKEWRITER, args);
  }

  private void superviseLoop() {
    while (running) {
      try {
        int n = ++starts;
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logDir.resolve("run-" + n + ".log").toFile())
                .start();
        current = p;
        p.waitFor();
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * The command line of every start from now on: an operator who changed an option (issue 13:
   * a restore after a change of {@code batch.max-rows}).
   */
  void replaceArgs(List<String> args) {
    command = javaCommand(args);
  }

  /** SIGTERM of the running writer (a stop with a savepoint); the loop starts a new one. */
  void stop() throws InterruptedException {
    Process p = current;
    if (p != null) {
      p.destroy();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** SIGKILL of the running writer; the loop starts a new one. */
  void kill() throws InterruptedException {
    Process p = current;
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
  }

  int starts() {
    return starts;
  }

  /** The process id of the writer running now; -1 between two starts. */
  long pid() {
    Process p = current;
    return p != null && p.isAlive() ? p.pid() : -1;
  }

  /** Where the writers' logs are (kept after the test, under target/). */
  Path logDir() {
    return logDir;
  }

  /** The end of what each writer printed, for a failure message. */
  String logs() throws IOException {
    StringBuilder all = new StringBuilder();
    for (int i = 1; i <= starts; i++) {
      Path log = logDir.resolve("run-" + i + ".log");
      if (Files.exists(log)) {
        String text = Files.readString(log);
        all.append("==== run-").append(i).append(" ====\n")
            .append(text.length() > 4000 ? text.substring(text.length() - 4000) : text)
            .append('\n');
      }
    }
    return all.toString();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    loop.interrupt();
    kill();
    loop.join(10_000);
  }
}
