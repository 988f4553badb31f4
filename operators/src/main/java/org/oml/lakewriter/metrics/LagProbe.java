package org.oml.lakewriter.metrics;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures, from PostgreSQL, how far the lake is behind the outbox, on its own side connection and
 * thread, every {@link #period(Duration)}; the gauges read the last answer and never block the
 * task or a scrape.
 *
 * <p>One statement a probe, cheap on a billion-row outbox: every part is a primary-key range or a
 * one-row lookup.
 *
 * <ul>
 *   <li><b>frontier lag rows</b>: outbox rows visible now with {@code seq} above the committed
 *       frontier, counted up to {@link #COUNT_CAP}; above the cap, {@code head - frontier} (seqs,
 *       gaps included). The committed frontier is the cache the committer writes after each commit
 *       ({@code oml_lake_frontier}): if that write fails, the lag shows it.
 *   <li><b>frontier lag seconds</b>: how long the oldest such row has been visible. The probe keeps
 *       the outbox head it saw at each probe (the last {@link #HISTORY} probes); the oldest waiting
 *       row was visible no later than the first probe whose head reached its seq. Independent of
 *       {@code event_time}, which an application may set to a business time. Resolution: one
 *       period; beyond the history it shows the history's age (a lower bound); a new job starts
 *       from 0.
 *   <li><b>horizon age seconds</b>: how long the horizon has stood behind the outbox: since the
 *       pending seq was read while a seq is pending ({@code oml_lake_horizon_pending.since}),
 *       otherwise since the last tick ({@code ticked_at}). So it grows both while a transaction
 *       holds the horizon and while the tick does not run. -1 before the first tick.
 *   <li><b>slot retained bytes</b>: {@code pg_current_wal_lsn() - restart_lsn} of the job's slot;
 *       -1 when the slot does not exist.
 * </ul>
 *
 * <p>A failed probe keeps the last values and counts {@code lagProbeFailures} (logged once, then
 * every 100th); a dashboard therefore shows a stale value together with a non-zero failure count.
 */
public final class LagProbe implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LagProbe.class);

  /** Rows counted at most per probe; beyond it the lag is {@code head - frontier}. */
  public static final int COUNT_CAP = 1_000_000;

  /** Head samples kept for the lag in seconds (at 10 s a probe: almost 3 hours). */
  static final int HISTORY = 1000;

  private final OutboxSourceOptions options;
  private final LazyConnection connection;
  private final ScheduledExecutorService executor;
  private final LongSupplier clock;
  private final Deque<long[]> heads = new ArrayDeque<>();
  private final long startedMillis;

  private volatile long lagRows;
  private volatile long lagSeconds;
  private volatile long horizonAgeSeconds = -1;
  private volatile long slotRetainedBytes = -1;
  private volatile long failures;

  private LagProbe(OutboxSourceOptions options, LongSupplier clock) {
    this.options = options;
    this.clock = clock;
    this.startedMillis = clock.getAsLong();
    this.connection = new LazyConnection(options::connect, true);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lag-probe-" + options.writerId());
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts probing every {@link #period} of the options' tick period. */
  public static LagProbe start(OutboxSourceOptions options) {
    LagProbe probe = new LagProbe(options, System::currentTimeMillis);
    long millis = period(options.tickPeriod()).toMillis();
    probe.executor.scheduleWithFixedDelay(probe::probe, 0, millis, TimeUnit.MILLISECONDS);
    return probe;
  }

  /** Ten horizon ticks, at least 1 s and at most 30 s: fine enough for a 15 s scrape interval. */
  public static Duration period(Duration tickPeriod) {
    long millis = Math.multiplyExact(Math.max(1, tickPeriod.toMillis()), 10);
    return Duration.ofMillis(Math.max(1_000, Math.min(30_000, millis)));
  }

  public long frontierLagRows() {
    return lagRows;
  }

  public long frontierLagSeconds() {
    return lagSeconds;
  }

  public long horizonAgeSeconds() {
    return horizonAgeSeconds;
  }

  public long slotRetainedBytes() {
    return slotRetainedBytes;
  }

  public long consecutiveFailures() {
    return failures;
  }

  private void probe() {
    try {
      String s = options.schema();
      String sql =
          "WITH f AS (SELECT coalesce((SELECT frontier_seq FROM " + s + ".oml_lake_frontier"
              + " WHERE writer_id = ?), 0) AS seq)"
              + " SELECT f.seq,"
              + " (SELECT count(*) FROM (SELECT 1 FROM " + s + ".oml_outbox o WHERE o.seq > f.seq"
              + " LIMIT ?) t),"
              + " (SELECT min(o.seq) FROM " + s + ".oml_outbox o WHERE o.seq > f.seq),"
              + " (SELECT max(o.seq) FROM " + s + ".oml_outbox o),"
              + " (SELECT extract(epoch FROM now() - coalesce(p.since, h.ticked_at))::bigint"
              + " FROM " + s + ".oml_lake_horizon h LEFT JOIN " + s + ".oml_lake_horizon_pending p"
              + " ON p.writer_id = h.writer_id WHERE h.writer_id = ?),"
              + " (SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint"
              + " FROM pg_replication_slots WHERE slot_name = ?)"
              + " FROM f";
      try (PreparedStatement ps = connection.get().prepareStatement(sql)) {
        ps.setQueryTimeout((int) Math.max(5, period(options.tickPeriod()).toSeconds()));
        ps.setString(1, options.writerId());
        ps.setInt(2, COUNT_CAP);
        ps.setString(3, options.writerId());
        ps.setString(4, options.slotName());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long frontier = rs.getLong(1);
          long counted = rs.getLong(2);
          long oldestWaiting = rs.getLong(3);
          boolean anyWaiting = !rs.wasNull();
          long head = rs.getLong(4);
          long horizonAge = rs.getLong(5);
          boolean ticked = !rs.wasNull();
          long retained = rs.getLong(6);
          boolean slot = !rs.wasNull();
          record(frontier, counted, anyWaiting ? oldestWaiting : -1, head,
              ticked ? Math.max(0, horizonAge) : -1, slot ? retained : -1);
        }
      }
      failures = 0;
    } catch (SQLException | RuntimeException e) {
      long n = ++failures;
      if (n == 1 || n % 100 == 0) {
        LOG.warn(
            "lag probe of writer {} failed ({} in a row); the lag gauges keep their last values",
            options.writerId(), n, e);
      }
      connection.discard();
    }
  }

  /** Folds one probe's answer into the gauges; {@code oldestWaiting} -1 when none waits. */
  void record(
      long frontier, long counted, long oldestWaiting, long head, long horizonAge, long retained) {
    long now = clock.getAsLong();
    heads.addLast(new long[] {now, head});
    if (heads.size() > HISTORY) {
      heads.removeFirst();
    }
    lagRows = counted >= COUNT_CAP ? Math.max(counted, head - frontier) : counted;
    lagSeconds = oldestWaiting < 0 ? 0 : (now - visibleSince(oldestWaiting)) / 1000;
    horizonAgeSeconds = horizonAge;
    slotRetainedBytes = retained;
  }

  /** When the probe first saw the head at or above {@code seq}: the row was visible by then. */
  private long visibleSince(long seq) {
    for (long[] sample : heads) {
      if (sample[1] >= seq) {
        return sample[0];
      }
    }
    return heads.isEmpty() ? startedMillis : heads.peekFirst()[0];
  }

  /** For tests: a probe that is never scheduled, on a given clock. */
  static LagProbe unstarted(OutboxSourceOptions options, LongSupplier clock) {
    return new LagProbe(options, clock);
  }

  @Override
  public void close() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
    connection.close();
  }
}
