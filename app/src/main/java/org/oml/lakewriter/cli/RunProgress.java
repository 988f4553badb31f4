package org.oml.lakewriter.cli;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;

/**
 * The one-line progress of {@code lakewriter run}, like the demo's: the committed frontier, the
 * rows this run committed, the lag behind the outbox head and how long ago the last commit was.
 *
 * <p>Read from PostgreSQL only ({@code oml_lake_frontier} and {@code max(seq)} of the outbox, one
 * index probe each), never from Flink: what it prints is what {@code status} would show, and it
 * stays cheap on a billion-row outbox. Rows committed are counted incrementally, over the seqs the
 * frontier passed since the previous line. A line is printed when the frontier or the head moved,
 * and at least once a {@link #HEARTBEAT}; a failed read is printed once per distinct failure and
 * never stops the job.
 */
final class RunProgress implements AutoCloseable {
  static final Duration HEARTBEAT = Duration.ofMinutes(1);

  private final LakeWriterConfig cfg;
  private final PrintStream out;
  private final ScheduledExecutorService timer;
  private Connection connection;
  private long baseline = -1;
  private long rowsCommitted;
  private long lastFrontier = -1;
  private long lastHead = -1;
  private long lastPrintNanos;
  private String lastFailure;

  private RunProgress(LakeWriterConfig cfg, PrintStream out, ScheduledExecutorService timer) {
    this.cfg = cfg;
    this.out = out;
    this.timer = timer;
  }

  /** Starts printing every {@code interval}; a zero interval prints nothing. */
  static RunProgress start(LakeWriterConfig cfg, PrintStream out, Duration interval) {
    if (interval.isZero()) {
      return new RunProgress(cfg, out, null);
    }
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lakewriter-progress");
              t.setDaemon(true);
              return t;
            });
    RunProgress progress = new RunProgress(cfg, out, timer);
    timer.scheduleWithFixedDelay(
        progress::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return progress;
  }

  private void tick() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = Preflight.connect(cfg);
      }
      report(connection);
      lastFailure = null;
    } catch (SQLException | RuntimeException e) {
      String failure = String.valueOf(e.getMessage());
      if (!failure.equals(lastFailure)) {
        out.println("progress: cannot read oml_lake_frontier: " + failure);
        lastFailure = failure;
      }
      closeConnection();
    }
  }

  private void report(Connection c) throws SQLException {
    long frontier = 0;
    Double commitAgeSeconds = null;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT frontier_seq, extract(epoch FROM now() - updated_at)::float8"
                + " FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, cfg.writerId());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          frontier = rs.getLong(1);
          commitAgeSeconds = rs.getDouble(2);
        }
      }
    }
    long head = scalar(c, "SELECT coalesce(max(seq), 0) FROM oml_outbox", -1, -1);
    if (baseline < 0) {
      baseline = frontier;
    } else if (frontier > lastFrontier) {
      rowsCommitted +=
          scalar(c, "SELECT count(*) FROM oml_outbox WHERE seq > ? AND seq <= ?", lastFrontier,
              frontier);
    }
    boolean moved = frontier != lastFrontier || head != lastHead;
    long now = System.nanoTime();
    if (moved || now - lastPrintNanos >= HEARTBEAT.toNanos()) {
      out.println(line(frontier, rowsCommitted, Math.max(0, head - frontier), commitAgeSeconds));
      lastPrintNanos = now;
    }
    lastFrontier = frontier;
    lastHead = head;
  }

  /** {@code progress: frontier 1234 | committed 56 rows this run | lag 7 seqs | last commit 2 s ago}. */
  static String line(long frontier, long rows, long lag, Double commitAgeSeconds) {
    return String.format(
        "progress: frontier %d | committed %d rows this run | lag %d seqs | last commit %s",
        frontier,
        rows,
        lag,
        commitAgeSeconds == null
            ? "none yet"
            : String.format("%.0f s ago", Math.max(0, commitAgeSeconds)));
  }

  private static long scalar(Connection c, String sql, long a, long b) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (a >= 0) {
        ps.setLong(1, a);
        ps.setLong(2, b);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private void closeConnection() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException ignored) {
      // Reopened at the next tick.
    }
    connection = null;
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
      try {
        timer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeConnection();
  }
}
