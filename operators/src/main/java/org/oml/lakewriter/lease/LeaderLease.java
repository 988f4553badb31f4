package org.oml.lakewriter.lease;

import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The leader lease of a lake (ADR-0003 d2: exactly one lake writer, a singleton with a leader
 * lease), kept as one row of {@code oml_lake_lease} in PostgreSQL. Design and the safety argument:
 * {@code docs/leader-lease.md}.
 *
 * <p>The lease is keyed on the lake root, not on {@code writer.id}: every writer commits with the
 * same txn app id ({@code oml-lakewriter}), so two writers on one lake corrupt each other's
 * exactly-once bookkeeping whatever their writer ids, slots or state dirs are; two lakes are
 * independent.
 *
 * <p>Every decision about time is made by PostgreSQL ({@code now()}), so the holders' wall clocks
 * never meet. The only clock the holder itself uses is its monotonic clock ({@link LeaseKeeper}).
 *
 * <p>All methods are stateless and take a connection in auto-commit mode.
 */
public final class LeaderLease {
  public static final String TABLE = "oml_lake_lease";

  private static final String COLUMNS =
      "lake_root, epoch, holder, holder_host, holder_pid, job_id, writer_id, slot, acquired_at,"
          + " renewed_at, expires_at, renew_period_ms, now() AS db_now";

  /**
   * Takes the lease if it is free, expired, or already this holder's, or if it is still held by
   * the holder and epoch given as the last two parameters (a holder proven dead, {@link
   * HolderProcess}; null otherwise). A new holder gets the next epoch; the same holder (the same
   * job after a failover) keeps its epoch. One statement, so two contenders cannot both win: the
   * row lock of ON CONFLICT serializes them.
   */
  static final String ACQUIRE =
      "INSERT INTO oml_lake_lease AS l (lake_root, epoch, holder, holder_host, holder_pid, job_id,"
          + " writer_id, slot, acquired_at, renewed_at, expires_at, renew_period_ms)"
          + " VALUES (?, 1, ?, ?, ?, ?, ?, ?, now(), now(), now() + ? * interval '1 millisecond', ?)"
          + " ON CONFLICT (lake_root) DO UPDATE SET"
          + "   epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END,"
          + "   acquired_at = CASE WHEN l.holder = EXCLUDED.holder THEN l.acquired_at"
          + "     ELSE EXCLUDED.acquired_at END,"
          + "   holder = EXCLUDED.holder, holder_host = EXCLUDED.holder_host,"
          + "   holder_pid = EXCLUDED.holder_pid,"
          + "   job_id = coalesce(EXCLUDED.job_id, CASE WHEN l.holder = EXCLUDED.holder"
          + "     THEN l.job_id END),"
          + "   writer_id = EXCLUDED.writer_id, slot = EXCLUDED.slot,"
          + "   renewed_at = EXCLUDED.renewed_at, expires_at = EXCLUDED.expires_at,"
          + "   renew_period_ms = EXCLUDED.renew_period_ms"
          + " WHERE l.holder = EXCLUDED.holder OR l.expires_at <= now()"
          + "   OR (l.holder = ? AND l.epoch = ?)"
          + " RETURNING "
          + COLUMNS;

  /** Extends the lease only if this holder still has it at this epoch: a taken lease stays lost. */
  static final String RENEW =
      "UPDATE oml_lake_lease SET renewed_at = now(),"
          + " expires_at = now() + ? * interval '1 millisecond', job_id = coalesce(?, job_id)"
          + " WHERE lake_root = ? AND holder = ? AND epoch = ? RETURNING "
          + COLUMNS;

  /** Ends the lease now, if it is still this holder's: a cleanly stopped writer frees the lake. */
  static final String RELEASE =
      "UPDATE oml_lake_lease SET expires_at = least(expires_at, now())"
          + " WHERE lake_root = ? AND holder = ? AND epoch = ?";

  private LeaderLease() {}

