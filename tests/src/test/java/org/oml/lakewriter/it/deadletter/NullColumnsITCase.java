package org.oml.lakewriter.it.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import org.oml.lakewriter.cdc.OutboxRowParser;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Issue 11 item 4 on real parts: an outbox row inserted with {@code event_time} NULL once reached
 * bronze as 1970-01-01 (Debezium gives the column's {@code DEFAULT now()} the placeholder
 * 1970-01-01 as its schema default, and Kafka Connect's {@code Struct.get} substitutes it for a
 * NULL). Now it is dead-lettered as {@code MISSING_FIELD}, with a NULL {@code event_time} in its
 * dead-letter row, through the snapshot phase and the stream phase alike; and NULLs in the columns
 * where NULL is legitimate stay NULL in bronze. The completeness check's JDBC mapping gives the
 * same NULLs from the real table.
 */
class NullColumnsITCase {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @RegisterExtension static final MiniClusterExtension FLINK = Flink.miniCluster();

  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;
  private TestDatabase db;
  private Path lake;
  private LakeWriterConfig cfg;
  private JobClient job;

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
    cfg = LakeWriterJobs.config(LakeWriterJobs.options(db, lake));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (job != null && !job.getJobStatus().get().isGloballyTerminalState()) {
      LakeWriterJobs.cancel(job, db);
    }
    db.close();
  }

  @Test
  void aNullEventTimeIsDeadLetteredAndLegitimateNullsStayNullInTheLake() throws Exception {
    long snapshotNullTime;
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "before");
      snapshotNullTime = nullEventTimeJournal(c); // read by the snapshot phase (op=r)
    }
    job = LakeWriterJobs.start(cfg, tmp.resolve("cp"), null, "null-columns");
    long streamNullTime;
    long sparse;
    long promotionWithoutWorkarea;
    try (Connection c = db.connect()) {
      awaitFrontier(db.scalarLong("SELECT max(seq) FROM oml_outbox"));
      streamNullTime = nullEventTimeJournal(c); // streamed (op=c)
      sparse = sparseJournal(c);
      promotionWithoutWorkarea = promotionWithoutWorkarea(c);
      OutboxWriter.journal(c, "acme", "after");
    }
    awaitFrontier(db.scalarLong("SELECT max(seq) FROM oml_outbox"));

    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    List<Long> bronze = LakeDeadLetters.bronzeSeqs(reader, "acme");
    assertThat(bronze).doesNotContain(snapshotNullTime, streamNullTime, promotionWithoutWorkarea);
    for (long seq : List.of(snapshotNullTime, streamNullTime)) {
      Map<String, Object> dead = deadLetter(reader, seq);
      assertThat(dead.get("error_class")).isEqualTo("MISSING_FIELD");
      assertThat((String) dead.get("message")).contains("event_time");
      assertThat(dead.get("event_time")).as("dead letter's event_time of seq " + seq).isNull();
      assertThat(dead.get("tx_id")).isNotNull();
    }
    Map<String, Object> noWorkarea = deadLetter(reader, promotionWithoutWorkarea);
    assertThat(noWorkarea.get("error_class")).isEqualTo("MISSING_FIELD");
    assertThat((String) noWorkarea.get("message")).contains("workarea_id");
    assertThat(noWorkarea.get("workarea_id")).isNull();

    // A journal row may leave these NULL: bronze keeps each NULL, never 0 or "".
    Map<String, Object> row =
        reader.rows(TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS)).stream()
            .filter(r -> r.get("seq").equals(sparse))
            .findFirst()
            .orElseThrow(() -> new AssertionError("seq " + sparse + " is not in bronze"));
    for (String column :
        new String[] {
          "artifact_id", "version", "workarea_id", "path_at_write", "writer_identity", "principal",
          "ratified_by", "provenance_class", "plaintext_digest", "ciphertext_digest",
          "data_key_id", "requeue_of"
        }) {
      assertThat(row.get(column)).as("bronze %s of seq %d", column, sparse).isNull();
    }
    assertThat(row.get("event_time")).isNotNull();

    // The JDBC path (completeness check, requeue) reads the same NULLs from the real table.
    try (Connection c = db.connect()) {
      OutboxEvent jdbc = new EventValidator(1 << 20).validate(readBack(c, streamNullTime));
      assertThat(jdbc.eventTimeMicros()).isNull();
      assertThat(jdbc.error().errorClass().name()).isEqualTo("MISSING_FIELD");
      OutboxEvent sparseJdbc = new EventValidator(1 << 20).validate(readBack(c, sparse));
      assertThat(sparseJdbc.error()).isNull();
      assertThat(sparseJdbc.artifactVersion()).isNull();
      assertThat(sparseJdbc.requeueOf()).isNull();
    }
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  private static long nullEventTimeJournal(Connection c) throws Exception {
    return insert(
        c,
        "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, envelope,"
            + " event_time) VALUES ('acme', 'journal', 'a-null-time', 1, '{}', NULL)"
            + " RETURNING seq");
  }

  /** A journal row with every column NULL that a journal row may leave NULL. */
  private static long sparseJournal(Connection c) throws Exception {
    return insert(
        c,
        "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'journal', '{}')"
            + " RETURNING seq");
  }

  private static long promotionWithoutWorkarea(Connection c) throws Exception {
    byte[] body = "ciphertext".getBytes(StandardCharsets.UTF_8);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
                + " workarea_id, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, body, data_key_id) VALUES ('acme',"
                + " 'materialize', 'a-no-wa', 1, NULL, 'alice', 'alice@acme', 'bob', 'human',"
                + " 'pd', ?, ?, 'dk-1') RETURNING seq")) {
      ps.setString(1, EventValidator.sha256Hex(body));
      ps.setBytes(2, body);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long insert(Connection c, String sql) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static OutboxEvent readBack(Connection c, long seq) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("SELECT * FROM oml_outbox WHERE seq = ?")) {
      ps.setLong(1, seq);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return OutboxRowParser.parse(seq, OutboxRowParser.columns(rs));
      }
    }
  }

  private static Map<String, Object> deadLetter(LakeReader reader, long seq) throws Exception {
    return LakeDeadLetters.rows(reader).stream()
        .filter(r -> r.get("seq").equals(seq))
        .findFirst()
        .orElseThrow(() -> new AssertionError("seq " + seq + " is not dead-lettered"));
  }

  private void awaitFrontier(long seq) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (CommittedFrontier.read(db, LakeWriterJobs.WRITER) < seq) {
      if (job.getJobStatus().get() == JobStatus.FAILED) {
        job.getJobExecutionResult().get();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for the committed frontier >= " + seq);
      }
      Thread.sleep(100);
    }
  }
}
