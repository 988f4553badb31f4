package org.oml.lakewriter.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.validate.EventValidator;

/** Demo traffic against a real PostgreSQL with the outbox contract applied. */
class DemoTrafficTest {
  private static final String PUB = "oml_lake_pub";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static EmbeddedPostgresServer pg;
  private static int databases;

  @TempDir Path keys;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    if (pg != null) {
      pg.close();
    }
  }

  /** A fresh database with the contract applied, so that seqs start at 1. */
  private static String freshDatabase() throws SQLException {
    String name = "demo_" + (++databases);
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    String url = jdbcUrl(name);
    try (Connection c =
        java.sql.DriverManager.getConnection(url, EmbeddedPostgresServer.USER, "")) {
      OutboxContract.apply(c, PUB);
    }
    return url;
  }

  private static String lastDatabase() {
    return jdbcUrl("demo_" + databases);
  }

  private static String jdbcUrl(String database) {
    return "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/" + database;
  }

  private static Connection connect(String url) throws SQLException {
    return java.sql.DriverManager.getConnection(url, EmbeddedPostgresServer.USER, "");
  }

  @Test
  void trafficMeetsTheContractAndTheSummary() throws Exception {
    String url = freshDatabase();
    BodyEncryption enc = BodyEncryption.open(keys);
    DemoTraffic.Options options =
        DemoTraffic.Options.defaults()
            .withEvents(1500)
            .withTenants(8)
            .withSeed(42)
            .withThreads(3)
            .withLongOpenDelay(Duration.ofSeconds(2))
            .withRollbackRate(0.05);

    DemoTraffic.Summary summary =
        DemoTraffic.forJdbc(url, EmbeddedPostgresServer.USER, "", enc, options).run();
    System.out.print(summary.describe());

    List<OutboxEvent> rows;
    Map<String, byte[]> wrappedKeys = new HashMap<>();
    Map<String, String> keyArtifacts = new HashMap<>();
    try (Connection c = connect(url)) {
      rows = readOutbox(c);
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT data_key_id, artifact_id, wrapped FROM " + DemoTraffic.DATA_KEY_TABLE)) {
        while (rs.next()) {
          wrappedKeys.put(rs.getString(1), rs.getBytes(3));
          keyArtifacts.put(rs.getString(1), rs.getString(2));
        }
      }
    }

    // Counts match the summary.
    assertThat(rows).hasSize(1500);
    assertThat(summary.committedRows()).isEqualTo(1500);
    Map<String, Map<String, Long>> counted = new TreeMap<>();
    for (OutboxEvent e : rows) {
      counted.computeIfAbsent(e.tenantId(), t -> new TreeMap<>()).merge(e.kind(), 1L, Long::sum);
    }
    assertThat(counted).isEqualTo(summary.committedByTenantAndKind());
    assertThat(rows.get(rows.size() - 1).seq()).isEqualTo(summary.maxSeq());
    assertThat(counted.keySet()).isSubsetOf(DemoTraffic.tenantIds(8));
    assertThat(counted.keySet()).contains("acme", "globex", "initech");
    assertThat(DemoTraffic.tenantIds(8))
        .endsWith("tenant-07", "tenant-08")
        .allMatch(EventValidator::isValidTenant);

    // The mix: ~70 / ~20 / ~10.
    Map<String, Long> byKind = summary.committedByKind();
    long retractions =
        byKind.getOrDefault("demote", 0L)
            + byKind.getOrDefault("erase", 0L)
            + byKind.getOrDefault("simulation_end", 0L)
            + byKind.getOrDefault("reassign", 0L);
    assertThat(byKind.get("journal")).isBetween(950L, 1200L);
    assertThat(byKind.get("materialize")).isBetween(200L, 400L);
    assertThat(retractions).isBetween(80L, 220L);
    assertThat(byKind).containsKeys("demote", "erase", "reassign", "simulation_end",
        "workarea_validated", "workarea_invalidated");
    long validations =
        byKind.get("workarea_validated") + byKind.get("workarea_invalidated");
    assertThat(validations).isBetween(25L, 110L);
    // Reassigns move memories into workareas with a validation event, and out of them.
    Set<String> judged = new HashSet<>();
    long into = 0;
    for (OutboxEvent e : rows) {
      if (e.kind().startsWith("workarea_")) {
        judged.add(e.tenantId() + "/" + e.workareaId());
      } else if (e.kind().equals("reassign") && judged.contains(e.tenantId() + "/" + e.workareaId())) {
        into++;
      }
    }
    assertThat(into).isPositive();

    // Every row passes the writer's own validation.
    EventValidator validator = new EventValidator(1 << 20);
    for (OutboxEvent e : rows) {
      assertThat(validator.validate(e).error()).as("%s", e).isNull();
    }

    // Journal rows: a digest-only signed envelope, never a body.
    for (OutboxEvent e : rows) {
      if (e.kind().equals("journal")) {
        assertThat(e.body()).isNull();
        assertThat(e.ciphertextDigest()).isNull();
        assertThat(e.dataKeyId()).isNull();
        JsonNode env = JSON.readTree(e.envelope());
        assertThat(env.get("alg").asText()).isEqualTo("ed25519");
        assertThat(env.get("payload_digest").asText()).matches("sha256:[0-9a-f]{64}");
        assertThat(env.get("sig").asText()).matches("[A-Za-z0-9_-]{86}");
        assertThat(e.plaintextDigest()).matches("[0-9a-f]{64}");
      } else {
        assertThat(e.envelope()).isNull();
      }
    }

    // Materialize rows: digests hold, and the body opens with the key store's wrapped key, unless
    // the version was erased: then the erase's transaction deleted its key.
    Set<String> erased = new HashSet<>();
    for (OutboxEvent e : rows) {
      if (e.kind().equals("erase")) {
        erased.add(e.artifactId() + "@" + e.artifactVersion());
      }
    }
    assertThat(erased).isNotEmpty();
    long materialized = 0;
    long keysErased = 0;
    for (OutboxEvent e : rows) {
      if (!e.kind().equals("materialize")) {
        continue;
      }
      materialized++;
      assertThat(EventValidator.sha256Hex(e.body())).isEqualTo(e.ciphertextDigest());
      assertThat(e.ratifiedBy()).isNotEqualTo(e.writerIdentity());
      if (erased.contains(e.artifactId() + "@" + e.artifactVersion())) {
        assertThat(wrappedKeys).as("the erased version's key").doesNotContainKey(e.dataKeyId());
        keysErased++;
        continue;
      }
      assertThat(wrappedKeys).containsKey(e.dataKeyId());
      assertThat(keyArtifacts.get(e.dataKeyId())).isEqualTo(e.artifactId());
      byte[] plaintext = enc.decrypt(e.artifactId(), wrappedKeys.get(e.dataKeyId()), e.body());
      assertThat(EventValidator.sha256Hex(plaintext)).isEqualTo(e.plaintextDigest());
      assertThat(plaintext.length).isBetween(900, 1400);
      String text = new String(plaintext, StandardCharsets.UTF_8);
      assertThat(text).contains(e.artifactId()).contains(e.tenantId());
      assertThat(e.provenanceClass()).isIn("human", "agent", "import", "simulation");
    }
    // Rolled-back promotions took their keys with them; erases took theirs.
    assertThat(keysErased).isEqualTo(erased.size());
    assertThat(wrappedKeys).hasSize((int) (materialized - keysErased));

    // Promotions promote a version an earlier journal row wrote, with the same digest; retracts
    // only target versions materialized at a lower seq, and nothing after a final retraction.
    Map<String, String> writtenDigest = new HashMap<>();
    Map<String, Long> materializedAt = new HashMap<>();
    Set<String> finished = new HashSet<>();
    Map<String, String> workarea = new HashMap<>();
    for (OutboxEvent e : rows) {
      String key = e.tenantId() + "/" + e.artifactId() + "@" + e.artifactVersion();
      String artifact = e.tenantId() + "/" + e.artifactId();
      EventKind kind = e.eventKind().orElseThrow();
      if (kind == EventKind.JOURNAL) {
        if (JSON.readTree(e.envelope()).get("op").asText().equals("write")) {
          assertThat(writtenDigest.put(key, e.plaintextDigest())).as("rewrite of %s", key).isNull();
        }
      } else if (kind == EventKind.MATERIALIZE) {
        assertThat(writtenDigest.get(key)).as("write before %s", e).isEqualTo(e.plaintextDigest());
        assertThat(materializedAt.put(key, e.seq())).as("promoted twice: %s", key).isNull();
      } else if (kind.isWorkareaValidation()) {
        assertThat(e.artifactId()).isNull();
        assertThat(e.workareaId()).isNotNull();
        continue; // it moves no artifact
      } else {
        assertThat(materializedAt.get(key)).as("promotion before %s", e).isNotNull();
        assertThat(materializedAt.get(key)).isLessThan(e.seq());
        assertThat(finished).as("retraction after a final one: %s", e).doesNotContain(key);
        if (kind == EventKind.REASSIGN) {
          assertThat(e.workareaId()).isNotNull().isNotEqualTo(workarea.get(artifact));
        } else {
          finished.add(key);
        }
      }
      if (e.workareaId() != null) {
        workarea.put(artifact, e.workareaId());
      }
    }

    // Rollbacks left seq gaps (seqs start at 1 in a fresh database).
    assertThat(summary.rolledBackTransactions()).isPositive();
    long gaps = summary.maxSeq() - rows.size();
    assertThat(gaps).isPositive().isLessThanOrEqualTo(summary.rolledBackRows());
    assertThat(rows.get(0).seq()).isEqualTo(1);

    // The long-open transaction took the lowest seqs and others committed while it was open.
    assertThat(summary.longOpenSeq()).isEqualTo(1);
    assertThat(rows.get(0).kind()).isEqualTo("journal");
    assertThat(rows.get(1).kind()).isEqualTo("materialize");
    assertThat(rows.get(1).txId()).isEqualTo(rows.get(0).txId());
    assertThat(summary.committedWhileLongOpen()).isPositive();
    assertThat(summary.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));

    // Transactions hold 1-10 rows of one tenant.
    Map<Long, List<OutboxEvent>> byTx = new HashMap<>();
    rows.forEach(e -> byTx.computeIfAbsent(e.txId(), t -> new ArrayList<>()).add(e));
    assertThat(byTx).hasSize((int) summary.committedTransactions());
    for (List<OutboxEvent> tx : byTx.values()) {
      assertThat(tx).hasSizeBetween(1, 10);
      assertThat(tx.stream().map(OutboxEvent::tenantId).distinct()).hasSize(1);
    }
  }

  @Test
  void oneThreadWithTheSameSeedWritesTheSameTraffic() throws Exception {
    BodyEncryption enc = BodyEncryption.open(keys);
    DemoTraffic.Options options =
        DemoTraffic.Options.defaults()
            .withEvents(300)
            .withTenants(3)
            .withSeed(7)
            .withThreads(1)
            .withLongOpenDelay(Duration.ZERO)
            .withRollbackRate(0.1);
    List<List<Object>> runs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String url = freshDatabase();
      DemoTraffic.Summary s =
          DemoTraffic.forJdbc(url, EmbeddedPostgresServer.USER, "", enc, options).run();
      assertThat(s.longOpenSeq()).isZero();
      assertThat(s.committedRows()).isEqualTo(300);
      List<Object> shape = new ArrayList<>();
      try (Connection c = connect(url)) {
        for (OutboxEvent e : readOutbox(c)) {
          shape.add(
              List.of(
                  e.seq(),
                  e.tenantId(),
                  e.kind(),
                  String.valueOf(e.artifactId()),
                  String.valueOf(e.artifactVersion()),
                  String.valueOf(e.workareaId()),
                  String.valueOf(e.pathAtWrite()),
                  String.valueOf(e.writerIdentity()),
                  String.valueOf(e.ratifiedBy()),
                  String.valueOf(e.plaintextDigest())));
        }
      }
      runs.add(shape);
    }
    assertThat(runs.get(1)).isEqualTo(runs.get(0));

    // A second run with the same seed on a used outbox never promotes a version again.
    String url = lastDatabase();
    DemoTraffic.forJdbc(url, EmbeddedPostgresServer.USER, "", enc, options).run();
    try (Connection c = connect(url)) {
      List<OutboxEvent> all = readOutbox(c);
      assertThat(all).hasSize(600);
      assertThat(
              all.stream()
                  .filter(e -> e.kind().equals("materialize"))
                  .map(e -> e.artifactId() + "@" + e.artifactVersion()))
          .doesNotHaveDuplicates();
    }
  }

  @Test
  void aDatabaseWithoutTheContractFailsTheRunAtOnce() throws Exception {
    String name = "demo_bare";
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    BodyEncryption enc = BodyEncryption.open(keys);
    DemoTraffic.Options options = DemoTraffic.Options.defaults().withEvents(50);
    assertThatThrownBy(
            () ->
                DemoTraffic.forJdbc(jdbcUrl(name), EmbeddedPostgresServer.USER, "", enc, options)
                    .run())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("oml_outbox");
  }

  @Test
  void aFailingThreadEndsTheRunWithoutWaitingForTheOthers() throws Exception {
    String url = freshDatabase();
    BodyEncryption enc = BodyEncryption.open(keys);
    // Connections 1-2 set up, 3 is the long-open transaction (open for 30 s), 4+ are workers
    // whose inserts fail.
    AtomicInteger opened = new AtomicInteger();
    DemoTraffic.ConnectionSource source =
        () -> {
          Connection c = connect(url);
          if (opened.incrementAndGet() >= 4) {
            try (Statement st = c.createStatement()) {
              st.execute("SET search_path = no_such_schema");
            }
          }
          return c;
        };
    DemoTraffic.Options options =
        DemoTraffic.Options.defaults().withEvents(100).withLongOpenDelay(Duration.ofSeconds(30));
    long started = System.nanoTime();
    assertThatThrownBy(() -> new DemoTraffic(source, enc, options).run())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("oml_outbox");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));

    // The long-open transaction itself failing (its connection cannot be opened) also ends it.
    AtomicInteger opened2 = new AtomicInteger();
    DemoTraffic.ConnectionSource failingThird =
        () -> {
          if (opened2.incrementAndGet() == 3) {
            throw new SQLException("no more connections");
          }
          return connect(url);
        };
    assertThatThrownBy(() -> new DemoTraffic(failingThird, enc, options).run())
        .isInstanceOf(SQLException.class)
        .hasMessage("no more connections");
  }

  @Test
  void optionsAndTenantIds() {
    assertThat(DemoTraffic.tenantIds(7))
        .containsExactly("acme", "globex", "initech", "umbrella", "hooli", "soylent", "tenant-07");
    assertThat(DemoTraffic.tenantIds(999))
        .allMatch(EventValidator::isValidTenant)
        .doesNotHaveDuplicates();
    DemoTraffic.Options d = DemoTraffic.Options.defaults();
    assertThatThrownBy(() -> d.withEvents(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withTenants(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withThreads(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withRollbackRate(0.9)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.withLongOpenDelay(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** The outbox in seq order, as {@link OutboxEvent}s built from the JDBC rows. */
  private static List<OutboxEvent> readOutbox(Connection c) throws SQLException {
    List<OutboxEvent> rows = new ArrayList<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT seq, tx_id, tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                    + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                    + " plaintext_digest, ciphertext_digest, body, data_key_id, envelope,"
                    + " (extract(epoch FROM event_time) * 1000000)::bigint AS event_time_micros,"
                    + " requeue_of FROM oml_outbox ORDER BY seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(
            OutboxEvent.builder()
                .seq(rs.getLong("seq"))
                .txId(rs.getLong("tx_id"))
                .tenantId(rs.getString("tenant_id"))
                .kind(rs.getString("kind"))
                .artifactId(rs.getString("artifact_id"))
                .artifactVersion(rs.getObject("artifact_version", Long.class))
                .workareaId(rs.getString("workarea_id"))
                .pathAtWrite(rs.getString("path_at_write"))
                .writerIdentity(rs.getString("writer_identity"))
                .principal(rs.getString("principal"))
                .ratifiedBy(rs.getString("ratified_by"))
                .provenanceClass(rs.getString("provenance_class"))
                .plaintextDigest(rs.getString("plaintext_digest"))
                .ciphertextDigest(rs.getString("ciphertext_digest"))
                .body(rs.getBytes("body"))
                .dataKeyId(rs.getString("data_key_id"))
                .envelope(rs.getString("envelope"))
                .eventTimeMicros(rs.getObject("event_time_micros", Long.class))
                .requeueOf(rs.getObject("requeue_of", Long.class))
                .build());
      }
    }
    return rows;
  }
}
