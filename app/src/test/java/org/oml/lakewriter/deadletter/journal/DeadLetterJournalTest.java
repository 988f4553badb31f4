package org.oml.lakewriter.deadletter.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.connect;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.digestMismatch;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.record;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.scalar;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.unknownKind;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.sealedBody;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal.Entry;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal.Filter;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal.Status;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.validate.EventValidator;

/** The journal table of the contract, written and read through {@link DeadLetterJournal}. */
class DeadLetterJournalTest {
  private static EmbeddedPostgresServer pg;
  private final DeadLetterJournal journal = new DeadLetterJournal("public");
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
  void insertIsIdempotentBySeqAndKeepsTheFirstRecord() throws Exception {
    try (Connection c = connect(url)) {
      long a = digestMismatch(c, "acme", sealedBody("right"), sealedBody("wrong body"));
      long b = unknownKind(c, "globex");
      long d = unknownKind(c, "Bad Tenant!");
      DeadLetterRecord ra = record(c, a, ErrorClass.DIGEST_MISMATCH, "sha256(body) differs");
      DeadLetterRecord rb = record(c, b, ErrorClass.UNKNOWN_KIND, "unknown kind 'bogus'");
      DeadLetterRecord rd = record(c, d, ErrorClass.INVALID_TENANT, "tenant id is invalid");

      assertThat(journal.insert(c, List.of(ra, rb))).containsExactly(a, b);
      // A replay, with the same rows journalled later and with another message: nothing changes.
      DeadLetterRecord replayed =
          new DeadLetterRecord(
              a,
              "w2",
              "acme",
              "materialize",
              "BODY_TOO_LARGE",
              "other",
              1,
              ra.firstFailureMicros() + 5_000_000,
              ra.lastFailureMicros() + 5_000_000,
              ra.txId(),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
      assertThat(journal.insert(c, List.of(replayed, rb, rd))).containsExactly(d);
      assertThat(journal.insert(c, List.of(ra, rb, rd))).isEmpty();

      List<Entry> all = journal.list(c, Filter.all());
      assertThat(all).extracting(Entry::seq).containsExactly(a, b, d);
      Entry first = all.get(0);
      assertThat(first.writerId()).isEqualTo("w1");
      assertThat(first.errorClass()).isEqualTo("DIGEST_MISMATCH");
      assertThat(first.status()).isEqualTo("dead");
      assertThat(first.attempts()).isEqualTo(1);
      assertThat(first.firstFailureAt().toInstant())
          .isEqualTo(Instant.parse("2023-11-14T22:13:20.123456Z"));
      assertThat(first.lastFailureAt()).isEqualTo(first.firstFailureAt());
      assertThat(first.bodySha256()).isEqualTo(EventValidator.sha256Hex(sealedBody("wrong body")));
      assertThat(first.bodyBytes()).isEqualTo((long) sealedBody("wrong body").length);
      assertThat(first.ciphertextDigest()).isEqualTo(EventValidator.sha256Hex(sealedBody("right")));
      assertThat(first.artifactVersion()).isEqualTo(3L);
      assertThat(first.requeuedAs()).isNull();
      assertThat(scalar(c, "SELECT tx_id FROM oml_lake_dead_letter WHERE seq = ?", a))
          .isEqualTo(scalar(c, "SELECT tx_id FROM oml_outbox WHERE seq = ?", a));
      assertThat(journal.countByErrorClass(c))
          .containsEntry("DIGEST_MISMATCH", 1L)
          .containsEntry("UNKNOWN_KIND", 1L)
          .containsEntry("INVALID_TENANT", 1L);
    }
  }

  @Test
  void theJournalHasNoBodyColumn() throws Exception {
    try (Connection c = connect(url);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT column_name, data_type FROM information_schema.columns"
                    + " WHERE table_name = 'oml_lake_dead_letter'");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        assertThat(rs.getString(1)).isNotEqualTo("body");
        assertThat(rs.getString(2)).as(rs.getString(1)).isNotEqualTo("bytea");
      }
    }
  }

  @Test
  void listFiltersByTenantStatusAndInvalidTenant() throws Exception {
    try (Connection c = connect(url)) {
      long a1 = unknownKind(c, "acme");
      long a2 = unknownKind(c, "acme");
      long g = unknownKind(c, "globex");
      long bad = unknownKind(c, "Bad Tenant!");
      long none = unknownKind(c, null);
      journal.insert(
          c,
          List.of(
              record(c, a1, ErrorClass.UNKNOWN_KIND, "m"),
              record(c, a2, ErrorClass.UNKNOWN_KIND, "m"),
              record(c, g, ErrorClass.UNKNOWN_KIND, "m"),
              record(c, bad, ErrorClass.INVALID_TENANT, "m"),
              record(c, none, ErrorClass.INVALID_TENANT, "m")));
      c.createStatement()
          .execute(
              "UPDATE oml_lake_dead_letter SET status = 'requeued', requeued_as = 999,"
                  + " requeued_at = now() WHERE seq = "
                  + a2);

      assertThat(seqs(c, new Filter("acme", Status.ALL, 100))).containsExactly(a1, a2);
      assertThat(seqs(c, new Filter("acme", Status.DEAD, 100))).containsExactly(a1);
      assertThat(seqs(c, new Filter("acme", Status.REQUEUED, 100))).containsExactly(a2);
      assertThat(seqs(c, new Filter(null, Status.DEAD, 100))).containsExactly(a1, g, bad, none);
      assertThat(seqs(c, new Filter("_invalid", Status.ALL, 100))).containsExactly(bad, none);
      assertThat(seqs(c, new Filter(null, Status.ALL, 2))).containsExactly(a1, a2);
      assertThat(journal.count(c, new Filter(null, Status.ALL, 2))).isEqualTo(5);
      assertThat(journal.list(c, new Filter("acme", Status.REQUEUED, 1)).get(0).requeuedAs())
          .isEqualTo(999L);
    }
  }

  @Test
  void theContractRefusesAnInconsistentStatus() throws Exception {
    try (Connection c = connect(url)) {
      long a = unknownKind(c, "acme");
      journal.insert(c, List.of(record(c, a, ErrorClass.UNKNOWN_KIND, "m")));
      for (String update :
          new String[] {
            "SET status = 'requeued'", "SET status = 'gone'", "SET requeued_as = 5",
          }) {
        try (var st = c.createStatement()) {
          org.assertj.core.api.Assertions.assertThatThrownBy(
                  () -> st.execute("UPDATE oml_lake_dead_letter " + update + " WHERE seq = " + a))
              .as(update)
              .hasMessageContaining("violates check constraint");
        }
      }
    }
  }

  private List<Long> seqs(Connection c, Filter filter) throws Exception {
    return journal.list(c, filter).stream().map(Entry::seq).toList();
  }
}
