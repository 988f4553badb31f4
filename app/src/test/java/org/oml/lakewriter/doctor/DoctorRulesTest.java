package org.oml.lakewriter.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each rule of {@link DoctorRules} on hand-made facts: the status, the finding and the fix. */
class DoctorRulesTest {
  private static final DoctorThresholds LIMITS =
      new DoctorThresholds(
          1000, Duration.ofSeconds(60), Duration.ofSeconds(600), Duration.ofSeconds(300), 50, 100,
          8L << 20, 128L << 10);
  private final DoctorRules rules = new DoctorRules(LIMITS);

  @Test
  void walLevel() {
    assertThat(rules.walLevel("logical").status()).isEqualTo(CheckStatus.OK);
    Check replica = rules.walLevel("replica");
    assertThat(replica.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(replica.finding()).contains("'replica'");
    assertThat(replica.fix()).contains("ALTER SYSTEM SET wal_level = logical");
  }

  @Test
  void slotMissingInactiveActiveOrOfAnotherPlugin() {
    assertThat(rules.slot(Facts.Slot.missing("s", "-1", "db")).status()).isEqualTo(CheckStatus.FAIL);
    assertThat(rules.slot(Facts.Slot.missing("s", "-1", "db")).fix()).contains("init-db");
    Check inactive = rules.slot(slot(false, 10L, "reserved"));
    assertThat(inactive.status()).isEqualTo(CheckStatus.WARN);
    assertThat(inactive.finding()).contains("inactive");
    assertThat(rules.slot(slot(true, 10L, "reserved")).status()).isEqualTo(CheckStatus.OK);
    Facts.Slot wrong =
        new Facts.Slot("s", true, "db", "test_decoding", true, 1, 0L, "reserved", null, "-1", "db");
    assertThat(rules.slot(wrong).status()).isEqualTo(CheckStatus.FAIL);
    Facts.Slot elsewhere =
        new Facts.Slot("s", true, "other", "pgoutput", true, 1, 0L, "reserved", null, "-1", "db");
    assertThat(rules.slot(elsewhere).status()).isEqualTo(CheckStatus.FAIL);
    assertThat(rules.slot(elsewhere).finding()).contains("belongs to database other, not to the writer's db");
  }

  @Test
  void retainedWalByWalStatusAndSize() {
    assertThat(rules.slotRetainedWal(slot(true, 10L, "reserved")).status())
        .isEqualTo(CheckStatus.OK);
    assertThat(rules.slotRetainedWal(slot(true, 5000L, "reserved")).status())
        .isEqualTo(CheckStatus.WARN);
    assertThat(rules.slotRetainedWal(slot(true, 10L, "extended")).status())
        .isEqualTo(CheckStatus.WARN);
    assertThat(rules.slotRetainedWal(slot(true, 10L, "unreserved")).status())
        .isEqualTo(CheckStatus.FAIL);
    Check lost = rules.slotRetainedWal(slot(false, null, "lost"));
    assertThat(lost.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(lost.finding()).contains("SLOT_INVALIDATED");
    assertThat(rules.slotRetainedWal(slot(true, 10L, "reserved")).finding())
        .contains("max_slot_wal_keep_size -1 (unlimited");
  }

  @Test
  void publicationMissingTablesExtraTablesAndActions() {
    Set<String> required = Set.of("public.oml_outbox", "public.oml_lake_horizon");
    Check ok =
        rules.publication(new Facts.Publication("p", true, true, true, false, required, required));
    assertThat(ok.status()).isEqualTo(CheckStatus.OK);
    Check missing =
        rules.publication(
            new Facts.Publication("p", true, true, true, false, Set.of("public.oml_outbox"), required));
    assertThat(missing.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(missing.finding()).contains("public.oml_lake_horizon");
    assertThat(missing.fix()).isEqualTo("ALTER PUBLICATION p ADD TABLE public.oml_lake_horizon");
    Check extra =
        rules.publication(
            new Facts.Publication(
                "p", true, true, true, false,
                Set.of("public.oml_outbox", "public.oml_lake_horizon", "public.other"), required));
    assertThat(extra.status()).isEqualTo(CheckStatus.WARN);
    assertThat(extra.fix()).contains("DROP TABLE public.other");
    assertThat(
            rules.publication(new Facts.Publication("p", true, true, false, false, required, required))
                .status())
        .isEqualTo(CheckStatus.FAIL);
    assertThat(
            rules.publication(new Facts.Publication("p", false, false, false, false, Set.of(), required))
                .fix())
        .contains("init-db");
  }

  @Test
  void horizonTickingByAge() {
    assertThat(rules.horizonTicking("w", new Facts.Horizon(false, 0, null, null)).status())
        .isEqualTo(CheckStatus.FAIL);
    assertThat(rules.horizonTicking("w", new Facts.Horizon(true, 5, null, 1.0)).status())
        .isEqualTo(CheckStatus.OK);
    Check stale = rules.horizonTicking("w", new Facts.Horizon(true, 5, 6L, 61.0));
    assertThat(stale.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(stale.finding()).contains("61 s ago");
  }

  @Test
  void aHolderWarnsAndFailsOnceOlderThanTheLimitNamingGidOrPid() {
    assertThat(rules.horizonHolders(List.of()).status()).isEqualTo(CheckStatus.OK);
    Facts.Holder prepared =
        new Facts.Holder("prepared", null, "g1", "900", "db", "alice", "t", 30, "prepared", null);
    Check young = rules.horizonHolders(List.of(prepared));
    assertThat(young.status()).isEqualTo(CheckStatus.WARN);
    assertThat(young.finding()).contains("prepared transaction 'g1'");
    assertThat(young.fix()).contains("COMMIT PREPARED 'g1'");
    Facts.Holder open =
        new Facts.Holder(
            "transaction", 4242, null, "901", "db", "bob", "t", 601, "idle in transaction",
            "INSERT INTO oml_outbox");
    Check old = rules.horizonHolders(List.of(prepared, open));
    assertThat(old.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(old.finding()).contains("pid 4242").contains("(and 1 more)");
    assertThat(old.fix()).contains("pg_terminate_backend(4242)");
  }

  @Test
  void aStaleFrontierFailsOnlyWhenTheHorizonVouchesForWaitingRows() {
    Instant t = Instant.parse("2026-12-01T00:00:00Z");
    assertThat(rules.frontierStale(new Facts.Frontier(10L, 999.0, t, 0, false, 0, 10)).status())
        .isEqualTo(CheckStatus.OK);
    assertThat(rules.frontierStale(new Facts.Frontier(10L, 5.0, t, 3, false, 3, 13)).status())
        .isEqualTo(CheckStatus.OK);
    Check stuck = rules.frontierStale(new Facts.Frontier(10L, 999.0, t, 3, false, 3, 13));
    assertThat(stuck.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(stuck.finding()).contains("not committing");
    Check held = rules.frontierStale(new Facts.Frontier(10L, 999.0, t, 3, true, 0, 10));
    assertThat(held.status()).isEqualTo(CheckStatus.WARN);
    assertThat(held.finding()).contains("at least 3 rows");
    assertThat(rules.frontierStale(new Facts.Frontier(null, null, null, 3, false, 3, 3)).status())
        .isEqualTo(CheckStatus.WARN);
  }

  @Test
  void theFrontierCacheAgainstTheLake() {
    assertThat(
            rules.frontierCache(new Facts.FrontierVsLake(0, null, "file:/l", 0, -1, null, null, -1, false))
                .status())
        .isEqualTo(CheckStatus.OK);
    Check noLake =
        rules.frontierCache(new Facts.FrontierVsLake(9, 1.0, "file:/l", 0, -1, 9L, "acme", -1, false));
    assertThat(noLake.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(noLake.finding()).contains("no lake table under file:/l");
    Check older =
        rules.frontierCache(new Facts.FrontierVsLake(9, 1.0, "file:/l", 3, 5, 9L, "acme", 5, false));
    assertThat(older.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(older.finding()).contains("seq 9 of tenant acme");
    Check quarantined =
        rules.frontierCache(new Facts.FrontierVsLake(9, 1.0, "file:/l", 3, 5, 9L, "acme", 5, true));
    assertThat(quarantined.status()).isEqualTo(CheckStatus.WARN);
    assertThat(quarantined.finding()).contains("quarantined");
    assertThat(
            rules.frontierCache(new Facts.FrontierVsLake(9, 1.0, "file:/l", 3, 9, 9L, "acme", 9, false))
                .status())
        .isEqualTo(CheckStatus.OK);
    assertThat(
            rules.frontierCache(new Facts.FrontierVsLake(9, 999.0, "file:/l", 3, 20, 9L, "acme", 20, false))
                .status())
        .isEqualTo(CheckStatus.WARN);
  }

  @Test
  void checkpointAndSmallFilesByThreshold() {
    Facts.Lake lake =
        new Facts.Lake(
            "file:/l",
            List.of(
                new Facts.LakeTable("acme/bronze/journal_events", 60, null, 61, 10, 3, 1 << 20),
                new Facts.LakeTable("acme/silver/memories", 60, 60L, 0, 10, 101, 1000)));
    Check cp = rules.deltaCheckpoint(lake);
    assertThat(cp.status()).isEqualTo(CheckStatus.WARN);
    assertThat(cp.finding()).contains("acme/bronze/journal_events: 61 commits since its creation");
    Check small = rules.smallFiles(lake);
    assertThat(small.status()).isEqualTo(CheckStatus.WARN);
    assertThat(small.finding()).contains("acme/silver/memories: 101 files");
    Facts.Lake fine =
        new Facts.Lake(
            "file:/l", List.of(new Facts.LakeTable("acme/dead_letter", 5, null, 6, 10, 101, 9L << 20)));
    assertThat(rules.deltaCheckpoint(fine).status()).isEqualTo(CheckStatus.OK);
    assertThat(rules.smallFiles(fine).status()).isEqualTo(CheckStatus.OK);
  }

  /**
   * Without {@code --max-commits-without-checkpoint}, each table is held to five of its own
   * checkpoint intervals: 120 commits are fine at 100 and not at 10.
   */
  @Test
  void checkpointLimitIsFiveOfTheTablesOwnIntervalsByDefault() {
    DoctorRules byTable = new DoctorRules(DoctorThresholds.defaults());
    Facts.Lake lake =
        new Facts.Lake(
            "file:/l",
            List.of(
                new Facts.LakeTable("acme/bronze/journal_events", 620, 500L, 120, 100, 3, 1 << 20),
                new Facts.LakeTable("acme/silver/memories", 620, 500L, 120, 10, 3, 1 << 20)));
    Check cp = byTable.deltaCheckpoint(lake);
    assertThat(cp.status()).isEqualTo(CheckStatus.WARN);
    assertThat(cp.finding())
        .startsWith("1 table(s)")
        .contains("acme/silver/memories: 120 commits since checkpoint 500 (more than 50)");
    assertThat(cp.fix()).contains("lake.log-checkpoint-interval");
    Facts.Lake fine =
        new Facts.Lake(
            "file:/l",
            List.of(
                new Facts.LakeTable("acme/bronze/journal_events", 620, 500L, 120, 100, 3, 1 << 20),
                new Facts.LakeTable("acme/silver/memories", 540, 500L, 40, 10, 3, 1 << 20)));
    Check ok = byTable.deltaCheckpoint(fine);
    assertThat(ok.status()).isEqualTo(CheckStatus.OK);
    assertThat(ok.finding()).contains("5x its delta.checkpointInterval");
  }

  /** Keyed tables are kept in files of the keyed target: only files below its half warn. */
  @Test
  void keyedTablesHaveTheirOwnSmallFileSize() {
    long capped = 256L << 10;
    Facts.Lake keyed =
        new Facts.Lake(
            "file:/l",
            List.of(
                new Facts.LakeTable("acme/silver/memories", 60, 60L, 0, 10, 101, capped),
                new Facts.LakeTable("acme/gold/lineage", 60, 60L, 0, 10, 101, capped),
                new Facts.LakeTable("acme/gold/workarea_memories", 60, 60L, 0, 10, 101, capped)));
    assertThat(rules.smallFiles(keyed).status()).isEqualTo(CheckStatus.OK);
    Check bronze =
        rules.smallFiles(
            new Facts.Lake(
                "file:/l",
                List.of(new Facts.LakeTable("acme/bronze/journal_events", 60, 60L, 0, 10, 101, capped))));
    assertThat(bronze.status()).isEqualTo(CheckStatus.WARN);
    Check tiny =
        rules.smallFiles(
            new Facts.Lake(
                "file:/l",
                List.of(new Facts.LakeTable("acme/gold/lineage", 60, 60L, 0, 10, 101, 100L << 10))));
    assertThat(tiny.status()).isEqualTo(CheckStatus.WARN);
    assertThat(tiny.finding()).contains("acme/gold/lineage: 101 files").contains("128.0 KiB)");
    assertThat(tiny.fix()).contains("maintenance.compact.keyed-target-file-size");
  }

  @Test
  void deadLettersWaiting() {
    assertThat(rules.deadLetters(new Facts.DeadLetters(0, Map.of(), Map.of(), null)).status())
        .isEqualTo(CheckStatus.OK);
    Check waiting =
        rules.deadLetters(
            new Facts.DeadLetters(2, Map.of("UNKNOWN_KIND", 2L), Map.of("acme", 2L), 12.0));
    assertThat(waiting.status()).isEqualTo(CheckStatus.WARN);
    assertThat(waiting.finding()).contains("2 dead letter(s)").contains("UNKNOWN_KIND");
    assertThat(waiting.fix()).contains("dead-letters requeue");
  }

  @Test
  void retentionFailsWhenTheOutboxStartsAboveFrontierPlusOne() {
    assertThat(rules.outboxRetention(new Facts.Retention(10, null, 10)).status())
        .isEqualTo(CheckStatus.OK);
    assertThat(rules.outboxRetention(new Facts.Retention(10, 1L, 20)).status())
        .isEqualTo(CheckStatus.OK);
    assertThat(rules.outboxRetention(new Facts.Retention(10, 11L, 20)).status())
        .isEqualTo(CheckStatus.OK);
    Check pruned = rules.outboxRetention(new Facts.Retention(10, 15L, 20));
    assertThat(pruned.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(pruned.finding()).contains("seqs 11..14 have no row");
    assertThat(pruned.details()).containsEntry("missing_from", 11L).containsEntry("missing_to", 14L);
  }

  @Test
  void aCheckThatCannotRunIsAFailNamingTheError() {
    Check c =
        DoctorRules.notChecked(
            DoctorRules.DEAD_LETTERS,
            new java.sql.SQLException("relation \"oml_lake_dead_letter\" does not exist", "42P01"));
    assertThat(c.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(c.finding()).startsWith("not checked: relation");
    assertThat(c.fix()).contains("init-db");
  }

  private static Facts.Slot slot(boolean active, Long retained, String walStatus) {
    return new Facts.Slot(
        "s", true, "db", "pgoutput", active, active ? 77 : null, retained, walStatus, null, "-1",
        "db");
  }

  /** Issue 16: TLS to a remote host, verified; and the writer's grants. */
  @Test
  void postgresTlsAndWriterGrants() {
    Check plainRemote = rules.postgresTls(conn("db.internal", null, false, null, List.of()));
    assertThat(plainRemote.status()).isEqualTo(CheckStatus.WARN);
    assertThat(plainRemote.finding()).contains("not encrypted").contains("unset (pgjdbc's prefer)");
    assertThat(plainRemote.fix()).contains("sslmode=verify-full");
    assertThat(rules.postgresTls(conn("127.0.0.1", null, false, null, List.of())).status())
        .isEqualTo(CheckStatus.OK);
    Check unverified = rules.postgresTls(conn("db.internal", "require", true, "TLSv1.3", List.of()));
    assertThat(unverified.status()).isEqualTo(CheckStatus.WARN);
    assertThat(unverified.finding()).contains("not verified (sslmode require)");
    Check verified =
        rules.postgresTls(conn("db.internal", "verify-full", true, "TLSv1.3", List.of()));
    assertThat(verified.status()).isEqualTo(CheckStatus.OK);
    assertThat(verified.finding()).isEqualTo("TLSv1.3, sslmode verify-full");

    assertThat(rules.writerGrants(conn("h", null, true, null, List.of())).status())
        .isEqualTo(CheckStatus.OK);
    Check missing =
        rules.writerGrants(
            conn("h", null, true, null, List.of("SELECT on TABLE public.oml_outbox (the CDC)")));
    assertThat(missing.status()).isEqualTo(CheckStatus.FAIL);
    assertThat(missing.finding()).contains("MISSING_GRANT").contains("SELECT on TABLE public.oml_outbox");
    assertThat(missing.fix()).isEqualTo(
        "as the contract's owner: lakewriter init-db --grant-to lw (docs/least-privilege.md)");
  }

  private static Facts.Connection conn(
      String host, String sslmode, boolean ssl, String version, List<String> missing) {
    return new Facts.Connection("lw", host, sslmode, ssl, version, false, missing);
  }
}
