package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.PostgresRestart;
import org.oml.lakewriter.it.support.TestDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 13's soak: {@code lakewriter run} under a supervisor, hostile producers, and faults drawn
 * at random from the kinds the failover matrix covers with real processes (docs/failure-matrix.md),
 * one after another while the outbox grows to {@code soak.events} rows. The seed is printed; the
 * same seed draws the same faults in the same order at the same row counts.
 *
 * <p>Defaults, part of {@code mvn verify}: issue 13's 200,000 events and 20 faults, seed 20261201,
 * about four minutes here. Other seeds and longer runs: {@code -Dsoak.seed=N -Dsoak.events=...
 * -Dsoak.faults=...} (docs/soak.md).
 *
 * <p>It ends with the invariant check against a fold of the outbox: every committed seq exactly
 * once in bronze or a dead letter (and the dead letters exactly the hostile rows), silver's state
 * per key, txn versions only rising, no row behind a frontier, no duplicate add paths, and {@code
 * lakewriter verify} exit 0.
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class SoakITCase {
  private static final Logger LOG = LoggerFactory.getLogger(SoakITCase.class);
  private static final Duration WAIT = Duration.ofSeconds(300);
  /** The bound on the drain after the producers stop (a writer restarted fresh reads it all). */
  private static final Duration DRAIN = Duration.ofMinutes(10);

  /** The fault kinds the soak draws from. */
  enum Fault {
    SIGKILL,
    SIGTERM_SAVEPOINT,
    RESTART_WITH_OTHER_BATCH_SIZE,
    WALSENDER_TERMINATED,
    POSTGRES_RESTART,
    PRIMARY_KEY_UNUSABLE,
    LONG_OPEN_TRANSACTION,
    OUT_OF_BAND_OPTIMIZE,
    SECOND_WRITER,
    KEY_REGISTRY_OUTAGE
  }

  @TempDir Path tmp;

  @Test
  void faultsAtRandomThenTheLakeEqualsTheOutboxFold() throws Exception {
    long events = Long.getLong("soak.events", 200_000);
    int faults = Integer.getInteger("soak.faults", 20);
    long seed = Long.getLong("soak.seed", 20261201L);
    Random random = new Random(seed);
    List<Fault> plan = new ArrayList<>();
    List<Long> at = new ArrayList<>();
    for (int i = 0; i < faults; i++) {
      plan.add(Fault.values()[random.nextInt(Fault.values().length)]);
      // Spread over the run: fault i fires once the outbox has passed its share of the events.
      at.add(events * (i + 1) / (faults + 1));
    }
    LOG.info("soak: seed {}, {} events, faults {} at outbox rows {}", seed, events, plan, at);

    Path data = tmp.resolve("pgdata");
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(data);
    long started = System.nanoTime();
    try {
      TestDatabase db = TestDatabase.create(pg);
      HostileWorkloadITCase.createKeyRegistry(db);
      Path lake = tmp.resolve("lake");
      Map<String, String> options = HostileWorkloadITCase.options(db, lake);
      Path logs = Files.createDirectories(Path.of("target", "chaos-logs", "soak-" + seed));
      // About 1,000 rows a second here, up to the events: faults come every 10 s or so, and the
      // writer restarted by one mostly reaches a checkpoint before the next.
      HostileProducers producers = new HostileProducers(db, 3, seed, 24, 30, events);
      List<String> fired = new ArrayList<>();
      try (Supervisor supervisor = new Supervisor(runArgs(options, 50), logs)) {
        supervisor.start();
        producers.start();
        for (int i = 0; i < faults; i++) {
          awaitOutboxRows(db, at.get(i));
          Fault fault = plan.get(i);
          long t0 = System.nanoTime();
          inject(fault, random, db, lake, options, supervisor, logs, i);
          if (fault == Fault.POSTGRES_RESTART) {
            pg = PostgresRestart.restart(pg, data, Duration.ofMillis(2_000 + random.nextInt(3_000)));
          }
          fired.add(fault + "@" + at.get(i) + " (" + millisSince(t0) / 1000 + " s)");
          LOG.info("soak: fault {} of {}: {}", i + 1, faults, fired.get(fired.size() - 1));
        }
        awaitOutboxRows(db, events);
        producers.stop();
        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        long rows = db.scalarLong("SELECT count(*) FROM oml_outbox");
        LOG.info("soak: producers stopped at {} outbox rows (max seq {})", rows, max);
        CommittedFrontier.await(db, "w1", max, DRAIN);

        Set<Long> hostile = producers.hostileSeqs();
        List<String> problems = HostileWorkloadITCase.differences(db, lake, hostile);
        LakeLogInvariants.Result log = LakeLogInvariants.check(lake);
        problems.addAll(log.violations());
        CliRun.Result verify = CliRun.run(HostileWorkloadITCase.verifyArgs(options));
        LOG.info(
            "soak result: seed {}, {} outbox rows, {} hostile, faults {}, {} writer starts;"
                + " {} tables, {} commits, {} files checked in the logs; verify exit {};"
                + " {} problems; {} s",
            seed, rows, hostile.size(), fired, supervisor.starts(), log.tables(), log.commits(),
            log.addedFiles(), verify.exitCode(), problems.size(), millisSince(started) / 1000);
        assertThat(problems).as(supervisor.logs()).isEmpty();
        assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
      } finally {
        producers.close();
      }
    } finally {
      pg.close();
    }
  }

  private static void inject(
      Fault fault,
      Random random,
      TestDatabase db,
      Path lake,
      Map<String, String> options,
      Supervisor supervisor,
      Path logs,
      int index)
      throws Exception {
    switch (fault) {
      case SIGKILL -> supervisor.kill();
      case SIGTERM_SAVEPOINT -> supervisor.stop();
      case RESTART_WITH_OTHER_BATCH_SIZE -> {
        supervisor.replaceArgs(runArgs(options, 10 + random.nextInt(200)));
        supervisor.kill();
      }
      case WALSENDER_TERMINATED -> db.execute(
          "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
              + " WHERE slot_name = '" + db.slot() + "' AND active");
      case POSTGRES_RESTART -> {} // the caller owns the server
      case PRIMARY_KEY_UNUSABLE -> {
        long index0 =
            db.scalarLong(
                "SELECT conindid::bigint FROM pg_constraint"
                    + " WHERE conrelid = 'oml_outbox'::regclass AND contype = 'p'");
        db.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = " + index0);
        Thread.sleep(5_000);
        db.execute("UPDATE pg_index SET indisvalid = true WHERE indexrelid = " + index0);
      }
      case LONG_OPEN_TRANSACTION -> {
        try (Connection open = db.connect()) {
          open.setAutoCommit(false);
          org.oml.lakewriter.it.support.OutboxWriter.journal(open, "acme", "held-" + index);
          Thread.sleep(15_000);
          open.commit();
        }
      }
      case OUT_OF_BAND_OPTIMIZE -> {
        Path silver = lake.resolve("acme").resolve(TableKind.SILVER_MEMORIES.path());
        if (Files.isDirectory(silver.resolve("_delta_log"))) {
          LOG.info("soak: OPTIMIZE replaced {} files", OutOfBandOptimize.compactAll(silver));
        }
      }
      case SECOND_WRITER -> {
        // Started by mistake with the same command line while the supervised writer runs: it must
        // be refused, not write. (Started while the supervised one is restarting, either may take
        // the lease, and the other waits: no mistake to refuse, so the soak waits for the holder.)
        awaitLeaseHeldBy(db, supervisor);
        CliProcess.Finished second =
            CliProcess.runToEnd(
                runArgs(options, 50), logs.resolve("second-writer-" + index + ".log"), WAIT);
        assertThat(second.exitCode()).as(second.log()).isNotZero();
        assertThat(second.log()).containsAnyOf("LEASE_HELD", "held by another process");
      }
      case KEY_REGISTRY_OUTAGE -> {
        HostileWorkloadITCase.registryDown(db, true);
        Thread.sleep(8_000);
        HostileWorkloadITCase.registryDown(db, false);
      }
    }
  }

  private static List<String> runArgs(Map<String, String> options, int batchMaxRows) {
    Map<String, String> o = new LinkedHashMap<>(options);
    o.put("batch.max-rows", Integer.toString(batchMaxRows));
    List<String> run = new ArrayList<>(List.of("run"));
    run.addAll(CliRun.defines(o));
    return run;
  }

  private static void awaitLeaseHeldBy(TestDatabase db, Supervisor supervisor) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      long pid = supervisor.pid();
      try (Connection c = db.connect();
          Statement st = c.createStatement();
          var rs =
              st.executeQuery(
                  "SELECT holder_pid FROM oml_lake_lease WHERE expires_at > now()")) {
        if (pid > 0 && rs.next() && rs.getLong(1) == pid) {
          return;
        }
      } catch (java.sql.SQLException e) {
        // PostgreSQL is restarting: ask again
      }
      assertThat(System.nanoTime()).as("the supervised writer never held the lease").isLessThan(
          deadline);
      Thread.sleep(200);
    }
  }

  private static void awaitOutboxRows(TestDatabase db, long rows) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (true) {
      try (Connection c = db.connect();
          Statement st = c.createStatement();
          var rs = st.executeQuery("SELECT count(*) FROM oml_outbox")) {
        rs.next();
        if (rs.getLong(1) >= rows) {
          return;
        }
      } catch (java.sql.SQLException e) {
        // PostgreSQL is restarting: ask again
      }
      assertThat(System.nanoTime()).as("outbox never reached " + rows).isLessThan(deadline);
      Thread.sleep(500);
    }
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }
}
