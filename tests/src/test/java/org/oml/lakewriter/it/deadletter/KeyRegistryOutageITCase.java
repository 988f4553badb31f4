package org.oml.lakewriter.it.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.JobMetrics;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Issue 11 item 7 on real parts: the key registry (a table and a function in PostgreSQL, asked by
 * the production lookup) goes away for several seconds (its table renamed, so every lookup fails
 * with "relation does not exist") while promotions of three tenants arrive. Before the breaker,
 * each promotion in turn held every tenant for its whole retry budget and was then dead-lettered
 * as DEPENDENCY_UNAVAILABLE. Now the outage holds the stream once, visibly (gauge {@code
 * breakerState}, and {@code lakewriter status}), nothing is dead-lettered, and the stream resumes
 * when the registry is back.
 */
class KeyRegistryOutageITCase extends LakeJobITBase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension static final MiniClusterExtension FLINK = cluster(REPORTER);

  private static final String[] TENANTS = {"acme", "globex", "initech"};

  @Test
  void anOutageHoldsTheStreamOnceVisiblyDeadLettersNothingAndTheStreamResumes() throws Exception {
    try (Connection c = db.connect()) {
      KeyRegistry.create(c, false);
    }
    options.put("keys.lookup-query", KeyRegistry.LOOKUP);
    options.put("keys.lookup-timeout", "500ms");
    // A small budget: without the breaker every promotion would be dead-lettered within ~0.5 s.
    options.put("retry.max-attempts", "3");
    options.put("retry.initial-backoff", "100ms");
    options.put("retry.max-backoff", "200ms");
    options.put("breaker.failure-threshold", "2");
    options.put("breaker.open-wait", "1s");
    JobClient job = start("key-registry-outage", tmp.resolve("cp"), null);
    JobMetrics metrics = new JobMetrics(REPORTER, job.getJobID());
    List<Long> promotions = new ArrayList<>();
    try (Connection c = db.connect()) {
      promotions.add(promotion(c, "acme", "before"));
      OutboxWriter.journal(c, "globex", "j-before");
    }
    awaitFrontier(outboxHead());

    // The outage: the registry's table is gone; the keys are registered meanwhile (in the moved
    // table), so every promotion is good once the registry answers again.
    db.execute("ALTER TABLE oml_data_key RENAME TO oml_data_key_away");
    long outageStart = System.nanoTime();
    long firstHeld;
    try (Connection c = db.connect()) {
      firstHeld = OutboxWriter.journal(c, "initech", "j-during-0");
      for (int i = 0; i < 6; i++) {
        String tenant = TENANTS[i % TENANTS.length];
        promotions.add(promotion(c, tenant, "during-" + i));
        OutboxWriter.journal(c, TENANTS[(i + 1) % TENANTS.length], "j-during-" + (i + 1));
      }
    }
    // Hold the outage for 6 s in all: many times the rows' budget (3 attempts, ~0.3 s).
    Thread.sleep(Math.max(0, 6_000 - (System.nanoTime() - outageStart) / 1_000_000));
    assertThat(LakeDeadLetters.rows(reader())).as("dead letters during the outage").isEmpty();
    assertThat(metrics.counter("retryAttempts")).as("row budgets spent on the outage").isZero();
    long frontierDuring = CommittedFrontier.read(db, LakeWriterJobs.WRITER);
    assertThat(frontierDuring)
        .as("the stream holds below the first promotion of the outage")
        .isLessThan(promotions.get(1));
    assertThat(frontierDuring)
        .as("rows before the first promotion still pass")
        .isGreaterThanOrEqualTo(firstHeld);
    assertThat(metrics.counter("dependencyHolds")).isPositive();

    await(() -> metrics.gauge("breakerState") == 1, "the key registry's breaker to open");
    // Published off the task thread, best effort: status shows it a moment later.
    await(() -> status().contains("\"state\" : \"OPEN\""), "status to show the open breaker");
    String open = status();
    assertThat(open).contains("\"dependency\" : \"key-registry\"");
    assertThat(open).contains("oml_data_key"); // the last error names what failed

    db.execute("ALTER TABLE oml_data_key_away RENAME TO oml_data_key");
    awaitFrontier(outboxHead());
    await(() -> metrics.gauge("breakerState") == 0, "the breaker to close");

    LakeReader reader = reader();
    assertThat(LakeDeadLetters.rows(reader)).isEmpty();
    assertThat(journalled()).isZero();
    for (long seq : promotions) {
      assertThat(inSilver(reader, seq)).as("promotion %s in silver", seq).isTrue();
    }
    await(() -> status().contains("\"state\" : \"CLOSED\""), "status to show the breaker closed");
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(metrics.restarts()).isZero();
  }

  private String status() {
    CliRun.Result r = CliRun.run(options, "status", "--json");
    return r.exitCode() == 0 ? r.out() : "exit " + r.exitCode() + ": " + r.err();
  }

  private static boolean inSilver(LakeReader reader, long seq) throws Exception {
    for (String tenant : TENANTS) {
      TableId silver = TableId.of(tenant, TableKind.SILVER_MEMORIES);
      if (reader.tables().contains(silver)
          && reader.rows(silver).stream().anyMatch(r -> r.get("seq").equals(seq))) {
        return true;
      }
    }
    return false;
  }

  /** A valid promotion of its tenant under its own data key, registered in the same transaction. */
  private static long promotion(Connection c, String tenant, String artifact) throws Exception {
    String key = "dek-" + tenant + "-" + artifact;
    long seq =
        PoisonRows.materialize(
            c, tenant, artifact, "bob", EventValidator.sha256Hex(PoisonRows.RIGHT), PoisonRows.RIGHT, key);
    try (var ps =
        c.prepareStatement(
            "INSERT INTO " + registryTable(c) + " VALUES (?) ON CONFLICT DO NOTHING")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
    return seq;
  }

  private static String registryTable(Connection c) throws Exception {
    try (var rs = c.createStatement().executeQuery("SELECT to_regclass('oml_data_key') IS NOT NULL")) {
      rs.next();
      return rs.getBoolean(1) ? "oml_data_key" : "oml_data_key_away";
    }
  }
}
