package org.oml.lakewriter.it.lake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 11 item 3 on the production job: {@code body.max-bytes} changes between stateless starts,
 * so a replay re-decides the route of a row the lake already holds. The lake's decision stands: a
 * seq in {@code dead_letter} never lands in bronze or silver, a seq in bronze is never
 * dead-lettered.
 *
 * <p>The trap needs a seq above one table's txn version and at or below the other's: the last
 * event of a tenant, dead-lettered (or landed) in a batch in which the tenant has no row in the
 * other table. {@code acme}'s large promotion is dead-lettered while bronze stays below it; {@code
 * globex}'s promotion lands in bronze while its dead letters stay below it.
 */
class StickyDeadLetterITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final TableId ACME_BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId ACME_SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final TableId ACME_DEAD = TableId.of("acme", TableKind.DEAD_LETTER);
  private static final TableId GLOBEX_BRONZE =
      TableId.of("globex", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId GLOBEX_SILVER = TableId.of("globex", TableKind.SILVER_MEMORIES);
  private static final TableId GLOBEX_DEAD = TableId.of("globex", TableKind.DEAD_LETTER);

  @Test
  void aReplayUnderAnotherBodyLimitKeepsEveryRowWhereTheLakePutIt() throws Exception {
    Path lake = tmp.resolve("lake");
    Map<String, String> options = LakeWriterJobs.options(db, lake);
    options.put("batch.max-rows", "4");

    // Run 1, body.max-bytes = 100: acme's 200-byte body is a dead letter, globex's 80 bytes land.
    options.put("body.max-bytes", "100b");
    JobClient first =
        LakeWriterJobs.start(LakeWriterJobs.config(options), tmp.resolve("cp1"), null, "limit-100");
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "j1");
      OutboxWriter.journal(c, "globex", "g1");
      digestMismatch(c, "globex"); // a dead letter of globex below its later promotion
    }
    awaitHead();
    long big;
    long small;
    try (Connection c = db.connect()) {
      big = OutboxWriter.materialize(c, "acme", "big", 1, body(200));
      small = OutboxWriter.materialize(c, "globex", "small", 1, body(80));
    }
    awaitHead();
    LakeWriterJobs.cancel(first, db);
    LakeReader reader = reader(lake);
    assertThat(seqs(reader, ACME_DEAD)).contains(big);
    assertThat(seqs(reader, GLOBEX_BRONZE)).contains(small);
    // The trap is set: each seq is above the other table's txn version.
    assertThat(reader.txnVersion(ACME_BRONZE)).isLessThan(big);
    assertThat(reader.txnVersion(GLOBEX_DEAD)).isLessThan(small);

    // Run 2, stateless, body.max-bytes = 1000: acme's body would now be valid.
    options.put("body.max-bytes", "1000b");
    JobClient second =
        LakeWriterJobs.start(
            LakeWriterJobs.config(options), tmp.resolve("cp2"), null, "limit-1000");
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "j2");
    }
    awaitHead();
    LakeWriterJobs.cancel(second, db);
    reader = reader(lake);
    assertThat(seqs(reader, ACME_DEAD)).contains(big);
    assertThat(seqs(reader, ACME_BRONZE)).doesNotContain(big);
    assertThat(seqs(reader, ACME_SILVER)).doesNotContain(big);
    assertVerifies(reader);

    // Run 3, stateless, body.max-bytes = 50: globex's body would now be too large.
    options.put("body.max-bytes", "50b");
    JobClient third =
        LakeWriterJobs.start(LakeWriterJobs.config(options), tmp.resolve("cp3"), null, "limit-50");
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "globex", "g2");
    }
    awaitHead();
    LakeWriterJobs.cancel(third, db);
    reader = reader(lake);
    assertThat(seqs(reader, GLOBEX_BRONZE)).contains(small);
    assertThat(seqs(reader, GLOBEX_SILVER)).contains(small);
    assertThat(seqs(reader, GLOBEX_DEAD)).doesNotContain(small);
    assertThat(seqs(reader, ACME_DEAD)).contains(big);
    assertVerifies(reader);
  }

  private void assertVerifies(LakeReader reader) throws Exception {
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
      assertThat(result.problems()).isEmpty();
    }
  }

  private static List<Long> seqs(LakeReader reader, TableId table) throws Exception {
    return reader.rows(table).stream().map(r -> (Long) r.get("seq")).toList();
  }

  private static LakeReader reader(Path lake) throws Exception {
    return LakeReader.open(LakeConfig.of(lake.toUri().toString()));
  }

  /** {@code bytes} bytes in the shape of a Tink ciphertext (OutboxWriter keeps it as it is). */
  private static byte[] body(int bytes) {
    byte[] body = "x".repeat(bytes).getBytes(StandardCharsets.UTF_8);
    body[0] = 0x01;
    return body;
  }

  private static void digestMismatch(Connection c, String tenant) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
              + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
              + " ciphertext_digest, body, data_key_id) VALUES ('"
              + tenant
              + "', 'materialize', 'x', 1, 'wa', 'alice', 'alice@g', 'bob', 'human', 'p',"
              + " 'not-the-digest', 'abc', 'dek')");
    }
  }

  private void awaitHead() throws Exception {
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    CommittedFrontier.await(db, LakeWriterJobs.WRITER, max, WAIT);
  }
}
