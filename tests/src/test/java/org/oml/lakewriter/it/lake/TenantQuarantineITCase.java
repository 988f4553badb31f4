package org.oml.lakewriter.it.lake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * Issue 11 item 11 on real parts: the production job on embedded PostgreSQL and a MiniCluster
 * without a restart strategy (a failure would end the job), and a lake where {@code
 * beta/bronze/journal_events} is a Delta table of someone else's schema. Acme's rows land; beta's
 * wait in a named, journalled quarantine that {@code status} and {@code quarantine list} show. The
 * operator fixes the table and releases beta; the job, restored from its checkpoint, replays beta
 * from the outbox, and every row of both tenants is in the lake exactly once.
 */
class TenantQuarantineITCase {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final TableId BETA_BRONZE = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);

  @RegisterExtension static final MiniClusterExtension FLINK = Flink.miniCluster();

  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;
  private TestDatabase db;
  private Path lake;
  private Map<String, String> options;
  private LakeWriterConfig cfg;
  private final List<JobClient> jobs = new ArrayList<>();

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create(pg);
    lake = tmp.resolve("lake");
    options = LakeWriterJobs.options(db, lake);
    options.put("batch.max-rows", "5");
    cfg = LakeWriterJobs.config(options);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        LakeWriterJobs.cancel(job, db);
      }
    }
    db.close();
  }

  @Test
  void aTenantWithAnIncompatibleTableWaitsVisiblyAndLandsExactlyOnceAfterTheRelease()
      throws Exception {
    foreignTable(lake.resolve(BETA_BRONZE.relativePath()));
    List<Long> acme = new ArrayList<>();
    List<Long> beta = new ArrayList<>();
    try (Connection c = db.connect()) {
      rows(c, 0, 6, acme, beta);
    }
    Path checkpoints = tmp.resolve("cp");
    JobClient first = LakeWriterJobs.start(cfg, checkpoints, null, "quarantine-first");
    jobs.add(first);
    try (Connection c = db.connect()) {
      rows(c, 6, 6, acme, beta);
    }
    await(() -> bronzeSeqs("acme").size() == acme.size(), "acme's rows to land");

    // Acme went on; the job never failed over; beta waits, named and journalled in the lake.
    assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(bronzeSeqs("acme")).containsExactlyElementsOf(acme);
    JsonNode listed = json(cli("quarantine", "list", "--json"));
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("tenant").asText()).isEqualTo("beta");
    assertThat(listed.get(0).get("table").asText()).isEqualTo(BETA_BRONZE.relativePath());
    assertThat(listed.get(0).get("state").asText()).isEqualTo("needs-operator");
    assertThat(listed.get(0).get("reason").asText()).contains("has columns");
    JsonNode status = json(cli("status", "--json"));
    assertThat(status.get("quarantined_tenants").asInt()).isEqualTo(1);
    JsonNode held = status.get("quarantine").get(0);
    assertThat(held.get("tenant").asText()).isEqualTo("beta");
    assertThat(held.get("since").asText()).isNotBlank();
    assertThat(held.get("txn_versions").get(BETA_BRONZE.relativePath()).asLong()).isEqualTo(-1);
    assertThat(held.get("resume_after_seq").asLong()).isLessThan(beta.get(0));
    assertThat(LakeReader.open(lakeConfig()).txnVersion(BETA_BRONZE)).isEqualTo(-1);
    awaitCheckpoint(checkpoints);
    LakeWriterJobs.cancel(first, db); // the crash; its last checkpoint is retained
    Path checkpoint = awaitCheckpoint(checkpoints);

    // The operator fixes the table (drops the foreign one) and releases beta.
    deleteTree(lake.resolve("beta"));
    CliRun.Result release = cli("quarantine", "release", "--tenant", "beta");
    assertThat(release.exitCode()).as(release.err()).isZero();
    assertThat(cli("quarantine", "release", "--tenant", "nobody").exitCode()).isEqualTo(1);

    JobClient restored = LakeWriterJobs.start(cfg, tmp.resolve("cp2"), checkpoint, "quarantine-2");
    jobs.add(restored);
    try (Connection c = db.connect()) {
      rows(c, 12, 6, acme, beta);
    }
    await(
        () -> bronzeSeqs("beta").size() >= beta.size() && bronzeSeqs("acme").size() >= acme.size(),
        "every row of both tenants to land");
    await(() -> json(cli("quarantine", "list", "--json")).isEmpty(), "beta's record to go");

    assertThat(restored.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(bronzeSeqs("beta")).containsExactlyElementsOf(beta);
    assertThat(bronzeSeqs("acme")).containsExactlyElementsOf(acme);
    LakeReader reader = LakeReader.open(lakeConfig());
    for (String tenant : List.of("acme", "beta")) {
      long promotions =
          db.scalarLong(
              "SELECT count(*) FROM oml_outbox WHERE kind = 'materialize' AND tenant_id = '"
                  + tenant
                  + "'");
      assertThat(reader.rows(TableId.of(tenant, TableKind.SILVER_MEMORIES)))
          .as(tenant + " silver")
          .hasSize((int) promotions)
          .extracting(r -> r.get("seq"))
          .doesNotHaveDuplicates();
    }
    assertThat(json(cli("status", "--json")).get("quarantined_tenants").asInt()).isZero();
  }

  /** {@code count} rows alternating acme and beta; every third of each tenant is a promotion. */
  private static void rows(Connection c, int from, int count, List<Long> acme, List<Long> beta)
      throws Exception {
    for (int i = from; i < from + count; i++) {
      String tenant = i % 2 == 0 ? "acme" : "beta";
      String artifact = tenant + "-" + i;
      long seq =
          (i / 2) % 3 == 0
              ? OutboxWriter.materialize(c, tenant, artifact, 1, ("body-" + i).getBytes(UTF_8))
              : OutboxWriter.journal(c, tenant, artifact);
      (tenant.equals("acme") ? acme : beta).add(seq);
    }
  }

  /** A Delta table of someone else's schema (one int column), written as any engine would. */
  private static void foreignTable(Path table) throws Exception {
    Path log = Files.createDirectories(table.resolve("_delta_log"));
    String schema =
        "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\","
            + "\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}";
    Files.writeString(
        log.resolve(String.format("%020d.json", 0)),
        "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\"}}\n"
            + "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
            + "{\"metaData\":{\"id\":\"f00d\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
            + "\"schemaString\":\""
            + schema
            + "\",\"partitionColumns\":[],\"configuration\":{},"
            + "\"createdTime\":1700000000000}}\n",
        UTF_8);
  }

  private List<Long> bronzeSeqs(String tenant) {
    try {
      List<Long> seqs = new ArrayList<>(LakeDeadLetters.bronzeSeqs(LakeReader.open(lakeConfig()), tenant));
      seqs.sort(Comparator.naturalOrder());
      return seqs;
    } catch (Exception e) {
      return List.of(); // not there yet, or the foreign table
    }
  }

  private LakeConfig lakeConfig() {
    return LakeConfig.of(lake.toUri().toString());
  }

  private CliRun.Result cli(String... args) {
    return CliRun.run(options, args);
  }

  private static JsonNode json(CliRun.Result result) {
    assertThat(result.exitCode()).as(result.err()).isZero();
    try {
      return new ObjectMapper().readTree(result.out());
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + result.out(), e);
    }
  }

  private void await(BooleanSupplier condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      for (JobClient job : jobs) {
        if (job.getJobStatus().get() == JobStatus.FAILED) {
          throw new AssertionError("job " + job.getJobID() + " failed while waiting for " + what);
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("timed out waiting for " + what);
  }

  private static Path awaitCheckpoint(Path checkpoints) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Path> done;
      try {
        done = LakeWriterJobs.completedCheckpoints(checkpoints);
      } catch (java.io.UncheckedIOException e) {
        Thread.sleep(50);
        continue; // a checkpoint subsumed while we listed
      }
      if (!done.isEmpty()) {
        return done.get(done.size() - 1);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no checkpoint completed under " + checkpoints);
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
