package org.oml.lakewriter.deadletter.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.connect;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.digestMismatch;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.materialize;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.record;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.scalar;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.unknownKind;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.sealedBody;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal.Entry;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal.Filter;
import org.oml.lakewriter.deadletter.journal.DeadLetterRequeue.RefusedException;
import org.oml.lakewriter.deadletter.journal.DeadLetterRequeue.Requeued;
import org.oml.lakewriter.delta.writer.EventRouter;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.validate.EventValidator;

/** Re-enqueue on a real PostgreSQL: a new outbox row and a journalled status, or nothing. */
class DeadLetterRequeueTest {
  private static EmbeddedPostgresServer pg;
  private final DeadLetterJournal journal = new DeadLetterJournal("public");
  private final DeadLetterRequeue requeue = new DeadLetterRequeue("public", 1 << 20);
  private String url;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void freshDatabase() throws Exception {
    url = JournalFixtures.database(pg);
  }

  @Test
  void aRepairedBodyIsANewOutboxRowThatCopiesTheOriginalAndPointsBackToIt() throws Exception {
    try (Connection c = connect(url)) {
      byte[] right = sealedBody("the right ciphertext");
      long seq = digestMismatch(c, "acme", right, sealedBody("garbled"));
      journal.insert(c, List.of(record(c, seq, ErrorClass.DIGEST_MISMATCH, "m")));
      Map<String, Object> original = row(c, seq);

      List<Requeued> done = requeue.requeue(c, List.of(seq), right, false);

      assertThat(done).hasSize(1);
      Requeued r = done.get(0);
      assertThat(r.seq()).isEqualTo(seq);
      assertThat(r.requeuedAs()).isGreaterThan(seq);
      assertThat(r.bodyReplaced()).isTrue();
      assertThat(r.warning()).isNull();
      assertThat(r.errorClass()).isEqualTo("DIGEST_MISMATCH");
      Map<String, Object> copy = row(c, r.requeuedAs());
      for (String column : original.keySet()) {
        switch (column) {
          case "seq" -> assertThat(copy.get(column)).isEqualTo(r.requeuedAs());
          case "tx_id" -> assertThat(copy.get(column)).isNotEqualTo(original.get(column));
          case "requeue_of" -> assertThat(copy.get(column)).isEqualTo(seq);
          case "body" -> assertThat((byte[]) copy.get(column)).isEqualTo(right);
          default -> assertThat(copy.get(column)).as(column).isEqualTo(original.get(column));
        }
      }
      // The original row is never edited.
      assertThat(row(c, seq).get("body")).isEqualTo(original.get("body"));
      assertThat(row(c, seq).get("requeue_of")).isNull();

      Entry entry = journal.list(c, Filter.all()).get(0);
      assertThat(entry.status()).isEqualTo("requeued");
      assertThat(entry.requeuedAs()).isEqualTo(r.requeuedAs());
      assertThat(entry.requeuedAt()).isNotNull();
      assertThat(entry.requeuedBy()).isEqualTo(EmbeddedPostgresServer.USER);
    }
  }

  @Test
  void severalSeqsAreRequeuedInOneTransaction() throws Exception {
    try (Connection c = connect(url)) {
      // A body that was too large for the writer's limit then, and fits the limit now.
      byte[] body = new byte[2048];
      body[0] = 0x01; // the shape of a Tink ciphertext (validate/TinkCiphertext)
      long a = materialize(c, "acme", EventValidator.sha256Hex(body), body);
      long b = materialize(c, "globex", EventValidator.sha256Hex(body), body);
      journal.insert(
          c,
          List.of(
              record(c, a, ErrorClass.BODY_TOO_LARGE, "too large"),
              record(c, b, ErrorClass.BODY_TOO_LARGE, "too large")));

      List<Requeued> done = requeue.requeue(c, List.of(b, a, b), null, false);

      assertThat(done).extracting(Requeued::seq).containsExactly(b, a);
      assertThat(done).extracting(Requeued::bodyReplaced).containsOnly(false);
      for (Requeued r : done) {
        assertThat(row(c, r.requeuedAs()).get("body")).isEqualTo(body);
        assertThat(row(c, r.requeuedAs()).get("requeue_of")).isEqualTo(r.seq());
      }
      assertThat(journal.list(c, new Filter(null, DeadLetterJournal.Status.DEAD, 10))).isEmpty();
    }
  }

  @Test
  void refusesAnUnknownSeqAndOneAlreadyRequeuedAndChangesNothing() throws Exception {
    try (Connection c = connect(url)) {
      byte[] body = sealedBody("fits now");
      long a = materialize(c, "acme", EventValidator.sha256Hex(body), body);
      long b = materialize(c, "acme", EventValidator.sha256Hex(body), body);
      long notDead = unknownKind(c, "acme");
      journal.insert(
          c,
          List.of(
              record(c, a, ErrorClass.BODY_TOO_LARGE, "m"),
              record(c, b, ErrorClass.BODY_TOO_LARGE, "m")));
      long firstCopy = requeue.requeue(c, List.of(a), null, false).get(0).requeuedAs();
      long rows = scalar(c, "SELECT count(*) FROM oml_outbox");

      assertThatThrownBy(() -> requeue.requeue(c, List.of(b, a, notDead, 424242L), null, false))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("nothing changed")
          .hasMessageContaining("seq " + a + " is already requeued, as seq " + firstCopy)
          .hasMessageContaining("seq " + notDead + " is not a dead letter")
          .hasMessageContaining("seq 424242 is not a dead letter")
          .hasMessageNotContaining("seq " + b + " ");

      assertThat(scalar(c, "SELECT count(*) FROM oml_outbox")).isEqualTo(rows);
      assertThat(scalar(c, "SELECT count(*) FROM oml_lake_dead_letter WHERE status = 'dead'"))
          .isEqualTo(1);
      assertThat(c.getAutoCommit()).isTrue();
    }
  }

