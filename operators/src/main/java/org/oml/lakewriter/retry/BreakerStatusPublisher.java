package org.oml.lakewriter.retry;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each transition of a dependency's breaker to {@code oml_lake_dependency} (outbox
 * contract SQL), where {@code lakewriter status}, a separate process, reads it.
 *
 * <p>Best effort, off the task thread: the upsert runs on its own daemon thread and connection
 * (with the side connections' connect and socket timeouts). A failure is logged and dropped; the
 * next transition writes the then current state. The cut never waits for it: the dependency that
 * is down may well be this very database.
 */
public final class BreakerStatusPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BreakerStatusPublisher.class);

  private final OutboxSourceOptions options;
  private final ExecutorService executor;
  private final LazyConnection connection;

  public BreakerStatusPublisher(OutboxSourceOptions options) {
    this.options = options;
    this.connection = new LazyConnection(options::connect, true);
    // One thread, a bounded queue; when it is full the oldest news is the one to lose.
    this.executor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(64),
            r -> {
              Thread t = new Thread(r, "breaker-status-" + options.writerId());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.DiscardOldestPolicy());
  }

  /** Queues the upsert of this transition; returns at once. */
  public void publish(DependencyBreaker.Transition t) {
    if (!executor.isShutdown()) {
      executor.execute(() -> upsert(t));
    }
  }

  private void upsert(DependencyBreaker.Transition t) {
    String sql =
        "INSERT INTO " + options.schema() + ".oml_lake_dependency"
            + " (writer_id, dependency, state, since, last_error, updated_at)"
            + " VALUES (?, ?, ?, ?, ?, now())"
            + " ON CONFLICT (writer_id, dependency) DO UPDATE SET state = EXCLUDED.state,"
            + " since = EXCLUDED.since, last_error = EXCLUDED.last_error, updated_at = now()";
    try (PreparedStatement ps = connection.get().prepareStatement(sql)) {
      ps.setString(1, options.writerId());
      ps.setString(2, t.dependency());
      ps.setString(3, t.state());
      ps.setTimestamp(4, new Timestamp(t.atMillis()));
      ps.setString(5, t.lastError() == null ? null : t.lastError().message());
      ps.executeUpdate();
    } catch (SQLException e) {
      connection.discard();
      LOG.warn(
          "could not record breaker {} = {} in {}.oml_lake_dependency (status will not show it): {}",
          t.dependency(), t.state(), options.schema(), e.toString());
    }
  }

  @Override
  public void close() throws InterruptedException {
    executor.shutdown();
    // Let a last transition (e.g. CLOSED) land, briefly; it is best effort.
    executor.awaitTermination(2, TimeUnit.SECONDS);
    executor.shutdownNow();
    connection.close();
  }
}
