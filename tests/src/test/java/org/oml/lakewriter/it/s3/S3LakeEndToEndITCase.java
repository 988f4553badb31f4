package org.oml.lakewriter.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.it.support.S3ProxyExtension;
import org.oml.lakewriter.it.support.S3ProxyServer;
import org.oml.lakewriter.verify.LakeVerifier;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The production job ({@code lakewriter run}'s {@code LakeWriterJob}) on an {@code s3a://} lake
 * root: S3A reaches an S3-compatible server ({@link S3ProxyServer}) with the endpoint and
 * credentials passed as {@code lake.hadoop.fs.s3a.*} options, and every {@code _delta_log} entry is
 * created by a conditional PUT. Journal events, promotions, a demotion, an erasure and a reassign
 * (the retraction round trip), and three poison rows (the dead-letter round trip, tenant and
 * lake-level) go in; Kernel reads the lake back from the server and the verifier finds it complete.
 */
class S3LakeEndToEndITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(180);
  private static final String BUCKET = "lake";
  @RegisterExtension static final S3ProxyExtension S3 = S3ProxyExtension.bucket(BUCKET);

  @Test
  void aLakeOnS3TakesEventsRetractionsAndDeadLettersAndReadsBackComplete() throws Exception {
    String root = "s3a://" + BUCKET + "/oml";
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("unused-local-lake"));
    options.put("lake.root", root);
    S3.server().s3aOptions().forEach((k, v) -> options.put("lake.hadoop." + k, v));
    LakeWriterConfig cfg = LakeWriterJobs.config(options);

    Map<String, byte[]> bodies = new HashMap<>();
    try (Connection c = db.connect()) {
      for (int i = 0; i < 12; i++) {
        String tenant = i % 2 == 0 ? "acme" : "globex";
        OutboxWriter.journal(c, tenant, "j-" + i);
        byte[] body = ("ciphertext-" + i).getBytes(StandardCharsets.UTF_8);
        OutboxWriter.materialize(c, tenant, "a-" + i, 1, body);
        bodies.put("a-" + i, OutboxWriter.sealed(body)); // what the producer stores
      }
    }
    // What `lakewriter run` checks before it starts the job, the lake root's writability on S3A
    // included (before issue 16: "not writable: ClassNotFoundException ... S3AFileSystem").
    Preflight.check(cfg, false, false);
    JobClient job = LakeWriterJobs.start(cfg, tmp.resolve("cp"), null, "s3-lake");
    try {
      try (Connection c = db.connect()) {
        OutboxWriter.retract(c, "acme", "demote", "a-0", 1);
        OutboxWriter.retract(c, "acme", "erase", "a-2", 1);
        OutboxWriter.retract(c, "globex", "reassign", "a-1", 1);
        try (var st = c.createStatement()) {
          st.execute(
              "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'bogus', '{}')");
          st.execute(
              "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('Bad Tenant!', 'journal',"
                  + " '{}')");
          st.execute(
              "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
                  + " workarea_id, writer_identity, principal, ratified_by, provenance_class,"
                  + " plaintext_digest, ciphertext_digest, body, data_key_id) VALUES ('globex',"
                  + " 'materialize', 'x', 1, 'wa', 'alice', 'alice@g', 'bob', 'human', 'p',"
                  + " 'not-the-digest', 'abc', 'dek')");
        }
      }
      long head = db.scalarLong("SELECT max(seq) FROM oml_outbox");
      awaitFrontier(job, head);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    // The job's S3A instance is Hadoop's JVM-wide cached one, and its pool threads were started
    // by task threads, whose context class loader (the job's) Flink closed with the job: the
    // SDK's XML parser looks up its factory through it. A process of `lakewriter run` ends with
    // its job; this JVM goes on, so it drops the job's filesystems as that process would
    // (docs/object-storage.md, "One job per JVM").
    org.apache.hadoop.fs.FileSystem.closeAll();

    LakeReader reader = LakeReader.open(new LakeConfig(root, cfg.hadoopProperties()));
    long head = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, head);
      assertThat(result.problems()).as("the verifier on the s3a lake").isEmpty();
      assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
    }

    // The retraction round trip: silver's rows after a demotion, an erasure and a reassign.
    Map<String, Map<String, Object>> silver = new HashMap<>();
    for (String tenant : List.of("acme", "globex")) {
      for (Map<String, Object> row : reader.rows(TableId.of(tenant, TableKind.SILVER_MEMORIES))) {
        silver.put((String) row.get("artifact_id"), row);
      }
    }
    assertThat(silver).hasSize(12);
    assertThat(silver.get("a-0").get("state")).isEqualTo("demoted");
    assertThat((byte[]) silver.get("a-0").get("body")).isEqualTo(bodies.get("a-0"));
    assertThat(silver.get("a-2").get("state")).isEqualTo("erased");
    assertThat(silver.get("a-2").get("body")).as("an erasure clears the body").isNull();
    assertThat(silver.get("a-1").get("workarea_id")).isEqualTo("wa-2");
    assertThat(silver.get("a-4").get("state")).isEqualTo("active");
    assertThat((byte[]) silver.get("a-4").get("body")).isEqualTo(bodies.get("a-4"));

    // The dead-letter round trip: each poison row under its tenant's prefix or the lake-level one.
    List<Map<String, Object>> deadLetters = LakeDeadLetters.rows(reader);
    assertThat(deadLetters).hasSize(3);
    assertThat(deadLetters.stream().map(r -> (String) r.get("_prefix")).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            TableId.of("acme", TableKind.DEAD_LETTER).prefix(),
            TableId.of("globex", TableKind.DEAD_LETTER).prefix(),
            TableId.invalidTenantDeadLetter().prefix());

    // Every commit of the lake went through the conditional log store: its write id is on each
    // _delta_log entry (Kernel's default S3 log store would have left none), and nothing of the
    // lake was written to the local filesystem.
    try (S3Client s3 = S3.server().client()) {
      List<String> commits =
          s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix("oml/")).contents().stream()
              .map(S3Object::key)
              .filter(k -> k.matches(".*/_delta_log/\\d{20}\\.json"))
              .toList();
      assertThat(commits).as("commit objects on the server").hasSizeGreaterThan(6);
      for (String key : commits) {
        assertThat(s3.headObject(b -> b.bucket(BUCKET).key(key)).metadata())
            .as("%s was created by a conditional PUT of S3ConditionalLogStore", key)
            .containsKey("oml-write-id");
      }
    }
    assertThat(tmp.resolve("unused-local-lake")).doesNotExist();
  }

  private void awaitFrontier(JobClient job, long seq) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (CommittedFrontier.read(db, LakeWriterJobs.WRITER) >= seq) {
        return;
      }
      if (job.getJobStatus().get().isGloballyTerminalState()) {
        try {
          job.getJobExecutionResult().get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("the job on the s3a lake failed; server log:\n" + S3.server().log(), e);
        }
        throw new AssertionError("the job on the s3a lake ended: " + job.getJobStatus().get());
      }
      Thread.sleep(200);
    }
    throw new AssertionError("committed frontier never reached " + seq + " on the s3a lake");
  }
}
