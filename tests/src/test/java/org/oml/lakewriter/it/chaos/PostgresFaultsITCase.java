package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PostgresRestart;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 13, the PostgreSQL faults, against {@code lakewriter run} in its own JVM under a supervisor
 * that restarts it with the same command line, while producers keep committing (and reconnect
 * when the server goes away):
 *
 * <ul>
 *   <li>the walsender is terminated ({@code pg_terminate_backend}), twice;
 *   <li>the outbox's primary key index is unusable for 6 s ({@code indisvalid = false}: the
 *       completeness check's look-ups by seq run without it);
 *   <li>PostgreSQL restarts mid-stream (a fast shutdown, then the same data directory and port).
 * </ul>
 *
 * The check: the lake holds every committed outbox row exactly once ({@code LakeVerifier}).
 */
class PostgresFaultsITCase {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresFaultsITCase.class);
  private static final Duration WAIT = Duration.ofSeconds(240);

  @TempDir Path tmp;

  @Test
  void walsenderKillsAnUnusableIndexAndARestartLoseNothing() throws Exception {
    Path data = tmp.resolve("pgdata");
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(data);
    try {
      TestDatabase db = TestDatabase.create(pg);
      Path lake = tmp.resolve("lake");
      Map<String, String> options = options(db, lake);
      List<String> run = new ArrayList<>(List.of("run"));
      run.addAll(CliRun.defines(options));
      Path logs = Files.createDirectories(Path.of("target", "chaos-logs", "pg-" + db.name()));
      AtomicBoolean producing = new AtomicBoolean(true);
      AtomicLong committed = new AtomicLong();
      Thread producer = new Thread(() -> produce(db, producing, committed), "producer");
      try (Supervisor supervisor = new Supervisor(run, logs)) {
        supervisor.start();
        producer.start();
        CommittedFrontier.await(db, "w1", 100, WAIT);

        for (int i = 0; i < 2; i++) {
          long killed = db.scalarLong(terminateWalsender(db.slot()));
          LOG.info("terminated {} walsender(s)", killed);
          assertThat(killed).as("a walsender streamed from the slot").isEqualTo(1);
          awaitProgress(db);
        }

        long index =
            db.scalarLong(
                "SELECT conindid::bigint FROM pg_constraint"
                    + " WHERE conrelid = 'oml_outbox'::regclass AND contype = 'p'");
        db.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = " + index);
        Thread.sleep(6_000);
        db.execute("UPDATE pg_index SET indisvalid = true WHERE indexrelid = " + index);
        awaitProgress(db);

        // A fast shutdown: every connection, the walsender's included, is cut.
        pg = PostgresRestart.restart(pg, data, Duration.ofSeconds(3));
        LOG.info("PostgreSQL restarted on port {}", pg.port());
        awaitProgress(db);
        Thread.sleep(3_000);
        producing.set(false);
        producer.join();

        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", max, WAIT);
        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        try (Connection c = db.connect()) {
          LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
          assertThat(result.problems()).as(supervisor.logs()).isEmpty();
          assertThat(result.outboxRows())
              .isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
        }
        LOG.info(
            "{} rows committed by the producer, {} writer starts", committed.get(),
            supervisor.starts());
      } finally {
        producing.set(false);
        producer.join();
      }
    } finally {
      pg.close();
    }
  }

  private static String terminateWalsender(String slot) {
    return "SELECT count(pg_terminate_backend(active_pid)) FROM pg_replication_slots"
        + " WHERE slot_name = '" + slot + "' AND active";
  }

  /** The committed frontier reaches the outbox's newest row as it is now. */
  private static void awaitProgress(TestDatabase db) throws Exception {
    CommittedFrontier.await(db, "w1", db.scalarLong("SELECT max(seq) FROM oml_outbox"), WAIT);
  }

  /**
   * Journal rows and promotions, four per transaction, until told to stop; a lost connection (the
   * restart) is re-opened, and a transaction it cut off is simply not counted.
   */
  private static void produce(TestDatabase db, AtomicBoolean producing, AtomicLong committed) {
    int i = 0;
    while (producing.get()) {
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        while (producing.get()) {
          for (int k = 0; k < 4; k++, i++) {
            String tenant = i % 2 == 0 ? "acme" : "globex";
            if (i % 5 == 0) {
              byte[] body = ("body-" + i).getBytes(StandardCharsets.UTF_8);
              OutboxWriter.materialize(c, tenant, "a-" + i, 1, body);
            } else {
              OutboxWriter.journal(c, tenant, "a-" + i);
            }
          }
          c.commit();
          committed.addAndGet(4);
          Thread.sleep(40);
        }
      } catch (SQLException e) {
        sleep(300);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Map<String, String> options(TestDatabase db, Path lake) {
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
    o.put("lease.duration", "10s");
    o.put("lease.renew-period", "2s");
    o.put("lease.safety-margin", "4s");
    return o;
  }
}
