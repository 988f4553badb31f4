package org.oml.lakewriter.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.bench.OutboxLoad;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * {@code lakewriter bench} against a "user's" database (the contract in {@code public}, an outbox
 * with rows, the user's publication and slot): it prints B1, B2, B5, the producer's peak and the
 * ratios as positive numbers, and leaves the user's objects as they were and none of its own.
 */
class BenchCommandITCase {
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stop() {
    pg.close();
  }

  @Test
  void quickJsonOnTheUsersDatabasePrintsEveryRateAndLeavesTheUsersObjectsAlone()
      throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      String before = userState(db);

      CliRun.Result run =
          CliRun.run(
              "bench", "--quick", "--json", "--events", "2000", "--tenants", "4",
              "--warmup-events", "0", "--producer-duration", "2s", "--dir", tmp.toString(),
              "-D", "postgres.url=" + db.jdbcUrl(), "-D", "postgres.user=postgres");

      assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
      JsonNode doc = new ObjectMapper().readTree(run.out());
      for (String mode : List.of("B1", "B2", "B5")) {
        assertThat(doc.at("/modes/" + mode + "/rows").asLong()).as(mode).isEqualTo(2000);
        assertThat(doc.at("/modes/" + mode + "/rows_per_s").asDouble()).as(mode).isPositive();
      }
      assertThat(doc.at("/producer_peak/clients").asInt()).isEqualTo(8);
      assertThat(doc.at("/producer_peak/rows").asLong()).isPositive();
      assertThat(doc.at("/producer_peak/rows_per_s").asDouble()).isPositive();
      assertThat(doc.at("/ratios/B5~1B2").asDouble()).isPositive();
      assertThat(doc.at("/ratios/B5~1producer_peak").asDouble()).isPositive();
      List<String> created = texts(doc.get("created"));
      String name = doc.at("/created/0").asText().substring("schema ".length());
      assertThat(name).matches("oml_bench_[0-9a-f]{8}");
      assertThat(created)
          .contains("schema " + name, "publication " + name, "replication slot " + name + "_b5_r1");
      assertThat(texts(doc.get("removed"))).containsAll(created);
      assertThat(run.err()).contains("created schema " + name, "dropped schema " + name);
      // --dir: the lakes stay for the user to look at.
      assertThat(tmp.resolve("lake-" + name + "_b5_r1")).isNotEmptyDirectory();

      assertThat(userState(db)).isEqualTo(before);
      assertThat(leftovers(db)).isEmpty();
    }
  }

  @Test
  void aBenchThatFailsStillRemovesItsObjectsAndSaysWhy() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      String before = userState(db);

      CliRun.Result run =
          CliRun.run(
              "bench", "--json", "--events", "500", "--warmup-events", "0", "--modes", "B5",
              "--timeout", "1ms", "--producer-duration", "0s",
              "-D", "postgres.url=" + db.jdbcUrl(), "-D", "postgres.user=postgres");

      assertThat(run.exitCode()).as(run.out() + run.err()).isNotZero();
      assertThat(run.err())
          .contains("B5 did not drain 500 rows within PT0.001S; raise --timeout or lower --events")
          .contains("dropped schema oml_bench_");
      // Without --dir the work directory was a temp dir, and it is gone with its lakes and state.
      Matcher work = Pattern.compile("work directory (\\S+)").matcher(run.err());
      assertThat(work.find()).as(run.err()).isTrue();
      assertThat(Path.of(work.group(1))).doesNotExist();
      assertThat(userState(db)).isEqualTo(before);
      assertThat(leftovers(db)).isEmpty();
    }
  }

  @Test
  void aUserWithoutCreateOnTheDatabaseIsToldWhatItNeedsAndNothingIsLeft() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      String before = userState(db);
      db.execute("DROP ROLE IF EXISTS bench_reader");
      db.execute("CREATE ROLE bench_reader LOGIN");

      CliRun.Result run =
          CliRun.run(
              "bench", "--quick", "--json", "--dir", tmp.toString(),
              "-D", "postgres.url=" + db.jdbcUrl(), "-D", "postgres.user=bench_reader");

      assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
      assertThat(run.err())
          .contains("lakewriter bench: could not create the scratch schema and publication"
              + " oml_bench_")
          .contains("as bench_reader")
          .contains("the user needs CREATE on the database");
      assertThat(run.out()).isEmpty();
      assertThat(userState(db)).isEqualTo(before);
      assertThat(leftovers(db)).isEmpty();
    }
  }

  /**
   * The user's side: an outbox with rows, the user's slot (with its position) and publication.
   * Created on first call; later calls read the same things back.
   */
  private static String userState(TestDatabase db) throws Exception {
    try (Connection c = db.connect();
        Statement st = c.createStatement()) {
      if (OutboxLoad.scalar(c, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
          + db.slot() + "'") == 0) {
        st.execute("SELECT pg_create_logical_replication_slot('" + db.slot() + "', 'pgoutput')");
        OutboxLoad.load(c, 50, 2, 64, 50, 1L);
      }
      StringBuilder s = new StringBuilder();
      for (String sql :
          List.of(
              "SELECT count(*) || '/' || max(seq) || '/' || md5(string_agg(artifact_id, ','"
                  + " ORDER BY seq)) FROM public.oml_outbox",
              "SELECT string_agg(slot_name || ':' || confirmed_flush_lsn, ',' ORDER BY slot_name)"
                  + " FROM pg_replication_slots",
              "SELECT string_agg(pubname || ':' || schemaname || '.' || tablename, ','"
                  + " ORDER BY pubname, tablename) FROM pg_publication_tables",
              "SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace")) {
        try (ResultSet rs = st.executeQuery(sql)) {
          rs.next();
          s.append(rs.getString(1)).append('\n');
        }
      }
      return s.toString();
    }
  }

  private static List<String> leftovers(TestDatabase db) throws Exception {
    List<String> found = new ArrayList<>();
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT 'slot ' || slot_name FROM pg_replication_slots"
                    + " WHERE slot_name LIKE 'oml\\_bench\\_%'"
                    + " UNION ALL SELECT 'schema ' || nspname FROM pg_namespace"
                    + " WHERE nspname LIKE 'oml\\_bench\\_%'"
                    + " UNION ALL SELECT 'publication ' || pubname FROM pg_publication"
                    + " WHERE pubname LIKE 'oml\\_bench\\_%'")) {
      while (rs.next()) {
        found.add(rs.getString(1));
      }
    }
    return found;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
