package org.oml.lakewriter.horizon;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
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

  private final OutboxSourceOptions options;
  private final ScheduledExecutorService executor;
  private final AtomicLong failures = new AtomicLong();
  private Connection connection;

  private HorizonTicker(OutboxSourceOptions options) {
    this.options = options;
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
    long periodMillis = Math.max(1, options.tickPeriod().toMillis());
    ticker.executor.scheduleWithFixedDelay(ticker::tickOnce, 0, periodMillis, TimeUnit.MILLISECONDS);
    return ticker;
  }

  /** Consecutive failed ticks; a growing number shows up as frontier lag. */
  public long consecutiveFailures() {
    return failures.get();
  }

  private void tickOnce() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = options.connect();
      }
      try (PreparedStatement ps =
          connection.prepareStatement("SELECT " + options.schema() + ".oml_lake_tick(?)")) {
        ps.setString(1, options.writerId());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
        }
      }
      failures.set(0);
    } catch (SQLException e) {
      long n = failures.incrementAndGet();
      if (n == 1 || n % 100 == 0) {
        LOG.warn("horizon tick for writer {} failed ({} in a row)", options.writerId(), n, e);
      }
      closeConnection();
    }
  }

  private void closeConnection() {
    try {
      if (connection != null) {
        connection.close();
      }
    } catch (SQLException e) {
      LOG.debug("closing the ticker connection failed", e);
    }
    connection = null;
  }

  @Override
  public void close() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    closeConnection();
  }
}