  /**
   * The lease key of a lake root: the same lake written as {@code /lake}, {@code file:/lake/} or
   * {@code file:///lake} is one key; other schemes lose their trailing slashes.
   */
  public static String key(String lakeRoot) {
    String root = lakeRoot.trim();
    if (!root.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
      return Path.of(root).toAbsolutePath().normalize().toUri().toString().replaceAll("/+$", "");
    }
    URI uri = URI.create(root).normalize();
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("file")) {
      return Path.of(uri).normalize().toUri().toString().replaceAll("/+$", "");
    }
    return scheme + root.substring(scheme.length()).replaceAll("/+$", "");
  }

  /** The lease of the lake, as the database sees it now; empty if it was never taken. */
  public static Optional<LeaseRecord> read(Connection c, String lakeRoot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + COLUMNS + " FROM oml_lake_lease WHERE lake_root = ?")) {
      ps.setString(1, key(lakeRoot));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(record(rs)) : Optional.empty();
      }
    }
  }

  /**
   * True if a live writer holds the lake's lease: it is unexpired and its holder renewed it within
   * two of its renew periods. For a caller that must tell a live writer from a dead one's leftovers
   * (a replication slot still held by a killed writer's walsender): false means no writer has
   * renewed this lease lately, so no live writer of this lake is running.
   */
  public static boolean isHeldByLiveHolder(Connection c, String lakeRoot) throws SQLException {
    return read(c, lakeRoot).map(LeaseRecord::live).orElse(false);
  }

  /**
   * The live lease (of any lake) whose holder uses replication slot {@code slot}, other than the
   * holder {@code exceptHolder} (this process's own token, or null). For a start that finds its
   * slot active: a live writer's slot is refused; a slot no live holder uses belongs to a dead
   * writer's walsender and can be waited for.
   */
  public static Optional<LeaseRecord> liveHolderUsingSlot(
      Connection c, String slot, String exceptHolder) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + COLUMNS + " FROM oml_lake_lease WHERE slot = ?"
                + " AND holder IS DISTINCT FROM ? AND expires_at > now()")) {
      ps.setString(1, slot);
      ps.setString(2, exceptHolder);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          LeaseRecord r = record(rs);
          if (r.live()) {
            return Optional.of(r);
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * One attempt to take the lease.
   *
   * @throws LeaseHeldException if another holder has an unexpired lease
   */
  public static LeaseRecord tryAcquire(Connection c, LeaseSettings s, String jobId)
      throws SQLException {
    Optional<LeaseRecord> taken = acquireStatement(c, s, jobId, null);
    if (taken.isPresent()) {
      return taken.get();
    }
    String key = key(s.lakeRoot());
    LeaseRecord current =
        read(c, key)
            .orElseThrow(() -> new SQLException("lease row of " + key + " vanished while held"));
    throw new LeaseHeldException(current, "");
  }

  /** {@link #ACQUIRE}, also over {@code dead}'s lease if given; empty if not taken. */
  private static Optional<LeaseRecord> acquireStatement(
      Connection c, LeaseSettings s, String jobId, LeaseRecord dead) throws SQLException {
    String key = key(s.lakeRoot());
    try (PreparedStatement ps = c.prepareStatement(ACQUIRE)) {
      ps.setString(1, key);
      ps.setString(2, s.holder().token());
      ps.setString(3, s.holder().host());
      ps.setLong(4, s.holder().pid());
      ps.setString(5, jobId);
      ps.setString(6, s.writerId());
      ps.setString(7, s.slot());
      ps.setLong(8, s.duration().toMillis());
      ps.setLong(9, s.renewPeriod().toMillis());
      ps.setString(10, dead == null ? null : dead.holder());
      ps.setObject(11, dead == null ? null : dead.epoch(), java.sql.Types.BIGINT);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(record(rs)) : Optional.empty();
      }
    }
  }

  /**
   * Takes the lease of another holder before it expires if that holder is provably dead ({@link
   * HolderProcess}: its job ran in a process of this machine that has ended) and this start may
   * have it: the lease names no job, or this start resumes that job (the same rule as for an
   * expired lease's reservation, so a second writer by mistake still waits). Empty if not taken.
   */
  private static Optional<LeaseRecord> takeFromDeadHolder(
      Connection c,
      LeaseSettings s,
      LeaseRecord lease,
      Predicate<String> resumesJob,
      Consumer<String> progress)
      throws SQLException {
    if (lease.holder().equals(s.holder().token())
        || lease.expired()
        || (lease.jobId() != null && !resumesJob.test(lease.jobId()))) {
      return Optional.empty();
    }
    Optional<String> death =
        HolderProcess.deathOf(lease, s.holder().host(), HolderProcess.current());
    if (death.isEmpty()) {
      return Optional.empty();
    }
    Optional<LeaseRecord> taken = acquireStatement(c, s, null, lease);
    taken.ifPresent(
        t ->
            progress.accept(
                "the leader lease of "
                    + lease.lakeRoot()
                    + " was held by "
                    + lease.holder()
                    + " (epoch "
                    + lease.epoch()
                    + ", expiring "
                    + lease.expiresAt()
                    + "), whose "
                    + death.get()
                    + ": taken over at once, not at its expiry"));
    return taken;
  }

  /**
   * Takes the lease, waiting up to {@code wait} for a lease whose holder stopped renewing (a writer
   * killed a moment ago) to expire. A holder seen renewing during the wait is alive: refused at
   * once. Progress (who holds it, until when) goes to {@code progress}. A holder proven dead (its
   * job ran in a process of this machine that has ended) does not make this start wait: its lease
   * is taken at once, subject to the reservation below ({@link #takeFromDeadHolder}).
   *
   * <p>The restart of the holder that stopped has precedence: a lease that expired is reserved,
   * for one more {@code lease.duration}, to a start that resumes the holder's job ({@code
   * resumesJob} of the lease's job id is true: its state.dir holds that job's checkpoints). Any
   * other start (a second writer by mistake, with a state.dir of its own) takes an expired lease
   * only after that; if the restart came, it finds a live holder and is refused. Without this, a
   * supervisor's restart and a mistaken second writer both waiting for a killed holder's lease
   * raced for it at its expiry, and the restart could lose (docs/leader-lease.md). A lease with no
   * job id yet (its holder died before its job ran) is reserved to no one.
   *
   * @throws LeaseHeldException if a live holder has it, or it did not expire within {@code wait}
   */
  public static LeaseRecord acquire(
      Connection c,
      LeaseSettings s,
      Duration wait,
      Predicate<String> resumesJob,
      Consumer<String> progress)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    LeaseRecord seen = null;
    long lastReport = 0;
    while (true) {
      Optional<LeaseRecord> current = read(c, key(s.lakeRoot()));
      if (current.isPresent()) {
        Optional<LeaseRecord> fromDead =
            takeFromDeadHolder(c, s, current.get(), resumesJob, progress);
        if (fromDead.isPresent()) {
          return fromDead.get();
        }
      }
      Optional<Instant> reserved = current.flatMap(l -> reservedUntil(l, s, resumesJob));
      LeaseRecord now;
      if (reserved.isEmpty()) {
        try {
          return tryAcquire(c, s, null);
        } catch (LeaseHeldException held) {
          now = held.current();
        }
      } else {
        now = current.get();
      }
      if (seen != null
          && seen.holder().equals(now.holder())
          && now.renewedAt().isAfter(seen.renewedAt())) {
        throw new LeaseHeldException(now, "its holder renewed it while this writer waited: it is alive");
      }
      if (seen == null || !seen.holder().equals(now.holder())) {
        seen = now;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new LeaseHeldException(
            now,
            wait.isZero()
                ? ""
                : reserved.isPresent()
                    ? "it expired, but stays reserved to a restart of job "
                        + now.jobId()
                        + " until "
                        + reserved.get()
                        + ", after lease.wait = "
                        + wait
                    : "it did not expire within lease.wait = " + wait);
      }
      if (System.nanoTime() - lastReport > Duration.ofSeconds(5).toNanos() || lastReport == 0) {
        progress.accept(
            "waiting up to "
                + Duration.ofNanos(left).toSeconds()
                + " s for the leader lease of "
                + now.lakeRoot()
                + ": "
                + now.describe()
                + (reserved.isPresent()
                    ? "; it expired and is reserved until "
                        + reserved.get()
                        + " to a restart of job "
                        + now.jobId()
                        + " (this start resumes another state)"
                    : "; a live holder renews every "
                        + now.renewPeriod()
                        + " (then this start is refused), a dead one's lease expires"));
        lastReport = System.nanoTime();
      }
      Instant until = reserved.orElse(now.expiresAt());
      Duration untilFree = Duration.between(now.dbNow(), until);
      long pollMs =
          Math.max(
              50,
              Math.min(
                  Math.min(untilFree.toMillis() + 20, now.renewPeriod().toMillis() / 2),
                  Duration.ofNanos(left).toMillis()));
      Thread.sleep(pollMs);
    }
  }

  /**
   * When an expired lease of another holder stops being reserved to its own restart, if this
   * start is not that restart and the reservation still runs; else empty.
   */
  static Optional<Instant> reservedUntil(
      LeaseRecord lease, LeaseSettings s, Predicate<String> resumesJob) {
    if (lease.holder().equals(s.holder().token())
        || !lease.expired()
        || lease.jobId() == null
        || resumesJob.test(lease.jobId())) {
      return Optional.empty();
    }
    Instant until = lease.expiresAt().plus(s.duration());
    return lease.dbNow().isBefore(until) ? Optional.of(until) : Optional.empty();
  }

  /**
   * Extends this holder's lease. Empty if the lease is no longer this holder's at this epoch.
   */
  public static Optional<LeaseRecord> renew(
      Connection c, LeaseSettings s, long epoch, String jobId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RENEW)) {
      ps.setLong(1, s.duration().toMillis());
      ps.setString(2, jobId);
      ps.setString(3, key(s.lakeRoot()));
      ps.setString(4, s.holder().token());
      ps.setLong(5, epoch);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(record(rs)) : Optional.empty();
      }
    }
  }

  /** Ends this holder's lease now (a clean stop); a lease taken by another is left alone. */
  public static void release(Connection c, LeaseSettings s, long epoch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RELEASE)) {
      ps.setString(1, key(s.lakeRoot()));
      ps.setString(2, s.holder().token());
      ps.setLong(3, epoch);
      ps.executeUpdate();
    }
  }

  private static LeaseRecord record(ResultSet rs) throws SQLException {
    long pid = rs.getLong("holder_pid");
    boolean noPid = rs.wasNull();
    return new LeaseRecord(
        rs.getString("lake_root"),
        rs.getLong("epoch"),
        rs.getString("holder"),
        rs.getString("holder_host"),
        noPid ? null : pid,
        rs.getString("job_id"),
        rs.getString("writer_id"),
        rs.getString("slot"),
        instant(rs, "acquired_at"),
        instant(rs, "renewed_at"),
        instant(rs, "expires_at"),
        Duration.ofMillis(rs.getLong("renew_period_ms")),
        instant(rs, "db_now"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    java.sql.Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
