package org.oml.lakewriter.horizon;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the horizon tick ({@code oml_lake_tick}) on a fixed period, on its own connection, inside
 * the job.
 *
 * <p>Why not Debezium's {@code heartbeat.action.query}: the heartbeat runs only once the stream
 * reader processes messages, and on start the reader first searches the WAL for its resume
 * position, which waits for a message. On an idle outbox nothing is ever written, so the tick
 * never runs and the horizon never rises. The ticker writes the horizon row itself, so there is
 * always WAL to resume on. Its updates travel through the CDC stream like any other change.
 */
public final class HorizonTicker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HorizonTicker.class);

  /**
   * A tick that leaves a seq pending (a transaction holding it was still in flight) is retried
   * this soon, a few times, instead of a whole period later: most such transactions commit within
   * milliseconds, and waiting a period put up to two periods into the frontier lag's tail. A
   * long-open transaction then costs only these few extra ticks per period.
   */
  static final long PENDING_RETRY_MILLIS = 30;

  static final int PENDING_RETRIES = 3;

  private final OutboxSourceOptions options;
  private final ScheduledExecutorService executor;
  private final AtomicLong failures = new AtomicLong();
  private final LazyConnection connection;
  private int pendingRetries;

  private HorizonTicker(OutboxSourceOptions options) {
    this.options = options;
    this.connection = new LazyConnection(options::connect, true);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "horizon-ticker-" + options.writerId());
              t.setDaemon(true);
              return t;
            });
  }

  public static HorizonTicker start(OutboxSourceOptions options) {
    HorizonTicker ticker = new HorizonTicker(options);
    ticker.executor.execute(ticker::tickAndReschedule);
    return ticker;
  }

  private void tickAndReschedule() {
    boolean pending = tickOnce();
    long delay = Math.max(1, options.tickPeriod().toMillis());
    if (pending && pendingRetries < PENDING_RETRIES) {
      pendingRetries++;
      delay = Math.min(delay, PENDING_RETRY_MILLIS);
    } else {
      pendingRetries = 0;
    }
    if (!executor.isShutdown()) {
      executor.schedule(this::tickAndReschedule, delay, TimeUnit.MILLISECONDS);
    }
  }

  /** Consecutive failed ticks; a growing number shows up as frontier lag. */
  public long consecutiveFailures() {
    return failures.get();
  }

  /** One tick; true if it left a seq pending behind a transaction still in flight. */
  private boolean tickOnce() {
    try {
      query("SELECT " + options.schema() + ".oml_lake_tick(?)");
      // A separate statement: within the tick's own statement a subquery would not see its writes.
      boolean pending =
          Boolean.TRUE.equals(
              query(
                  "SELECT EXISTS (SELECT 1 FROM " + options.schema()
                      + ".oml_lake_horizon_pending WHERE writer_id = ?)"));
      failures.set(0);
      return pending;
    } catch (SQLException e) {
      long n = failures.incrementAndGet();
      if (n == 1 || n % 100 == 0) {
        LOG.warn("horizon tick for writer {} failed ({} in a row)", options.writerId(), n, e);
      }
      connection.discard();
      return false;
    }
  }

  /** Runs a one-row, one-column query with the writer id as its parameter. */
  private Object query(String sql) throws SQLException {
    try (PreparedStatement ps = connection.get().prepareStatement(sql)) {
      ps.setString(1, options.writerId());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getObject(1);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    connection.close();
  }
}
