package org.oml.lakewriter.horizon;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 *
 * <p>Early ticks: the period bounds the lag only of an idle outbox. The next tick runs as soon as
 * {@code minSpacing} has passed since the previous one started, instead of a whole period later,
 * when rows wait above the horizon: when the tick itself sees the outbox's sequence above the
 * stable seq it just wrote (rows committed or in flight since), or when the cut calls {@link
 * #requestTick} for a row above the horizon it knows (the first row after an idle spell). A tick
 * is one cheap SQL call, and waiting for the period put up to a period into every row's frontier
 * lag. So the horizon is ticked at most every {@code minSpacing} under load, and every period
 * when idle; a tick that leaves a seq pending is retried as before. The ticker does not depend on
 * the cut's progress to tick early: a cut held up by backpressure still gets a fresh horizon.
 */
public final class HorizonTicker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HorizonTicker.class);

  /**
   * A tick that leaves a seq pending (a transaction holding it was still in flight) is retried
   * this soon, a few times, instead of a whole period later: most such transactions commit within
   * milliseconds, and waiting a period put up to two periods into the frontier lag's tail. (With
   * early ticks on, a long-open transaction holding the horizon keeps the ticker at {@code
   * minSpacing}: seqs wait above the horizon.)
   */
  static final long PENDING_RETRY_MILLIS = 30;

  static final int PENDING_RETRIES = 3;

  /** The default of {@code horizon.min-tick-spacing}. */
  public static final Duration DEFAULT_MIN_SPACING = Duration.ofMillis(100);

  private final OutboxSourceOptions options;
  private final ScheduledExecutorService executor;
  private final AtomicLong failures = new AtomicLong();
  private final LazyConnection connection;
  private final long minSpacingMillis;
  /** A row waits above the horizon and no tick has started since it asked. */
  private final AtomicBoolean wanted = new AtomicBoolean();
  private final AtomicLong ticks = new AtomicLong();
  private final AtomicLong earlyTicks = new AtomicLong();
  /** The highest stable seq a tick returned; -1 before the first. */
  private final AtomicLong stable = new AtomicLong(-1);
  // The fields below are the ticker thread's own.
  private int pendingRetries;
  private ScheduledFuture<?> next;
  private long lastStartNanos;

  private HorizonTicker(OutboxSourceOptions options, Duration minSpacing) {
    if (minSpacing == null || minSpacing.isNegative()) {
      throw new IllegalArgumentException(
          "horizon.min-tick-spacing must be 0 (no early ticks) or positive, not " + minSpacing);
    }
    this.options = options;
    this.minSpacingMillis = minSpacing.toMillis();
    this.connection = new LazyConnection(options::connect, true);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "horizon-ticker-" + options.writerId());
              t.setDaemon(true);
              return t;
            });
  }

  /** Ticks every period only: {@link #requestTick} does nothing. */
  public static HorizonTicker start(OutboxSourceOptions options) {
    return start(options, Duration.ZERO);
  }

  /**
   * @param minSpacing the least time between the starts of two ticks when {@link #requestTick}
   *     asks for one early; {@link Duration#ZERO}: no early ticks
   */
  public static HorizonTicker start(OutboxSourceOptions options, Duration minSpacing) {
    HorizonTicker ticker = new HorizonTicker(options, minSpacing);
    ticker.executor.execute(ticker::tickAndReschedule);
    return ticker;
  }

  /**
   * Rows wait above the horizon: tick once {@code minSpacing} has passed since the last tick
   * started. Cheap and lock-free when a tick is already wanted, so the cut calls it per row.
   */
  public void requestTick() {
    if (minSpacingMillis > 0 && !wanted.get() && wanted.compareAndSet(false, true)) {
      try {
        executor.execute(this::expedite);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // Closing: no more ticks.
      }
    }
  }

  /** Ticks run so far, and of them the ones brought forward by {@link #requestTick}. */
  public long ticks() {
    return ticks.get();
  }

  public long earlyTicks() {
    return earlyTicks.get();
  }

  /**
   * The highest stable seq a tick of this ticker has returned, -1 before the first. Every
   * transaction that could hold a seq at or below it had ended when the tick returned it (the tick
   * waits for them before it promotes a seq), so every row at or below it that will ever commit
   * is visible to any statement that starts later. The cut reads it before the first horizon
   * arrives through the stream ({@code BatchCutFunction}, docs/cut-and-tick.md).
   */
  public long stable() {
    return stable.get();
  }

  /** On the ticker thread: brings the next tick forward to {@code minSpacing} after the last. */
  private void expedite() {
    if (!wanted.get() || next == null) {
      return; // a tick started since the request, or the first one has not run yet
    }
    long dueIn =
        Math.max(0, minSpacingMillis - (System.nanoTime() - lastStartNanos) / 1_000_000);
    if (next.getDelay(TimeUnit.MILLISECONDS) > dueIn && next.cancel(false)) {
      earlyTicks.incrementAndGet();
      next = executor.schedule(this::tickAndReschedule, dueIn, TimeUnit.MILLISECONDS);
    }
  }

  private void tickAndReschedule() {
    // Cleared before the tick reads the outbox's seq: a row that asks from now on may be above
    // what this tick sees, so it asks for the next one.
    wanted.set(false);
    lastStartNanos = System.nanoTime();
    ticks.incrementAndGet();
    Tick tick = tickOnce();
    boolean pending = tick.pending();
    long delay = Math.max(1, options.tickPeriod().toMillis());
    if (pending && pendingRetries < PENDING_RETRIES) {
      pendingRetries++;
      delay = Math.min(delay, PENDING_RETRY_MILLIS);
    } else {
      pendingRetries = 0;
    }
    // Rows flowing (the horizon moved, or seqs wait above it): stay at the short spacing, so a
    // cut held up by backpressure, which cannot ask, still finds a fresh horizon. The first tick
    // that sees neither goes back to the period.
    boolean moved = tick.stable() > stable.get();
    if (moved) {
      stable.set(tick.stable()); // only this thread writes it
    }
    if (minSpacingMillis > 0 && (wanted.get() || tick.rowsAbove() || moved)) {
      delay = Math.min(delay, minSpacingMillis);
    }
    if (!executor.isShutdown()) {
      try {
        next = executor.schedule(this::tickAndReschedule, delay, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // Closing: no more ticks.
      }
    }
  }

  /** Consecutive failed ticks; a growing number shows up as frontier lag. */
  public long consecutiveFailures() {
    return failures.get();
  }

  /**
   * What one tick saw: {@code stable}, the stable seq it wrote (-1: the tick failed); {@code
   * pending}, it left a seq pending behind a transaction still in flight; {@code rowsAbove}, the
   * outbox's sequence has handed out seqs above {@code stable} (rows committed or in flight since,
   * or pending).
   */
  private record Tick(long stable, boolean pending, boolean rowsAbove) {}

  private static final Tick FAILED = new Tick(-1, false, false);

  private Tick tickOnce() {
    try {
      Object stable = query("SELECT " + options.schema() + ".oml_lake_tick(?)");
      // A separate statement: within the tick's own statement a subquery would not see its writes.
      String s = options.schema();
      try (PreparedStatement ps =
          connection
              .get()
              .prepareStatement(
                  "SELECT EXISTS (SELECT 1 FROM " + s + ".oml_lake_horizon_pending"
                      + " WHERE writer_id = ?), (SELECT CASE WHEN is_called THEN last_value"
                      + " ELSE last_value - 1 END FROM " + s + ".oml_outbox_seq)")) {
        ps.setString(1, options.writerId());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          boolean pending = rs.getBoolean(1);
          long last = rs.getLong(2);
          failures.set(0);
          long stableSeq = stable instanceof Number n ? n.longValue() : -1;
          return new Tick(stableSeq, pending, stableSeq >= 0 && last > stableSeq);
        }
      }
    } catch (SQLException e) {
      long n = failures.incrementAndGet();
      if (n == 1 || n % 100 == 0) {
        LOG.warn("horizon tick for writer {} failed ({} in a row)", options.writerId(), n, e);
      }
      connection.discard();
      return FAILED;
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
