package org.oml.lakewriter.lease;

import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader lease as the job holds it: acquired when the committer starts, renewed by a thread of
 * the job itself (on a session cluster the client that submitted the job is gone), and checked
 * before every Delta commit.
 *
 * <p>Invariant: {@link #checkValid} passes only while less than {@code lease.duration -
 * lease.safety-margin} has elapsed, on this JVM's monotonic clock ({@link System#nanoTime}), since
 * this keeper <em>sent</em> its last renewal that succeeded. The database set that renewal's expiry
 * to (its time when it ran the statement) + {@code lease.duration}, and it ran the statement after
 * it was sent; so the lease cannot pass to another holder before the point where this writer
 * stopped committing, by at least the safety margin. The margin absorbs a commit in flight, a pause
 * between the check and the commit, and clock-rate error. See {@code docs/leader-lease.md}.
 *
 * <p>A lease that another holder took (the renewal finds the row no longer this holder's at this
 * epoch) is lost for good: this instance never commits again.
 */
public final class LeaseKeeper implements CommitLease {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

  private final LeaseSettings settings;
  private final String jobId;
  private final LazyConnection connection;
  private final ScheduledExecutorService renewer;

  private volatile LeaseRecord lease;
  private volatile long lastRenewalSentNanos;
  private volatile String lost;

  private LeaseKeeper(LeaseSettings settings, String jobId, LeaseRecord lease, long sentNanos) {
    this.settings = settings;
    this.jobId = jobId;
    this.lease = lease;
    this.lastRenewalSentNanos = sentNanos;
    this.connection = new LazyConnection(() -> open(settings), true);
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "leader-lease-renewer " + settings.lakeRoot());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Acquires the lease (at once if it is free, expired, or already this holder's: the same job
   * after a failover) and starts renewing it.
   *
   * @throws LeaseHeldException if another holder's lease is unexpired
   */
  public static LeaseKeeper start(LeaseSettings settings, String jobId) throws IOException {
    long sent = System.nanoTime();
    LeaseRecord lease;
    try (java.sql.Connection c = open(settings)) {
      lease = LeaderLease.tryAcquire(c, settings, jobId);
    } catch (SQLException e) {
      throw new IOException(
          "LEASE_UNAVAILABLE: cannot acquire the leader lease of " + settings.lakeRoot()
              + " in " + LeaderLease.TABLE + ": " + e.getMessage(), e);
    }
    LeaseKeeper keeper = new LeaseKeeper(settings, jobId, lease, sent);
    LOG.info("leader lease acquired: {}", lease.describe());
    long period = settings.renewPeriod().toMillis();
    keeper.renewer.scheduleWithFixedDelay(keeper::renew, period, period, TimeUnit.MILLISECONDS);
    return keeper;
  }

  /** The factory the sink carries into the job graph. */
  public static CommitLease.Factory factory(LeaseSettings settings) {
    return jobId -> start(settings, jobId);
  }

  /**
   * One renewal; runs on the renewer thread, and on the committer's in {@link #confirm}. Never
   * throws: a failure only ages the lease.
   */
  synchronized void renew() {
    if (lost != null) {
      return;
    }
    long sent = System.nanoTime();
    try {
      Optional<LeaseRecord> renewed =
          LeaderLease.renew(connection.get(), settings, lease.epoch(), jobId);
      if (renewed.isPresent()) {
        lease = renewed.get();
        lastRenewalSentNanos = sent;
        return;
      }
      String now =
          LeaderLease.read(connection.get(), settings.lakeRoot())
              .map(LeaseRecord::describe)
              .orElse("no lease row");
      lost = "the lease of epoch " + lease.epoch() + " was taken over: now " + now;
      LOG.error("LEASE_LOST: {}; this writer commits nothing more", lost);
    } catch (SQLException | RuntimeException e) {
      connection.discard();
      LOG.warn(
          "leader lease of {} not renewed ({}); commits stop {} after the last renewal",
          settings.lakeRoot(),
          e.toString(),
          settings.validFor());
    }
  }

  /** Renews now, on the caller's thread, then checks: a takeover since the last renewal shows. */
  @Override
  public void confirm(String what) throws LeaseLostException {
    renew();
    checkValid(what);
  }

  @Override
  public void checkValid(String what) throws LeaseLostException {
    if (lost != null) {
      throw new LeaseLostException("not committing " + what + ": " + lost, true);
    }
    long sinceRenewal = System.nanoTime() - lastRenewalSentNanos;
    if (sinceRenewal >= settings.validFor().toNanos()) {
      throw new LeaseLostException(
          "not committing "
              + what
              + ": the leader lease of "
              + settings.lakeRoot()
              + " (epoch "
              + lease.epoch()
              + ", holder "
              + settings.holder().token()
              + ") was last renewed "
              + Duration.ofNanos(sinceRenewal).toMillis()
              + " ms ago, beyond lease.duration - lease.safety-margin = "
              + settings.validFor()
              + "; another writer may take it once lease.duration has passed (is PostgreSQL"
              + " reachable?)");
    }
  }

  @Override
  public String commitTag() {
    return "lease-epoch=" + lease.epoch() + " lease-holder=" + settings.holder().token();
  }

  /** The lease as last acquired or renewed. */
  public LeaseRecord lease() {
    return lease;
  }

  /**
   * Stops renewing and, unless the lease was lost, ends it now: a stopped committer commits no
   * more, so the next writer need not wait. (A killed one never gets here; its lease expires.)
   */
  @Override
  public void close() {
    renewer.shutdownNow();
    try {
      renewer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (lost == null) {
      try {
        LeaderLease.release(connection.get(), settings, lease.epoch());
        LOG.info("leader lease of {} released (epoch {})", settings.lakeRoot(), lease.epoch());
      } catch (SQLException | RuntimeException e) {
        LOG.warn("leader lease of {} not released ({}); it expires", settings.lakeRoot(), e.toString());
      }
    }
    connection.close();
  }

  private static java.sql.Connection open(LeaseSettings s) throws SQLException {
    Properties p = new Properties();
    p.putAll(s.connectionProperties());
    // A renewal that hangs must not hold the renewer thread past the point the lease matters.
    long seconds = Math.max(1, s.renewPeriod().toSeconds());
    p.putIfAbsent("connectTimeout", Long.toString(seconds));
    p.putIfAbsent("socketTimeout", Long.toString(Math.max(2, seconds * 2)));
    p.putIfAbsent("loginTimeout", Long.toString(seconds));
    // Not DriverManager: under the N-th job's child-first class loader it finds no driver.
    return org.oml.lakewriter.jdbc.PgDriver.connect(s.jdbcUrl(), p);
  }
}
