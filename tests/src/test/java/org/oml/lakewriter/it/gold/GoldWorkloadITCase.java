package org.oml.lakewriter.it.gold;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 15, end to end: {@code lakewriter run} in its own JVM under a workload with validations,
 * revocations, promotions, re-promotions, every retraction kind and reassigns between validated
 * and unvalidated workareas ({@link GoldWorkload}), in varied orders within and across batches
 * (25 rows a batch), across a SIGKILL and a {@code --restore}. Then:
 *
 * <ol>
 *   <li>an independent reader ({@code LakeReader}) sees each tenant's gold equal, row for row and
 *       column for column, to the fold of the outbox this test computes on its own ({@link
 *       OutboxGoldFold}), the dead letters being exactly the malformed validations it inserted;
 *   <li>{@code verify} finds nothing, and {@code maintain rebuild-gold --check} no difference;
 *   <li>after {@code maintain rebuild-gold}, each gold table equals the streamed one row for row,
 *       at bronze's txn version.
 * </ol>
 */
class GoldWorkloadITCase {
  private static final Duration WAIT = Duration.ofSeconds(150);
  private static final String WRITER = "w1";
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void streamedGoldEqualsTheOutboxFoldAndItsRebuildAcrossASigkillAndRestore() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      List<String> args = runArgs(db, lake, tmp.resolve("state"));
      GoldWorkload workload = new GoldWorkload(15);
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong written = new AtomicLong();
      Thread producer = new Thread(() -> produce(db, workload, writing, written), "gold-producer");

      Process first = CliProcess.start(args, tmp.resolve("run-1.log"));
      producer.start();
      CommittedFrontier.await(db, WRITER, 200, WAIT);
      first.destroyForcibly(); // SIGKILL: no savepoint
      assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      long atKill = CommittedFrontier.read(db, WRITER);