  @Test
  void refusesABodyThatDoesNotHashToTheDigest() throws Exception {
    try (Connection c = connect(url)) {
      long seq = digestMismatch(c, "acme", sealedBody("right"), sealedBody("garbled"));
      journal.insert(c, List.of(record(c, seq, ErrorClass.DIGEST_MISMATCH, "m")));
      long rows = scalar(c, "SELECT count(*) FROM oml_outbox");

      assertThatThrownBy(() -> requeue.requeue(c, List.of(seq), sealedBody("still wrong"), false))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("the repaired body does not match the row's ciphertext_digest")
          .hasMessageContaining(EventValidator.sha256Hex(sealedBody("still wrong")))
          .hasMessageContaining(EventValidator.sha256Hex(sealedBody("right")));
      // --force never admits a body the digest does not vouch for.
      assertThatThrownBy(() -> requeue.requeue(c, List.of(seq), sealedBody("still wrong"), true))
          .isInstanceOf(RefusedException.class);
      assertThat(scalar(c, "SELECT count(*) FROM oml_outbox")).isEqualTo(rows);
      assertThat(journal.list(c, Filter.all()).get(0).status()).isEqualTo("dead");
    }
  }

  @Test
  void refusesABodyForSeveralSeqsOrForARowWithoutDigest() throws Exception {
    try (Connection c = connect(url)) {
      long a = unknownKind(c, "acme");
      long b = unknownKind(c, "acme");
      journal.insert(
          c,
          List.of(
              record(c, a, ErrorClass.UNKNOWN_KIND, "m"),
              record(c, b, ErrorClass.UNKNOWN_KIND, "m")));
      assertThatThrownBy(() -> requeue.requeue(c, List.of(a, b), sealedBody("x"), false))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("give exactly one SEQ");
      assertThatThrownBy(() -> requeue.requeue(c, List.of(a), sealedBody("x"), false))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("no ciphertext_digest");
    }
  }

  @Test
  void refusesARowTheWriterWouldDeadLetterAgainUnlessForced() throws Exception {
    try (Connection c = connect(url)) {
      long seq = digestMismatch(c, "acme", sealedBody("right"), sealedBody("garbled"));
      long bogus = unknownKind(c, "acme");
      journal.insert(
          c,
          List.of(
              record(c, seq, ErrorClass.DIGEST_MISMATCH, "m"),
              record(c, bogus, ErrorClass.UNKNOWN_KIND, "m")));
      long rows = scalar(c, "SELECT count(*) FROM oml_outbox");

      assertThatThrownBy(() -> requeue.requeue(c, List.of(seq, bogus), null, false))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("seq " + seq + " would be dead-lettered again")
          .hasMessageContaining("DIGEST_MISMATCH")
          .hasMessageContaining("seq " + bogus + " would be dead-lettered again")
          .hasMessageContaining("UNKNOWN_KIND")
          .hasMessageContaining("--force");
      assertThat(scalar(c, "SELECT count(*) FROM oml_outbox")).isEqualTo(rows);

      List<Requeued> forced = requeue.requeue(c, List.of(bogus), null, true);
      assertThat(forced.get(0).warning()).contains("UNKNOWN_KIND");
      assertThat(scalar(c, "SELECT count(*) FROM oml_outbox")).isEqualTo(rows + 1);
    }
  }

  /**
   * An upper-case digest matches its body for the validator (it ignores case); whether the sink's
   * router admits it decides whether the requeue goes through, exactly as it decides whether the
   * writer would dead-letter the new row.
   */
  @Test
  void aBodyMatchingAnUpperCaseDigestIsAdmittedExactlyWhenTheSinkWouldAdmitIt() throws Exception {
    try (Connection c = connect(url)) {
      byte[] right = sealedBody("right");
      String upper = EventValidator.sha256Hex(right).toUpperCase(java.util.Locale.ROOT);
      long seq = materialize(c, "acme", upper, sealedBody("garbled"));
      journal.insert(c, List.of(record(c, seq, ErrorClass.DIGEST_MISMATCH, "m")));
      boolean sinkAdmits =
          !new EventRouter()
              .route(
                  OutboxEvent.builder()
                      .seq(1)
                      .tenantId("acme")
                      .kind("materialize")
                      .artifactId("a")
                      .artifactVersion(1L)
                      .writerIdentity("alice")
                      .ratifiedBy("bob")
                      .ciphertextDigest(upper)
                      .body(right)
                      .build())
              .isDeadLetter();
      if (sinkAdmits) {
        assertThat(requeue.requeue(c, List.of(seq), right, false)).hasSize(1);
      } else {
        assertThatThrownBy(() -> requeue.requeue(c, List.of(seq), right, false))
            .isInstanceOf(RefusedException.class)
            .hasMessageContaining("would be dead-lettered again, DIGEST_MISMATCH");
      }
    }
  }

  private static Map<String, Object> row(Connection c, long seq) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("SELECT * FROM oml_outbox WHERE seq = ?")) {
      ps.setLong(1, seq);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("outbox row %s", seq).isTrue();
        ResultSetMetaData meta = rs.getMetaData();
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.put(meta.getColumnName(i), rs.getObject(i));
        }
        return row;
      }
    }
  }
}
