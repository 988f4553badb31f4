package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * {@code lakewriter status} per tenant and table, read from a real lake and PostgreSQL while the
 * job is down: each table's txn version, the rows it is behind, the time since its last commit and
 * the tenant's dead letters. Its counts are bounded: with {@code --count-limit} below the lag they
 * say {@code at_least}, and {@code seq_behind_frontier_upper_bound} bounds them from above.
 */
class StatusPerTableITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void statusShowsEachTenantsTablesLagAndDeadLettersWhileTheJobIsDown() throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    JobClient job =
        LakeWriterJobs.start(
            LakeWriterJobs.config(options), tmp.resolve("checkpoints"), null, "status-tables");
    long frontier;
    try (Connection c = db.connect()) {
      OutboxWriter.materialize(c, "acme", "m1", 1, "body".getBytes());
      OutboxWriter.journal(c, "globex", "g1");
      try (var st = c.createStatement()) {
        st.execute("INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'bogus', '{}')");
      }
      frontier = OutboxWriter.journal(c, "acme", "a1");
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, frontier, WAIT);
      awaitJournalled();
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    Instant down = Instant.now();
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "late-1");
      OutboxWriter.materialize(c, "acme", "m2", 1, "body2".getBytes());
      OutboxWriter.journal(c, "newco", "n1");
      OutboxContract.tick(c, LakeWriterJobs.WRITER);
    }

    JsonNode status = status(options);
    assertThat(status.get("frontier").asLong()).isEqualTo(frontier);
    assertThat(status.get("slot_active").asBoolean()).isFalse(); // the job is down
    assertThat(status.get("rows_behind_frontier").asLong()).isEqualTo(3);
    assertThat(status.get("rows_behind_frontier_bound").asText()).isEqualTo("exact");
    assertThat(status.get("seq_behind_frontier_upper_bound").asLong()).isGreaterThanOrEqualTo(3);
    assertThat(status.get("outbox_rows").asLong()).isEqualTo(7);

    JsonNode acme = tenant(status, "acme");
    assertThat(acme.get("rows_behind").asInt()).isEqualTo(2);
    assertThat(acme.get("dead_letters_waiting").asLong()).isEqualTo(1);
    JsonNode bronze = table(acme, "bronze/journal_events");
    assertThat(bronze.get("txn_version").asLong()).isEqualTo(frontier);
    assertThat(bronze.get("rows_behind").asLong()).isEqualTo(2);
    Instant lastCommit = Instant.parse(bronze.get("last_commit_at").asText());
    assertThat(lastCommit).isBefore(down.plusSeconds(1));
    assertThat(bronze.get("since_last_commit_s").asLong()).isGreaterThanOrEqualTo(0);
    JsonNode silver = table(acme, "silver/memories");
    assertThat(silver.get("rows_behind").asLong()).isEqualTo(1); // m2; journal rows skip silver
    assertThat(table(acme, "dead_letter").get("rows_behind").isNull()).isTrue();

    JsonNode globex = tenant(status, "globex");
    assertThat(globex.get("rows_behind").asInt()).isZero();
    assertThat(globex.get("dead_letters_waiting").asLong()).isZero();
    assertThat(table(globex, "bronze/journal_events").get("rows_behind").asLong()).isZero();
    JsonNode newco = tenant(status, "newco");
    assertThat(newco.get("rows_behind").asInt()).isEqualTo(1);
    assertThat(newco.get("tables")).isEmpty();

    JsonNode capped = status(options, "--count-limit", "2");
    assertThat(capped.get("rows_behind_frontier").asLong()).isEqualTo(2);
    assertThat(capped.get("rows_behind_frontier_bound").asText()).isEqualTo("at_least");
    assertThat(capped.get("outbox_rows_bound").asText()).isEqualTo("at_least");
    assertThat(tenant(capped, "acme").get("rows_behind_bound").asText()).isEqualTo("at_least");

    CliRun.Result text = CliRun.run(options, "status");
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).containsPattern("acme\\s+\\(tenant\\)\\s+2\\s+1");
    assertThat(text.out()).containsPattern("bronze/journal_events\\s+" + frontier + "\\s+2\\s");
  }

  private void awaitJournalled() throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (db.scalarLong("SELECT count(*) FROM oml_lake_dead_letter") == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the poison row never reached the dead-letter journal");
      }
      Thread.sleep(200);
    }
  }

  private static JsonNode tenant(JsonNode status, String tenant) {
    for (JsonNode t : status.get("tenants")) {
      if (t.get("tenant").asText().equals(tenant)) {
        return t;
      }
    }
    throw new AssertionError("status has no tenant " + tenant + ": " + status.get("tenants"));
  }

  private static JsonNode table(JsonNode tenant, String table) {
    for (JsonNode t : tenant.get("tables")) {
      if (t.get("table").asText().equals(table)) {
        return t;
      }
    }
    throw new AssertionError("tenant has no table " + table + ": " + tenant);
  }

  private static JsonNode status(Map<String, String> options, String... extra) throws Exception {
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("status", "--json"));
    args.addAll(java.util.List.of(extra));
    args.addAll(CliRun.defines(options));
    CliRun.Result run = CliRun.run(args);
    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    return new ObjectMapper().readTree(run.out());
  }
}
