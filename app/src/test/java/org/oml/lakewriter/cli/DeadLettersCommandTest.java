package org.oml.lakewriter.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.deadletter.journal.JournalFixtures;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;

/** {@code lakewriter dead-letters list|requeue} as an operator runs them. */
class DeadLettersCommandTest {
  private static EmbeddedPostgresServer pg;
  @TempDir Path tmp;
  private String url;
  private long mismatch;
  private long bogus;
  private long invalid;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void journalThreeDeadLetters() throws Exception {
    url = JournalFixtures.database(pg);
    try (Connection c = JournalFixtures.connect(url)) {
      mismatch =
          JournalFixtures.digestMismatch(
              c, "acme", JournalFixtures.sealedBody("right"), JournalFixtures.sealedBody("garbled"));
      bogus = JournalFixtures.unknownKind(c, "globex");
      invalid = JournalFixtures.unknownKind(c, "Bad Tenant!");
      new DeadLetterJournal("public")
          .insert(
              c,
              List.of(
                  JournalFixtures.record(c, mismatch, ErrorClass.DIGEST_MISMATCH, "sha differs"),
                  JournalFixtures.record(c, bogus, ErrorClass.UNKNOWN_KIND, "unknown kind"),
                  JournalFixtures.record(c, invalid, ErrorClass.INVALID_TENANT, "bad tenant")));
    }
  }

  @Test
  void listShowsDeadLettersAndFiltersByTenant() {
    Result all = cli("dead-letters", "list");
    assertThat(all.code).as(all.err).isZero();
    assertThat(all.out)
        .contains("DIGEST_MISMATCH", "UNKNOWN_KIND", "INVALID_TENANT")
        .contains("3 of 3 dead letter(s) with status dead");

    Result acme = cli("dead-letters", "list", "--tenant", "acme");
    assertThat(acme.out).contains(mismatch + " ").doesNotContain("UNKNOWN_KIND");
    Result bad = cli("dead-letters", "list", "--tenant", "_invalid");
    assertThat(bad.out).contains("INVALID_TENANT").contains("1 of 1");

    Result wrong = cli("dead-letters", "list", "--status", "lost");
    assertThat(wrong.code).isEqualTo(2);
    assertThat(wrong.err).contains("--status is 'lost'; use dead, requeued or all");
  }

  @Test
  void requeueWithARepairedBodyThenListAsJson() throws Exception {
    Path body = tmp.resolve("body.bin");
    Files.write(body, JournalFixtures.sealedBody("right"));
    Result requeue =
        cli("dead-letters", "requeue", String.valueOf(mismatch), "--body-file", body.toString());
    assertThat(requeue.code).as(requeue.err).isZero();
    assertThat(requeue.out)
        .containsPattern(
            "requeued seq "
                + mismatch
                + " \\(DIGEST_MISMATCH, tenant acme, kind"
                + " materialize\\) as seq \\d+, body from .*body.bin");

    Result json = cli("dead-letters", "list", "--status", "all", "--json");
    assertThat(json.code).as(json.err).isZero();
    JsonNode doc = new ObjectMapper().readTree(json.out);
    assertThat(doc.get("total").asLong()).isEqualTo(3);
    JsonNode first = doc.get("dead_letters").get(0);
    assertThat(first.get("seq").asLong()).isEqualTo(mismatch);
    assertThat(first.get("status").asText()).isEqualTo("requeued");
    assertThat(first.get("requeued_as").asLong()).isGreaterThan(invalid);
    assertThat(first.get("journalled_at").asText()).endsWith("Z");

    Result again =
        cli("dead-letters", "requeue", String.valueOf(mismatch), "--body-file", body.toString());
    assertThat(again.code).isEqualTo(1);
    assertThat(again.err).startsWith("lakewriter: requeue refused").contains("already requeued");
    assertThat(cli("dead-letters", "list", "--status", "requeued").out).contains("1 of 1");
  }

  @Test
  void requeueRefusesAnUnknownSeqAndAWrongBody() throws Exception {
    Result unknown = cli("dead-letters", "requeue", "987654");
    assertThat(unknown.code).isEqualTo(1);
    assertThat(unknown.err).contains("seq 987654 is not a dead letter");

    Path body = tmp.resolve("wrong.bin");
    Files.write(body, JournalFixtures.sealedBody("still garbled"));
    Result wrong =
        cli("dead-letters", "requeue", String.valueOf(mismatch), "--body-file", body.toString());
    assertThat(wrong.code).isEqualTo(1);
    assertThat(wrong.err).contains("does not match the row's ciphertext_digest");

    Result missing =
        cli(
            "dead-letters",
            "requeue",
            String.valueOf(mismatch),
            "--body-file",
            tmp.resolve("nope").toString());
    assertThat(missing.code).isEqualTo(2);
    assertThat(missing.err).contains("--body-file: cannot read");
  }

  /** Item 5 of issue 17: the refusal says what repairs each class, never a useless --body-file. */
  @Test
  void requeueOfARowWhoseRepairIsNotABodySaysWhatRepairsIt() throws Exception {
    Result kind = cli("dead-letters", "requeue", String.valueOf(bogus));
    assertThat(kind.code).isEqualTo(1);
    assertThat(kind.err)
        .contains("seq " + bogus + " would be dead-lettered again, UNKNOWN_KIND")
        .contains("repair: the kind is unknown to this writer: upgrade the writer")
        .contains("--body-file cannot change the kind")
        .doesNotContain("e.g. with --body-file");

    long badTenant;
    try (Connection c = JournalFixtures.connect(url)) {
      badTenant =
          JournalFixtures.scalar(
              c,
              "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('Not A Tenant!',"
                  + " 'journal', '{}') RETURNING seq");
      new DeadLetterJournal("public")
          .insert(
              c,
              List.of(
                  JournalFixtures.record(c, badTenant, ErrorClass.INVALID_TENANT, "bad tenant")));
    }
    Result tenant = cli("dead-letters", "requeue", String.valueOf(badTenant));
    assertThat(tenant.code).isEqualTo(1);
    assertThat(tenant.err)
        .contains("INVALID_TENANT")
        .contains("have the producer insert a corrected row under the right tenant")
        .doesNotContain("e.g. with --body-file");

    Result digest = cli("dead-letters", "requeue", String.valueOf(mismatch));
    assertThat(digest.code).isEqualTo(1);
    assertThat(digest.err)
        .contains("DIGEST_MISMATCH")
        .contains("repair: requeue with --body-file FILE holding the right ciphertext");
  }

  private record Result(int code, String out, String err) {}

  private synchronized Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-D", "postgres.url=" + url, "-D", "lake.root=" + tmp.resolve("lake")));
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      int code = LakeWriterCli.execute(all.toArray(String[]::new));
      return new Result(code, out.toString(UTF_8), err.toString(UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }
}
