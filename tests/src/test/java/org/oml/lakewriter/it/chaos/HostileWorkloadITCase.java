package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.TestDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every fault of issue 11 at once, against {@code lakewriter run} in its own JVM under a
 * supervisor that always restarts it with the same command line:
 *
 * <ul>
 *   <li>concurrent producers with producer retries (repeated promotions of existing keys, also
 *       after demote and erase), rollbacks and hostile rows;
 *   <li>an unrelated transaction in another database and an idle one in the outbox's database,
 *       open for the whole run;
 *   <li>a key-registry outage of 20 s;
 *   <li>an out-of-band OPTIMIZE of one tenant's silver table while the writer runs;
 *   <li>SIGKILLs, one of them before the first checkpoint, one during the outage.
 * </ul>
 *
 * <p>The check: every committed outbox row is exactly once in bronze or a dead letter; the dead
 * letters are exactly the hostile rows (the outage dead-letters nothing); silver equals the fold of
 * the outbox, row for row and state for state; and {@code lakewriter verify} agrees.
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class HostileWorkloadITCase {
  private static final Logger LOG = LoggerFactory.getLogger(HostileWorkloadITCase.class);
  private static final Duration DRAIN = Duration.ofSeconds(240);
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
  void theLakeEqualsTheOutboxFoldAfterEveryFaultAtOnce() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      createKeyRegistry(db);
      Path lake = tmp.resolve("lake");
      Map<String, String> options = options(db, lake);
      // Deployment: init-db applies the contract and creates the slot, before the cluster's
      // unrelated long transactions begin (a slot cannot be created while any transaction runs).
      CliRun.Result init = CliRun.run(initDbArgs(options));
      assertThat(init.exitCode()).as(init.out() + init.err()).isZero();
      try (UnrelatedTransactions unrelated = UnrelatedTransactions.open(pg, db)) {
        runEveryFaultAtOnce(db, lake, options);
      }
    }
  }

  private void runEveryFaultAtOnce(TestDatabase db, Path lake, Map<String, String> options)
      throws Exception {
    List<String> run = new ArrayList<>(List.of("run"));
    run.addAll(CliRun.defines(options));
    HostileProducers producers = new HostileProducers(db, 3, 20261130L);
    // The writers' logs stay under target/ for a post-mortem: the temporary directory does not.
    Path logs = Files.createDirectories(Path.of("target", "chaos-logs", db.name()));
    try (Supervisor supervisor = new Supervisor(run, logs)) {
      supervisor.start();
      producers.start();
      Thread.sleep(2_500);
      supervisor.kill(); // before the first checkpoint: the JVM is barely up
      LOG.info("killed writer 1 before its first checkpoint");
      Thread.sleep(15_000);

      registryDown(db, true);
      LOG.info("key registry down");
      Thread.sleep(10_000);
      supervisor.kill();
      LOG.info("killed the writer during the outage");
      Thread.sleep(10_000);
      registryDown(db, false);
      LOG.info("key registry back");

      Thread.sleep(8_000);
      Path acmeSilver = lake.resolve("acme").resolve(TableKind.SILVER_MEMORIES.path());
      awaitTable(acmeSilver, supervisor);
      // The silver table may still be empty (promotions wait out the registry outage): the
      // OPTIMIZE is retried until it has live files to rewrite, so the fault is really injected.
      int replaced = OutOfBandOptimize.compactAll(acmeSilver);
      long optimizeDeadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (replaced == 0 && System.nanoTime() < optimizeDeadline) {
        Thread.sleep(1_000);
        replaced = OutOfBandOptimize.compactAll(acmeSilver);
      }
      LOG.info("out-of-band OPTIMIZE of acme/silver replaced {} files", replaced);
      assertThat(replaced).as("live silver files the OPTIMIZE rewrote").isPositive();
      Thread.sleep(6_000);
      supervisor.kill();
      Thread.sleep(8_000);
      producers.stop();

      long rows = db.scalarLong("SELECT count(*) FROM oml_outbox");
      LOG.info(
          "producers stopped: {} outbox rows, {} re-promotions, {} hostile rows, {} writer starts",
          rows, producers.rePromotions(), producers.hostileSeqs().size(), supervisor.starts());
      List<String> problems = awaitLakeEqualsOutbox(db, lake, producers.hostileSeqs());
      assertThat(problems).as(supervisor.logs()).isEmpty();
      assertThat(producers.rePromotions()).isPositive();
      assertThat(supervisor.starts()).isGreaterThanOrEqualTo(4);

      CliRun.Result verify = CliRun.run(verifyArgs(options));
      assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
    }
  }

  private static List<String> initDbArgs(Map<String, String> options) {
    List<String> args = new ArrayList<>(List.of("init-db"));
    Map<String, String> o = new LinkedHashMap<>(options);
    o.keySet()
        .retainAll(
            Set.of("postgres.url", "postgres.user", "postgres.slot", "postgres.publication"));
    args.addAll(CliRun.defines(o));
    return args;
  }

  /**
   * Waits (bounded) for the writer's first commit to a table: no progress is a failure. The bound
   * covers a restart on a loaded machine: the killed writer's lease to expire, a JVM and a
   * MiniCluster to start, a fresh start's snapshot.
   */
  private static void awaitTable(Path table, Supervisor supervisor) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (!Files.isDirectory(table.resolve("_delta_log"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            table + " never got a commit: the writer made no progress\n" + supervisor.logs());
      }
      Thread.sleep(500);
    }
  }

  static Map<String, String> options(TestDatabase db, Path lake) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("postgres.url", db.jdbcUrl());
    o.put("postgres.user", EmbeddedPostgresServer.USER);
    o.put("postgres.slot", db.slot());
    o.put("postgres.publication", TestDatabase.PUBLICATION);
    o.put("writer.id", "w1");
    o.put("lake.root", lake.toString());
    o.put("state.dir", lake.resolveSibling("state").toString());
    o.put("checkpoint.interval", "1s");
    o.put("horizon.tick-period", "200ms");
    o.put("batch.max-rows", "50");
    o.put("keys.lookup-query", "SELECT * FROM oml_known_data_keys(?)");
    o.put("keys.lookup-timeout", "1s");
    o.put("retry.max-attempts", "3");
    o.put("retry.max-duration", "5s");
    o.put("retry.initial-backoff", "200ms");
    o.put("retry.max-backoff", "1s");
    // A restart after a SIGKILL waits for the killed writer's lease: keep that wait short.
    o.put("lease.duration", "10s");
    o.put("lease.renew-period", "2s");
    o.put("lease.safety-margin", "4s");
    return o;
  }

  static List<String> verifyArgs(Map<String, String> options) {
    List<String> args = new ArrayList<>(List.of("verify"));
    Map<String, String> o = new LinkedHashMap<>(options);
    o.keySet().retainAll(Set.of("postgres.url", "postgres.user", "writer.id", "lake.root"));
    args.addAll(CliRun.defines(o));
    return args;
  }

  /**
   * The registry the writer asks about data keys. While {@code oml_registry_outage.down} is true
   * every lookup sleeps past the writer's lookup timeout: the registry is unavailable, not wrong.
   */
  static void createKeyRegistry(TestDatabase db) throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE oml_data_key (key_id text PRIMARY KEY)");
      st.execute("CREATE TABLE oml_registry_outage (down boolean NOT NULL)");
      st.execute("INSERT INTO oml_registry_outage VALUES (false)");
      st.execute(
          "CREATE FUNCTION oml_known_data_keys(ids text[]) RETURNS SETOF text LANGUAGE plpgsql"
              + " AS $$ BEGIN IF (SELECT down FROM oml_registry_outage) THEN"
              + " PERFORM pg_sleep(5); END IF;"
              + " RETURN QUERY SELECT key_id FROM oml_data_key WHERE key_id = ANY(ids); END $$");
    }
  }

  static void registryDown(TestDatabase db, boolean down) throws Exception {
    db.execute("UPDATE oml_registry_outage SET down = " + down);
  }

  /**
   * Polls until the lake holds every committed outbox row (or runs out of time) and returns the
   * differences that remain.
   */
  private static List<String> awaitLakeEqualsOutbox(TestDatabase db, Path lake, Set<Long> hostile)
      throws Exception {
    long deadline = System.nanoTime() + DRAIN.toNanos();
    List<String> problems;
    do {
      Thread.sleep(2_000);
      problems = differences(db, lake, hostile);
    } while (!problems.isEmpty() && System.nanoTime() < deadline);
    return problems;
  }

  static List<String> differences(TestDatabase db, Path lake, Set<Long> hostile)
      throws Exception {
    List<String> problems = new ArrayList<>();
    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    Set<Long> deadLetters = new HashSet<>();
    for (Map<String, Object> row : LakeDeadLetters.rows(reader)) {
      if (!deadLetters.add((Long) row.get("seq"))) {
        problems.add("seq " + row.get("seq") + " dead-lettered twice");
      }
    }
    Set<Long> bronze = new HashSet<>();
    for (String tenant : HostileProducers.TENANTS) {
      for (long seq : LakeDeadLetters.bronzeSeqs(reader, tenant)) {
        if (!bronze.add(seq)) {
          problems.add("seq " + seq + " twice in bronze");
        }
        if (deadLetters.contains(seq)) {
          problems.add("seq " + seq + " in bronze and in a dead letter");
        }
      }
    }
    Set<Long> outbox = new HashSet<>();
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT seq FROM oml_outbox")) {
      while (rs.next()) {
        outbox.add(rs.getLong(1));
      }
    }
    Set<Long> missing = new HashSet<>(outbox);
    missing.removeAll(bronze);
    missing.removeAll(deadLetters);
    if (!missing.isEmpty()) {
      problems.add(missing.size() + " outbox rows not in the lake, e.g. " + missing.iterator().next());
    }
    Set<Long> wronglyDead = new HashSet<>(deadLetters);
    wronglyDead.removeAll(hostile);
    if (!wronglyDead.isEmpty()) {
      problems.add(wronglyDead.size() + " valid rows dead-lettered, e.g. seq "
          + wronglyDead.iterator().next());
    }
    Set<Long> hostileInBronze = new HashSet<>(hostile);
    hostileInBronze.retainAll(bronze);
    if (!hostileInBronze.isEmpty()) {
      problems.add("hostile rows in bronze: " + hostileInBronze);
    }
    if (!problems.isEmpty()) {
      return problems;
    }
    try (Connection c = db.connect()) {
      Map<String, Map<String, OutboxFold.Expected>> expected = OutboxFold.silver(c, deadLetters);
      for (String tenant : HostileProducers.TENANTS) {
        problems.addAll(
            OutboxFold.compare(
                tenant,
                expected.getOrDefault(tenant, Map.of()),
                reader.rows(TableId.of(tenant, TableKind.SILVER_MEMORIES))));
      }
    }
    return problems;
  }
}
