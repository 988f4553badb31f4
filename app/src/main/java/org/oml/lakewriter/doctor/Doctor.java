package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * Runs every check of {@link DoctorRules#ALL} against PostgreSQL and the lake, never against Flink
 * state, so it diagnoses a writer that is down as well as one that runs. A check that cannot read
 * its facts is a FAIL that names the error ({@link DoctorRules#notChecked}): nothing is skipped
 * silently.
 */
public final class Doctor {
  private final LakeWriterConfig cfg;
  private final DoctorRules rules;
  private final long countLimit;
  private final java.util.Set<String> quarantined;

  /**
   * @param quarantined the tenants in quarantine (read from the lake by the caller): they keep
   *     their own frontier, so the frontier cache check does not count their lag as a lake older
   *     than the cache
   */
  public Doctor(
      LakeWriterConfig cfg,
      DoctorThresholds limits,
      long countLimit,
      java.util.Set<String> quarantined) {
    this.cfg = cfg;
    this.rules = new DoctorRules(limits);
    this.countLimit = countLimit;
    this.quarantined = java.util.Set.copyOf(quarantined);
  }

  /** One run on an open connection to the outbox's database. */
  public DoctorReport run(Connection c) {
    String writer = cfg.writerId();
    String slot = cfg.get(LakeWriterOptions.SLOT);
    String publication = cfg.get(LakeWriterOptions.PUBLICATION);
    String schema = cfg.get(LakeWriterOptions.POSTGRES_SCHEMA);
    PostgresProbe pg = new PostgresProbe(c, countLimit);
    List<Check> checks = new ArrayList<>();

    checks.add(attempt(DoctorRules.WAL_LEVEL, () -> rules.walLevel(pg.walLevel())));
    Read<Facts.Slot> slotFacts = read(() -> pg.slot(slot));
    checks.add(slotFacts.check(DoctorRules.SLOT, rules::slot));
    checks.add(slotFacts.check(DoctorRules.SLOT_RETAINED_WAL, rules::slotRetainedWal));
    checks.add(
        attempt(
            DoctorRules.PUBLICATION, () -> rules.publication(pg.publication(publication, schema))));
    Read<Facts.Horizon> horizon = read(() -> pg.horizon(writer));
    checks.add(horizon.check(DoctorRules.HORIZON_TICKING, h -> rules.horizonTicking(writer, h)));
    checks.add(
        attempt(
            DoctorRules.HORIZON_HOLDERS,
            () -> rules.horizonHolders(HorizonHolders.facts(c, writer))));
    // Without a horizon row nothing is vouched for: the stale-frontier check then sees no row
    // under the horizon, and horizon_ticking says why.
    long stable = horizon.value == null ? 0 : horizon.value.stableSeq();
    Read<Facts.Frontier> frontier = read(() -> pg.frontier(writer, stable));
    checks.add(frontier.check(DoctorRules.FRONTIER_STALE, rules::frontierStale));
    checks.addAll(lakeChecks(pg, frontier));
    checks.add(attempt(DoctorRules.DEAD_LETTERS, () -> rules.deadLetters(pg.deadLetters(writer))));
    checks.add(
        frontier.check(
            DoctorRules.OUTBOX_RETENTION,
            f -> rules.outboxRetention(pg.retention(committed(f)))));

    Read<Facts.Connection> connection =
        read(
            () ->
                pg.connection(
                    java.net.URI.create(cfg.jdbcUrl().substring("jdbc:".length())).getHost(),
                    cfg.jdbcSettings().urlParameters().get("sslmode"),
                    schema));
    checks.add(connection.check(DoctorRules.POSTGRES_TLS, rules::postgresTls));
    checks.add(connection.check(DoctorRules.WRITER_GRANTS, rules::writerGrants));

    Map<String, Object> subject = new LinkedHashMap<>();
    subject.put("writer", writer);
    subject.put("slot", slot);
    subject.put("publication", publication);
    subject.put("lake_root", cfg.lakeRoot());
    return new DoctorReport(Instant.now(), subject, checks);
  }

  /** frontier_cache, delta_checkpoint and small_files: each not checked if the lake is unread. */
  private List<Check> lakeChecks(PostgresProbe pg, Read<Facts.Frontier> frontier) {
    Read<LakeProbe> lake =
        read(
            () ->
                LakeProbe.read(
                    LakeReader.open(cfg.lake()),
                    cfg.lakeRoot()));
    Check cache =
        lake.check(
            DoctorRules.FRONTIER_CACHE,
            l -> frontier.check(DoctorRules.FRONTIER_CACHE, f -> frontierCache(pg, l, f)));
    return List.of(
        cache,
        lake.check(DoctorRules.DELTA_CHECKPOINT, l -> rules.deltaCheckpoint(l.lake())),
        lake.check(DoctorRules.SMALL_FILES, l -> rules.smallFiles(l.lake())));
  }

  private Check frontierCache(PostgresProbe pg, LakeProbe lake, Facts.Frontier f)
      throws Exception {
    long committed = committed(f);
    Object[] last = pg.lastCommitted(committed);
    String tenant = (String) last[1];
    return rules.frontierCache(
        new Facts.FrontierVsLake(
            committed,
            f.ageS(),
            lake.lakeRoot(),
            lake.stats().size(),
            lake.maxTxn(),
            (Long) last[0],
            tenant,
            lake.txnForRowOf(tenant),
            tenant != null && quarantined.contains(tenant)));
  }

  private static long committed(Facts.Frontier f) {
    return f.frontier() == null ? 0 : f.frontier();
  }

  /** Facts read once, or the error that stopped them: a check on them then names that error. */
  private static final class Read<T> {
    final T value;
    final Exception error;

    Read(T value, Exception error) {
      this.value = value;
      this.error = error;
    }

    Check check(String name, Rule<T> rule) {
      if (error != null) {
        return DoctorRules.notChecked(name, error);
      }
      try {
        return rule.apply(value);
      } catch (Exception e) {
        return DoctorRules.notChecked(name, e);
      }
    }
  }

  private interface Rule<T> {
    Check apply(T facts) throws Exception;
  }

  private static <T> Read<T> read(Probe<T> probe) {
    try {
      return new Read<>(probe.get(), null);
    } catch (Exception e) {
      return new Read<>(null, e);
    }
  }

  private interface Probe<T> {
    T get() throws Exception;
  }

  private static Check attempt(String name, Probe<Check> check) {
    try {
      return check.get();
    } catch (Exception e) {
      return DoctorRules.notChecked(name, e);
    }
  }
}
