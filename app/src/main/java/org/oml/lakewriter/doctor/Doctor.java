package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.delta.LakeConfig;
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
    Facts.Slot slotFacts = orNull(() -> pg.slot(slot));
    checks.add(attempt(DoctorRules.SLOT, () -> rules.slot(pg.slot(slot))));
    checks.add(
        attempt(DoctorRules.SLOT_RETAINED_WAL, () -> rules.slotRetainedWal(slotFacts != null ? slotFacts : pg.slot(slot))));
    checks.add(
        attempt(DoctorRules.PUBLICATION, () -> rules.publication(pg.publication(publication, schema))));
    Facts.Horizon horizon = orNull(() -> pg.horizon(writer));
    checks.add(attempt(DoctorRules.HORIZON_TICKING, () -> rules.horizonTicking(writer, pg.horizon(writer))));
    checks.add(
        attempt(DoctorRules.HORIZON_HOLDERS, () -> rules.horizonHolders(HorizonHolders.facts(c, writer))));
    long stable = horizon == null ? 0 : horizon.stableSeq();
    Facts.Frontier frontier = orNull(() -> pg.frontier(writer, stable));
    checks.add(attempt(DoctorRules.FRONTIER_STALE, () -> rules.frontierStale(pg.frontier(writer, stable))));
    long committed = frontier == null || frontier.frontier() == null ? 0 : frontier.frontier();

    LakeProbe lake;
    try {
      lake = LakeProbe.read(
          LakeReader.open(new LakeConfig(cfg.lakeRoot(), cfg.hadoopProperties())), cfg.lakeRoot());
    } catch (Exception e) {
      lake = null;
      checks.add(DoctorRules.notChecked(DoctorRules.FRONTIER_CACHE, e));
      checks.add(DoctorRules.notChecked(DoctorRules.DELTA_CHECKPOINT, e));
      checks.add(DoctorRules.notChecked(DoctorRules.SMALL_FILES, e));
    }
    if (lake != null) {
      LakeProbe l = lake;
      Double frontierAge = frontier == null ? null : frontier.ageS();
      checks.add(
          attempt(
              DoctorRules.FRONTIER_CACHE,
              () -> {
                Object[] last = pg.lastCommitted(committed);
                String tenant = (String) last[1];
                long tenantTxn = l.txnForRowOf(tenant);
                return rules.frontierCache(
                    new Facts.FrontierVsLake(
                        committed, frontierAge, l.lakeRoot(), l.stats().size(), l.maxTxn(),
                        (Long) last[0], tenant, tenantTxn,
                        tenant != null && quarantined.contains(tenant)));
              }));
      checks.add(attempt(DoctorRules.DELTA_CHECKPOINT, () -> rules.deltaCheckpoint(l.lake())));
      checks.add(attempt(DoctorRules.SMALL_FILES, () -> rules.smallFiles(l.lake())));
    }
    checks.add(attempt(DoctorRules.DEAD_LETTERS, () -> rules.deadLetters(pg.deadLetters(writer))));
    checks.add(
        attempt(DoctorRules.OUTBOX_RETENTION, () -> rules.outboxRetention(pg.retention(committed))));

    Map<String, Object> subject = new LinkedHashMap<>();
    subject.put("writer", writer);
    subject.put("slot", slot);
    subject.put("publication", publication);
    subject.put("lake_root", cfg.lakeRoot());
    return new DoctorReport(Instant.now(), subject, checks);
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

  private static <T> T orNull(Probe<T> probe) {
    try {
      return probe.get();
    } catch (Exception e) {
      return null;
    }
  }
}
