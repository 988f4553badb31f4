package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Restarts an embedded PostgreSQL on its data directory and port, as an operator's restart
 * would, and makes sure the old postmaster is gone first: the embedded server's own stop gives up
 * after 5 s on a loaded machine and leaves it running, and a start on the same port then fails.
 * A postmaster still there after {@link #STOP_WAIT} is killed (a crash, which the start recovers
 * from).
 */
public final class PostgresRestart {
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  private PostgresRestart() {}

  /** Stops {@code pg}, waits {@code down}, and starts it again on {@code data} and its port. */
  public static EmbeddedPostgresServer restart(
      EmbeddedPostgresServer pg, Path data, Duration down) throws Exception {
    int port = pg.port();
    pg.close();
    awaitPostmasterGone(data);
    Thread.sleep(down.toMillis());
    return EmbeddedPostgresServer.start(data, port);
  }

  private static void awaitPostmasterGone(Path data) throws Exception {
    Path pidFile = data.resolve("postmaster.pid");
    long deadline = System.nanoTime() + STOP_WAIT.toNanos();
    while (Files.exists(pidFile) && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    if (!Files.exists(pidFile)) {
      return;
    }
    long pid = postmasterPid(pidFile);
    ProcessHandle.of(pid)
        .ifPresent(
            p -> {
              p.destroyForcibly();
              p.onExit().join();
            });
  }

  private static long postmasterPid(Path pidFile) throws IOException {
    return Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
  }
}