      List<String> restore = new ArrayList<>(args);
      restore.add("--restore");
      Process second = CliProcess.start(restore, tmp.resolve("run-2.log"));
      long max;
      try {
        CliProcess.awaitLog(second, tmp.resolve("run-2.log"), "restored from", WAIT);
        while (written.get() < 900) {
          Thread.sleep(200);
        }
        writing.set(false);
        producer.join();
        max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        assertThat(max).isGreaterThan(atKill);
        CommittedFrontier.await(db, WRITER, max, WAIT);
      } finally {
        writing.set(false);
        second.destroy(); // SIGTERM: stop with a savepoint, the lease released
        if (!second.waitFor(60, TimeUnit.SECONDS)) {
          second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      }

      LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
      // 1. The dead letters are exactly the malformed validations, and gold equals the test's fold.
      Set<Long> dead = new HashSet<>();
      LakeDeadLetters.rows(reader).forEach(r -> dead.add((Long) r.get("seq")));
      assertThat(dead).isEqualTo(workload.malformed);
      Map<String, OutboxGoldFold.Gold> expected;
      try (Connection c = db.connect()) {
        expected = OutboxGoldFold.fold(c, dead);
      }
      assertThat(expected.keySet()).containsExactlyInAnyOrderElementsOf(GoldWorkload.TENANTS);
      Map<TableId, List<Map<String, Object>>> streamed = new TreeMap<>();
      for (String tenant : GoldWorkload.TENANTS) {
        OutboxGoldFold.Gold gold = expected.get(tenant);
        assertThat(gold.memories()).as("memories of " + tenant).isNotEmpty();
        assertThat(gold.workareas().values()).extracting(w -> w.get("state"))
            .contains("validated", "invalidated");
        assertEqual(reader, tenant, TableKind.GOLD_LINEAGE, gold.lineage(), streamed);
        assertEqual(reader, tenant, TableKind.GOLD_WORKAREA_MEMORIES, gold.memories(), streamed);
        assertEqual(reader, tenant, TableKind.GOLD_WORKAREAS, gold.workareas(), streamed);
      }
      assertWorkloadCoverage(expected);
      assertThat(db.scalarLong("SELECT count(*) FROM (SELECT 1 FROM oml_outbox WHERE kind ="
          + " 'materialize' GROUP BY tenant_id, artifact_id, artifact_version HAVING count(*) > 1)"
          + " AS repromoted")).as("re-promotions").isPositive();
      assertThat(db.scalarLong("SELECT count(*) FROM oml_outbox r WHERE kind = 'reassign' AND"
          + " EXISTS (SELECT 1 FROM oml_outbox v WHERE v.kind = 'workarea_validated' AND v.seq <"
          + " r.seq AND v.tenant_id = r.tenant_id AND v.workarea_id = r.workarea_id)"))
          .as("reassigns into a workarea validated before").isPositive();

      // 2. verify and rebuild-gold --check agree.
      try (Connection c = db.connect()) {
        assertThat(LakeVerifier.verify(c, "public", reader, max).problems()).isEmpty();
      }
      Map<String, String> options = options(db, lake);
      for (String tenant : GoldWorkload.TENANTS) {
        CliRun.Result check =
            CliRun.run(options, "maintain", "rebuild-gold", "--tenant", tenant, "--check");
        assertThat(check.exitCode()).as(check.out() + check.err()).isZero();
        assertThat(check.out()).contains("OK, gold equals the fold of bronze");
      }

      // 3. The rebuild equals the streamed tables row for row.
      for (String tenant : GoldWorkload.TENANTS) {
        CliRun.Result rebuilt = rebuildOnceTheLeaseIsFree(options, tenant);
        assertThat(rebuilt.exitCode()).as(rebuilt.out() + rebuilt.err()).isZero();
        long bronzeTxn = reader.txnVersion(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS));
        for (TableKind kind :
            List.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES,
                TableKind.GOLD_WORKAREAS)) {
          TableId table = TableId.of(tenant, kind);
          TableContents after = reader.contents(table).orElseThrow();
          assertThat(after.rows()).as("rebuilt " + table)
              .containsExactlyInAnyOrderElementsOf(streamed.get(table));
          assertThat(after.txnVersion()).isEqualTo(bronzeTxn);
        }
      }
    }
  }

  /** The table holds exactly the fold's rows, every column equal; its rows kept in {@code seen}. */
  private static void assertEqual(LakeReader reader, String tenant, TableKind kind,
      Map<String, Map<String, Object>> expected, Map<TableId, List<Map<String, Object>>> seen)
      throws Exception {
    TableId table = TableId.of(tenant, kind);
    List<Map<String, Object>> rows = reader.rows(table);
    seen.put(table, rows);
    Map<String, Map<String, Object>> actual = new TreeMap<>();
    for (Map<String, Object> row : rows) {
      String key = kind == TableKind.GOLD_WORKAREAS
          ? (String) row.get("workarea_id")
          : row.get("artifact_id") + "@" + row.get("version");
      assertThat(actual.put(key, row)).as("one row per key in " + table + ": " + key).isNull();
    }
    assertThat(actual.keySet()).as(table + " keys").containsExactlyElementsOf(expected.keySet());
    for (String key : expected.keySet()) {
      assertThat(actual.get(key)).as(table + " " + key).isEqualTo(expected.get(key));
    }
  }

  /** The workload reached every rule it is meant to exercise. */
  private static void assertWorkloadCoverage(Map<String, OutboxGoldFold.Gold> expected) {
    Set<String> kinds = new HashSet<>();
    boolean repromotedOrJournaledAfter = false;
    for (OutboxGoldFold.Gold gold : expected.values()) {
      for (Map<String, Object> row : gold.lineage().values()) {
        String retractions = (String) row.get("retractions");
        for (String kind : List.of("demote", "erase", "simulation_end", "reassign")) {
          if (retractions.contains("\"kind\":\"" + kind + "\"")) {
            kinds.add(kind);
          }
        }
        repromotedOrJournaledAfter |= ((String) row.get("paths")).contains(",");
      }
    }
    assertThat(kinds).containsExactlyInAnyOrder("demote", "erase", "simulation_end", "reassign");
    assertThat(repromotedOrJournaledAfter).as("a key with more than one path").isTrue();
  }

  private static CliRun.Result rebuildOnceTheLeaseIsFree(Map<String, String> options,
      String tenant) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      CliRun.Result r = CliRun.run(options, "maintain", "rebuild-gold", "--tenant", tenant);
      if (r.exitCode() != 3 || System.nanoTime() > deadline) {
        return r; // 3: MAINTAIN_WRITER_LIVE while the killed writer's lease is unexpired
      }
      Thread.sleep(1000);
    }
  }

  private static void produce(TestDatabase db, GoldWorkload workload, AtomicBoolean writing,
      AtomicLong written) {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      while (writing.get()) {
        written.addAndGet(workload.transaction(c));
        Thread.sleep(15);
      }
      workload.finish(c);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, String> options(TestDatabase db, Path lake) {
    Map<String, String> o = new HashMap<>();
    o.put("postgres.url", db.jdbcUrl());
    o.put("postgres.user", EmbeddedPostgresServer.USER);
    o.put("postgres.slot", db.slot());
    o.put("postgres.publication", TestDatabase.PUBLICATION);
    o.put("writer.id", WRITER);
    o.put("lake.root", lake.toString());
    return o;
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state) throws Exception {
    Files.createDirectories(state);
    List<String> args = new ArrayList<>();
    args.add("run");
    Map<String, String> o = options(db, lake);
    o.put("state.dir", state.toString());
    o.put("checkpoint.interval", "500ms");
    o.put("horizon.tick-period", "200ms");
    o.put("batch.max-rows", "25");
    o.put("lease.duration", "10s");
    o.put("lease.renew-period", "2s");
    o.put("lease.safety-margin", "4s");
    args.addAll(CliRun.defines(o));
    return args;
  }
}
