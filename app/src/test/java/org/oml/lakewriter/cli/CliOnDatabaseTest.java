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
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.deadletter.journal.JournalFixtures;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Issue 17, the command line as a new user found it, against a real PostgreSQL: the report
 * commands before {@code init-db}, {@code verify}'s arguments and its JSON, {@code status --json}'s
 * timestamps, and a role that does not exist.
 */
class CliOnDatabaseTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();
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

  /** A database without the outbox contract: what a new user has before `init-db`. */
  private static String freshDatabase() throws Exception {
    String name = "oml_cli_" + COUNTER.incrementAndGet();
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    return "jdbc:postgresql://localhost:" + pg.port() + "/" + name;
  }

  // Item 1.
  @Test
  void reportCommandsBeforeInitDbListWhatIsMissingAndSayToRunInitDb() throws Exception {
    String url = freshDatabase();
    Files.createDirectories(tmp.resolve("lake"));
    for (List<String> command :
        List.of(
            List.of("status"),
            List.of("status", "--json"),
            List.of("verify"),
            List.of("dead-letters", "list"),
            List.of("dead-letters", "requeue", "1"))) {
      Output o = cli(url, command);
      assertThat(o.code).as("%s: %s", command, o.err).isEqualTo(2);
      assertThat(o.err)
          .as("%s", command)
          .startsWith("lakewriter: `lakewriter " + String.join(" ", command).replace(" --json", "")
              .replace(" 1", "") + "` needs the outbox contract, which postgres.url = " + url)
          .contains("run `lakewriter init-db` with the same options first")
          .contains("table public.oml_outbox is missing: run `lakewriter init-db`")
          .doesNotContain("\tat ")
          .doesNotContain("PSQLException");
      assertThat(o.out).as("%s", command).isEmpty();
    }
  }

  // Item 7.
  @Test
  void verifyRefusesANegativeFrontierAndAMissingLake() throws Exception {
    String url = JournalFixtures.database(pg);
    Output negative = cli(url, List.of("verify", "--frontier", "-1"));
    assertThat(negative.code).isEqualTo(2);
    assertThat(negative.err).startsWith("lakewriter: --frontier is -1; give a seq, 0 or more");
    assertThat(negative.out).doesNotContain("OK");

    try (Connection c = JournalFixtures.connect(url)) {
      JournalFixtures.unknownKind(c, "acme");
    }
    Output noLake = cli(url, List.of("verify", "--frontier", "1"));
    assertThat(noLake.code).isEqualTo(2);
    assertThat(noLake.err)
        .startsWith("lakewriter: no lake at lake.root = " + tmp.resolve("lake").toUri())
        .contains("the directory does not exist");
    assertThat(noLake.out).doesNotContain("MISSING_ROW");
  }

  // Item 8: verify --json in snake_case only.
  @Test
  void verifyJsonKeysAreSnakeCase() throws Exception {
    String url = JournalFixtures.database(pg);
    long seq;
    try (Connection c = JournalFixtures.connect(url)) {
      seq = JournalFixtures.unknownKind(c, "acme");
    }
    Files.createDirectories(tmp.resolve("lake"));
    Output o = cli(url, List.of("verify", "--json", "--frontier", String.valueOf(seq)));
    assertThat(o.code).as(o.err).isEqualTo(1); // the row is in no table: MISSING_ROW
    JsonNode doc = new ObjectMapper().readTree(o.out);
    JsonNode acme = doc.at("/verify/tenants/acme");
    assertThat(acme.has("dead_letters")).as(acme.toString()).isTrue();
    assertThat(acme.has("silver_txn_version")).isTrue();
    List<String> keys = new ArrayList<>();
    collectKeys(doc, "", keys);
    assertThat(keys)
        .isNotEmpty()
        .allSatisfy(k -> assertThat(k).as("JSON key path").matches("[a-z0-9_/]*"));
  }

  /** Every key path, leaving out the data-keyed maps (tenant names, finding names). */
  private static void collectKeys(JsonNode node, String path, List<String> keys) {
    if (node.isArray()) {
      node.forEach(n -> collectKeys(n, path, keys));
      return;
    }
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      boolean dataKeyed = path.endsWith("/tenants") || path.endsWith("/finding_counts");
      String child = path + "/" + (dataKeyed ? "" : name);
      if (!dataKeyed) {
        keys.add(name);
      }
      collectKeys(node.get(name), child.replaceAll("/$", "/x"), keys);
    }
  }

  // Item 8: status --json timestamps in ISO 8601, like dead-letters --json.
  @Test
  void statusJsonTimestampsAreIso8601() throws Exception {
    String url = JournalFixtures.database(pg);
    try (Connection c = JournalFixtures.connect(url);
        Statement st = c.createStatement()) {
      OutboxContract.tick(c, "oml_lakewriter");
      st.execute(
          "INSERT INTO oml_lake_frontier (writer_id, frontier_seq) VALUES ('oml_lakewriter', 0)");
    }
    Output o = cli(url, List.of("status", "--json"));
    assertThat(o.code).as(o.err).isZero();
    JsonNode doc = new ObjectMapper().readTree(o.out);
    for (String key : List.of("last_tick", "frontier_updated")) {
      String value = doc.get(key).asText();
      assertThat(value).as(key).endsWith("Z").contains("T");
      assertThat(Instant.parse(value)).as(key).isAfter(Instant.now().minusSeconds(600));
    }
  }

  // Item 11.
  @Test
  void aRoleThatDoesNotExistIsNotAPasswordProblem() throws Exception {
    String url = JournalFixtures.database(pg);
    Output o =
        cli(url, List.of("status", "-D", "postgres.user=no_such_role"));
    assertThat(o.code).isEqualTo(2);
    assertThat(o.err)
        .startsWith("lakewriter: PostgreSQL refused postgres.user 'no_such_role' at postgres.url = "
            + url + " before any password check (SQLState 28000:")
        .contains("the role does not exist in this cluster: create it")
        .doesNotContain("set the password")
        .doesNotContain("postgres.password-env");
  }

  private record Output(int code, String out, String err) {}

  private synchronized Output cli(String url, List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("-D", "postgres.url=" + url, "-D", "lake.root=" + tmp.resolve("lake")));
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      int code = LakeWriterCli.execute(all.toArray(String[]::new));
      return new Output(code, out.toString(UTF_8), err.toString(UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }
}
