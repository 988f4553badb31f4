package org.oml.lakewriter.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.metrics.LakeWriterMetrics.prometheusName;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.metrics.LakeWriterMetrics;

/**
 * Scrapes the Prometheus endpoint of a running {@code lakewriter run} (its own JVM, its
 * MiniCluster's reporter on {@code metrics.prometheus.port}), while an open outbox transaction
 * holds the horizon, after it commits, and after a hostile row: every metric of {@code
 * docs/metrics.md} is served with a sane value, and every metric the example alert rules use is
 * among them. The last scrape is kept in {@code target/metrics-scrape.txt}.
 */
class MetricsScrapeITCase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final Path RULES = Path.of("..", "flink-conf", "alerts", "lakewriter-rules.yml");
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
  void aRunningWriterServesItsMetricsToPrometheus() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      int port = freePort();
      Path log = Files.createDirectories(Path.of("target", "run-logs")).resolve("metrics-run.log");
      Process run =
          CliProcess.start(runArgs(db, tmp.resolve("lake"), tmp.resolve("state"), port), log);
      try (Connection c = db.connect()) {
        CliProcess.awaitLog(run, log, "metrics: http://localhost:" + port + "/metrics", WAIT);
        CliProcess.awaitLog(run, log, "lake writer running", WAIT);
        long first = OutboxWriter.journal(c, "acme", "a-0");
        CommittedFrontier.await(db, "w1", first, WAIT);

        // A transaction that writes the outbox and stays open holds the horizon: rows committed
        // after it wait, visible in PostgreSQL but not in the lake.
        try (Connection held = db.connect()) {
          held.setAutoCommit(false);
          OutboxWriter.journal(held, "acme", "held");
          List<Long> waiting = new ArrayList<>();
          for (int i = 1; i <= 20; i++) {
            waiting.add(OutboxWriter.journal(c, i % 2 == 0 ? "acme" : "globex", "a-" + i));
          }
          PrometheusScrape lagging =
              await(
                  port,
                  s ->
                      s.value(name(LakeWriterMetrics.FRONTIER_LAG_ROWS)) >= waiting.size()
                          && s.value(name(LakeWriterMetrics.HORIZON_AGE_SECONDS)) >= 3
                          && s.value(name(LakeWriterMetrics.FRONTIER_LAG_SECONDS)) >= 2,
                  "the lag and the horizon's age while a transaction holds the horizon");
          assertThat(lagging.value(name(LakeWriterMetrics.COMMITTED_FRONTIER))).isEqualTo(first);
          Files.writeString(Path.of("target", "metrics-scrape-lagging.txt"), lagging.text);
          System.out.printf(
              "while held: frontierLagRows=%.0f frontierLagSeconds=%.0f horizonAgeSeconds=%.0f"
                  + " committedFrontier=%.0f%n",
              lagging.value(name(LakeWriterMetrics.FRONTIER_LAG_ROWS)),
              lagging.value(name(LakeWriterMetrics.FRONTIER_LAG_SECONDS)),
              lagging.value(name(LakeWriterMetrics.HORIZON_AGE_SECONDS)),
              lagging.value(name(LakeWriterMetrics.COMMITTED_FRONTIER)));
          held.commit();
        }
        long hostile = insertUnknownKind(c, "acme");
        long last =
            OutboxWriter.materialize(
                c, "globex", "m-1", 1, "body".getBytes(StandardCharsets.UTF_8));
        CommittedFrontier.await(db, "w1", last, WAIT);

        // A scrape reads the gauges one by one, so the first scrape to show no rows waiting can
        // straddle a probe and still carry the previous probe's lag in seconds: wait for both.
        PrometheusScrape s =
            await(
                port,
                x ->
                    x.value(name(LakeWriterMetrics.FRONTIER_LAG_ROWS)) == 0
                        && x.value(name(LakeWriterMetrics.FRONTIER_LAG_SECONDS)) == 0
                        && x.value(name(LakeWriterMetrics.COMMITTED_FRONTIER)) == last
                        && x.max(dead(), "errorClass=\"UNKNOWN_KIND\"").orElse(0) >= 1,
                "the lag back to 0 and the hostile row's dead letter counted");
        Files.writeString(Path.of("target", "metrics-scrape.txt"), s.text);
        System.out.printf(
            "after commit: frontierLagRows=%.0f committedFrontier=%.0f maxCommitLatencyMs=%.0f"
                + " commitLatencyMs_count=%.0f lastBatchRows=%.0f slotRetainedBytes=%.0f"
                + " deadLetters{UNKNOWN_KIND}=%.0f%n",
            s.value(name(LakeWriterMetrics.FRONTIER_LAG_ROWS)),
            s.value(name(LakeWriterMetrics.COMMITTED_FRONTIER)),
            s.value(name(LakeWriterMetrics.MAX_COMMIT_LATENCY)),
            s.value(name(LakeWriterMetrics.COMMIT_LATENCY) + "_count"),
            s.value(name(LakeWriterMetrics.LAST_BATCH_ROWS)),
            s.value(name(LakeWriterMetrics.SLOT_RETAINED_BYTES)),
            s.value(dead(), "errorClass=\"UNKNOWN_KIND\""));

        // Frontier lag, horizon age, slot.
        assertThat(s.value(name(LakeWriterMetrics.FRONTIER_LAG_SECONDS))).isZero();
        assertThat(s.value(name(LakeWriterMetrics.HORIZON_AGE_SECONDS))).isBetween(0.0, 10.0);
        assertThat(s.value(name(LakeWriterMetrics.SLOT_RETAINED_BYTES))).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.PROBE_FAILURES))).isZero();
        assertThat(s.value(name(LakeWriterMetrics.HORIZON))).isGreaterThanOrEqualTo(last);
        assertThat(s.value(name(LakeWriterMetrics.CUT_END))).isGreaterThanOrEqualTo(last);
        // Commits: time since the last one, per table too; latency; rows.
        assertThat(s.value(name(LakeWriterMetrics.SECONDS_SINCE_LAST_COMMIT)))
            .isBetween(0.0, 30.0);
        String perTable =
            LakeWriterMetrics.PROMETHEUS_PREFIX + "tenant_table_"
                + LakeWriterMetrics.SECONDS_SINCE_LAST_TABLE_COMMIT;
        assertThat(s.value(perTable, "tenant=\"acme\"", "table=\"bronze_journal_events\""))
            .isBetween(0.0, 60.0);
        assertThat(s.value(perTable, "tenant=\"globex\"", "table=\"silver_memories\""))
            .isBetween(0.0, 30.0);
        assertThat(s.value(perTable, "tenant=\"acme\"", "table=\"dead_letter\""))
            .isBetween(0.0, 30.0);
        assertThat(s.value(name(LakeWriterMetrics.MAX_COMMIT_LATENCY))).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.LAST_COMMIT_LATENCY))).isGreaterThanOrEqualTo(0);
        assertThat(s.value(name(LakeWriterMetrics.COMMIT_LATENCY) + "_count")).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.COMMIT_LATENCY), "quantile=\"0.5\""))
            .isPositive();
        assertThat(s.value(name(LakeWriterMetrics.TABLE_COMMITS))).isGreaterThanOrEqualTo(5);
        assertThat(s.value(name(LakeWriterMetrics.COMMITTED_ROWS))).isGreaterThanOrEqualTo(24);
        assertThat(s.value(name(LakeWriterMetrics.TABLES_OVER_SERIES_CAP))).isZero();
        // Compaction (on by default; this run is too short for a table to reach min-files).
        assertThat(s.value(name(LakeWriterMetrics.COMPACTION_COMMITS))).isGreaterThanOrEqualTo(0);
        assertThat(s.value(name(LakeWriterMetrics.COMPACTIONS_ABANDONED)))
            .isGreaterThanOrEqualTo(0);
        assertThat(s.value(name(LakeWriterMetrics.COMPACTION_FAILURES))).isZero();
        // Batches.
        assertThat(s.value(name(LakeWriterMetrics.BATCH_ROWS) + "_count")).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.BATCH_ROWS), "quantile=\"0.99\"")).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.LAST_BATCH_ROWS))).isPositive();
        assertThat(s.value(name(LakeWriterMetrics.BATCHES_CUT))).isPositive();
        // Dead letters by class: the hostile row once, every other class registered at 0.
        assertThat(s.value(dead(), "errorClass=\"UNKNOWN_KIND\"")).isEqualTo(1);
        assertThat(s.value(dead(), "errorClass=\"BODY_TOO_LARGE\"")).isZero();
        // Completeness findings and the retry backlog: none here.
        assertThat(
                s.value(
                    LakeWriterMetrics.prometheusName(
                        LakeWriterMetrics.FINDING, LakeWriterMetrics.FINDINGS),
                    "finding=\"CDC_LOST_ROWS\""))
            .isZero();
        assertThat(s.value(name(LakeWriterMetrics.RETRY_BACKLOG))).isZero();
        assertThat(s.value(name(LakeWriterMetrics.BUFFERED_ROWS))).isZero();

        // Every metric the documented constants name is served, and every metric the example
        // alert rules use.
        Set<String> served = s.names();
        // (The breaker's metrics exist only with keys.lookup-query, not configured here.)
        assertThat(served)
            .containsAll(
                LakeWriterMetrics.exported().keySet().stream()
                    .filter(
                        n ->
                            !n.endsWith(LakeWriterMetrics.BREAKER_STATE)
                                && !n.endsWith(LakeWriterMetrics.DEPENDENCY_HOLDS))
                    .toList());
        assertThat(served).containsAll(ruleMetrics());
        assertThat(hostile).isLessThan(last);
      } finally {
        run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        awaitSlotReleased(db);
      }
    }
  }

  private static String name(String metric) {
    return prometheusName(metric);
  }

  private static String dead() {
    return prometheusName(LakeWriterMetrics.ERROR_CLASS, LakeWriterMetrics.DEAD_LETTERS);
  }

  /** Scrapes until the condition holds (a missing series counts as not yet). */
  private static PrometheusScrape await(
      int port, java.util.function.Predicate<PrometheusScrape> condition, String what)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    PrometheusScrape last = null;
    while (System.nanoTime() < deadline) {
      try {
        last = PrometheusScrape.of(port);
        if (condition.test(last)) {
          return last;
        }
      } catch (AssertionError | java.io.IOException e) {
        // Not served yet (the job's operators register their metrics as they start).
      }
      Thread.sleep(250);
    }
    throw new AssertionError(
        "timed out waiting for " + what + "; last scrape:\n" + (last == null ? "-" : last.text));
  }

  /** The metric names the example alert rules use (comment lines aside). */
  private static Set<String> ruleMetrics() throws Exception {
    Set<String> names = new TreeSet<>();
    for (String line : Files.readAllLines(RULES)) {
      if (line.trim().startsWith("#")) {
        continue;
      }
      Matcher m = Pattern.compile("\\bflink_[A-Za-z0-9_:]+").matcher(line);
      while (m.find()) {
        names.add(m.group());
      }
    }
    assertThat(names).isNotEmpty();
    return names;
  }

  private static long insertUnknownKind(Connection c, String tenant) throws Exception {
    try (var ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'bogus', '{}')"
                + " RETURNING seq")) {
      ps.setString(1, tenant);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state, int port) {
    List<String> args = new ArrayList<>();
    args.add("run");
    for (String option :
        new String[] {
          "postgres.url=" + db.jdbcUrl(),
          "postgres.user=" + EmbeddedPostgresServer.USER,
          "postgres.slot=" + db.slot(),
          "postgres.publication=" + TestDatabase.PUBLICATION,
          "writer.id=w1",
          "lake.root=" + lake,
          "state.dir=" + state,
          "checkpoint.interval=500ms",
          "horizon.tick-period=200ms",
          "metrics.prometheus.port=" + port
        }) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  private static void awaitSlotReleased(TestDatabase db) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      if (db.scalarLong(
              "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                  + "' AND active")
          == 0) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("slot " + db.slot() + " still held");
  }
}
