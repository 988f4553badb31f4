package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.contract.WriterGrants;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestCertificates;
import org.oml.lakewriter.jdbc.PgDriver;
import org.oml.lakewriter.lease.LeaseHolder;

/**
 * Issue 16: the whole pipeline over verified TLS to PostgreSQL, under a role with the least
 * privilege (docs/least-privilege.md, docs/postgres-tls.md).
 *
 * <p>A PostgreSQL of its own with {@code ssl = on} and a CA, server and client certificate made at
 * test time ({@link TestCertificates}), and a pg_hba.conf with {@code hostssl} lines only: a
 * connection without TLS matches no line and is refused. The writer's role must moreover present
 * a client certificate for its own name ({@code clientcert=verify-full}); a connection of the job
 * that did not carry {@code sslcert}/{@code sslkey} from {@code postgres.url} is refused, so a
 * running job proves that the URL's parameters reached every one of its connections, Flink CDC's
 * chunk-splitting pool included.
 *
 * <p>Roles: {@code oml_owner} owns the database and runs {@code init-db --grant-to lakewriter};
 * {@code lakewriter} ({@code LOGIN REPLICATION} and those grants, nothing else) runs the job;
 * {@code oml_nogrants} ({@code LOGIN REPLICATION} only) is refused by the preflight.
 */
class PostgresTlsLeastPrivilegeITCase {
  @RegisterExtension static final MiniClusterExtension FLINK = Flink.miniCluster();

  private static final String DB = "oml_tls";
  private static final String OWNER = "oml_owner";
  private static final String WRITER = "lakewriter";
  private static final String NO_GRANTS = "oml_nogrants";
  private static final String PASSWORD = "tls-Pa55-3f9a";
  private static final String APP_NAME = "oml-lakewriter-tls";

  @TempDir static Path shared;
  @TempDir Path tmp;

  private static EmbeddedPostgresServer pg;
  private static TestCertificates certs;
  private static Path passwordFile;
  private static CliRun.Result initDb;

  @BeforeAll
  static void startTlsOnlyPostgres() throws Exception {
    certs = TestCertificates.create(shared.resolve("pki"), WRITER);
    passwordFile = shared.resolve("pgpass");
    Files.writeString(passwordFile, PASSWORD + "\n");
    pg =
        EmbeddedPostgresServer.start(
            null,
            Map.of(
                "ssl", "on",
                "ssl_cert_file", certs.serverCert().toString(),
                "ssl_key_file", certs.serverKey().toString(),
                "ssl_ca_file", certs.caCert().toString()));
    // The last plain connection: after the reload, pg_hba.conf admits TLS only.
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE ROLE " + OWNER + " LOGIN PASSWORD '" + PASSWORD + "'");
      st.execute("CREATE ROLE " + WRITER + " LOGIN REPLICATION PASSWORD '" + PASSWORD + "'");
      st.execute("CREATE ROLE " + NO_GRANTS + " LOGIN REPLICATION PASSWORD '" + PASSWORD + "'");
      st.execute("CREATE DATABASE " + DB + " OWNER " + OWNER);
      Path hba = Path.of(ConfigFixtures.scalar(c, "SHOW hba_file"));
      Files.writeString(
          hba,
          String.join(
              "\n",
              "# PostgresTlsLeastPrivilegeITCase: TLS only (no 'host' line: plain TCP is refused)",
              "local   all all        trust",
              "hostssl all postgres   127.0.0.1/32 trust",
              "hostssl all postgres   ::1/128      trust",
              "hostssl all " + WRITER + " 127.0.0.1/32 scram-sha-256 clientcert=verify-full",
              "hostssl all " + WRITER + " ::1/128      scram-sha-256 clientcert=verify-full",
              "hostssl all all        127.0.0.1/32 scram-sha-256",
              "hostssl all all        ::1/128      scram-sha-256",
              ""));
      st.execute("SELECT pg_reload_conf()");
    }
    awaitPlainRefused();
    initDb = CliRun.run(ownerOptions(), "init-db", "--grant-to", WRITER);
  }

  @AfterAll
  static void stopPostgres() {
    if (pg != null) {
      pg.close();
    }
  }

  /** The owner applies the contract and the grants over TLS, and cannot create the slot. */
  @Test
  void initDbRunsUnderTheOwnerAndGrantsTheWriterExactlyItsNeeds() throws Exception {
    assertThat(initDb.exitCode()).as(initDb.out() + initDb.err()).isZero();
    assertThat(initDb.out()).contains("granted " + WRITER + " the lake writer's privileges");
    // The owner has no REPLICATION: the slot is left to `run`, under the writer's role.
    assertThat(initDb.err()).contains("not created: " + OWNER + " lacks the REPLICATION attribute");

    Map<String, String> grants = new TreeMap<>();
    try (Connection c = admin(DB);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT table_name, string_agg(privilege_type, ',' ORDER BY privilege_type)"
                    + " FROM information_schema.role_table_grants WHERE grantee = '" + WRITER
                    + "' AND table_name <> 'oml_data_key'" // the deployment's, granted by a test
                    + " GROUP BY table_name")) {
      while (rs.next()) {
        grants.put(rs.getString(1), rs.getString(2));
      }
    }
    System.out.println("grants of " + WRITER + ": " + grants);
    // Reads the outbox; writes only its own bookkeeping.
    assertThat(grants)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "oml_outbox", "SELECT",
                "oml_lake_horizon", "INSERT,SELECT,UPDATE",
                "oml_lake_horizon_pending", "DELETE,INSERT,SELECT,UPDATE",
                "oml_lake_frontier", "INSERT,SELECT,UPDATE",
                "oml_lake_dead_letter", "INSERT,SELECT",
                "oml_lake_dependency", "INSERT,SELECT,UPDATE",
                "oml_lake_lease", "INSERT,SELECT,UPDATE"));
    try (Connection c = connect(writerOptions(Map.of()))) {
      assertThat(WriterGrants.missing(c, "public")).isEmpty();
    }

    CliRun.Result noRole = CliRun.run(ownerOptions(), "init-db", "--grant-to", "no_such_role");
    assertThat(noRole.exitCode()).isNotZero();
    assertThat(noRole.err())
        .contains("--grant-to no_such_role: no such role")
        .contains("CREATE ROLE no_such_role LOGIN REPLICATION");
  }

  /**
   * The job, under the least-privileged role, over sslmode=verify-full with a client certificate:
   * rows land in the lake, every connection of the role is encrypted and carries the client
   * certificate (pg_stat_ssl), the walsender included; the role cannot write the outbox.
   */
  @Test
  void theWholePipelineRunsOverVerifiedTlsUnderTheLeastPrivilegedRole() throws Exception {
    Map<String, String> options = writerOptions(Map.of());
    options.put("lake.root", tmp.resolve("lake").toUri().toString());
    // The key registry is the deployment's: its one grant is the deployment's too.
    try (Connection owner = connect(ownerOptions())) {
      execute(owner, "CREATE TABLE IF NOT EXISTS oml_data_key (key_id text PRIMARY KEY)");
      execute(owner, "GRANT SELECT ON oml_data_key TO " + WRITER);
    }
    options.put("keys.lookup-query", "SELECT key_id FROM oml_data_key WHERE key_id = ANY(?)");
    LakeWriterConfig cfg = LakeWriterConfig.of(options, name -> null);

    // What `lakewriter run` does before it submits (LakeWriterJob.submit): lease, preflight.
    LeaseHolder holder = LeaseHolder.newForThisProcess();
    LakeWriterJob.acquireLease(cfg, holder, m -> {});
    Preflight.check(cfg, false, false);
    StreamExecutionEnvironment env =
        Flink.env(tmp.resolve("cp"), cfg.checkpointInterval(), 0);
    LakeWriterJob.build(env, cfg, holder, Preflight.identity(cfg));
    JobClient job = env.executeAsync("tls-least-privilege");
    try {
      List<Long> seqs = new ArrayList<>();
      long poison;
      try (Connection producer = connect(ownerOptions())) {
        seqs.add(OutboxWriter.journal(producer, "acme", "a-1"));
        seqs.add(OutboxWriter.journal(producer, "beta", "b-1"));
        seqs.add(OutboxWriter.journal(producer, "acme", "a-2"));
        try (Statement st = producer.createStatement();
            ResultSet rs =
                st.executeQuery(
                    "INSERT INTO oml_outbox (tenant_id, kind, envelope)"
                        + " VALUES ('acme', 'bogus', '{}') RETURNING seq")) {
          rs.next();
          poison = rs.getLong(1);
        }
      }
      long last = Math.max(poison, seqs.get(seqs.size() - 1));
      awaitScalar("SELECT coalesce(max(frontier_seq), 0) FROM oml_lake_frontier", last);
      // The dead-letter journal, written by the writer's role once the checkpoint completes.
      awaitScalar(
          "SELECT count(*) FROM oml_lake_dead_letter WHERE seq = " + poison, 1);

      LakeReader lake = LakeReader.open(LakeConfig.of(options.get("lake.root")));
      assertThat(LakeDeadLetters.bronzeSeqs(lake, "acme")).contains(seqs.get(0), seqs.get(2));
      assertThat(LakeDeadLetters.bronzeSeqs(lake, "beta")).contains(seqs.get(1));

      List<Map<String, Object>> ssl = sslOfRole(WRITER);
      System.out.println("pg_stat_ssl of " + WRITER + "'s connections while the job runs:");
      ssl.forEach(r -> System.out.println("  " + r));
      assertThat(ssl).isNotEmpty();
      assertThat(ssl).allSatisfy(r -> assertThat(r.get("ssl")).isEqualTo(true));
      assertThat(ssl)
          .allSatisfy(r -> assertThat((String) r.get("client_dn")).contains("CN=" + WRITER));
      assertThat(ssl)
          .as("the CDC source's walsender streams the slot over TLS")
          .anySatisfy(
              r -> {
                assertThat(r.get("backend_type")).isEqualTo("walsender");
                assertThat(r.get("in_pg_stat_replication")).isEqualTo(true);
              });
      assertThat(ssl)
          .as("side connections (ticker, completeness check, frontier, lease) over TLS")
          .anySatisfy(
              r -> {
                assertThat(r.get("backend_type")).isEqualTo("client backend");
                assertThat(r.get("application_name")).isEqualTo(APP_NAME);
              });

      // doctor, as the writer, over the same URL: verified TLS and every grant.
      Map<String, JsonNode> doctor = doctor(options);
      assertThat(doctor.get("postgres_tls").get("status").asText()).isEqualTo("OK");
      assertThat(doctor.get("postgres_tls").get("finding").asText())
          .isEqualTo("TLSv1.3, sslmode verify-full, with a client certificate");
      assertThat(doctor.get("writer_grants").get("status").asText()).isEqualTo("OK");
      CliRun.Result status = CliRun.run(options, "status");
      assertThat(status.exitCode()).as(status.out() + status.err()).isZero();

      // Least privilege: the writer reads the outbox and cannot change it.
      try (Connection c = Preflight.connect(cfg)) {
        for (String write :
            List.of(
                "INSERT INTO oml_outbox (tenant_id, kind) VALUES ('acme', 'journal')",
                "DELETE FROM oml_outbox",
                "UPDATE oml_outbox SET kind = 'erase'",
                "TRUNCATE oml_outbox",
                "SELECT nextval('oml_outbox_seq')",
                "DROP PUBLICATION oml_lake_pub")) {
          assertThatThrownBy(() -> execute(c, write))
              .as(write)
              .isInstanceOf(SQLException.class)
              .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isIn("42501"));
        }
        assertThat(count(c, "SELECT count(*) FROM oml_outbox")).isEqualTo(4);
      }
    } finally {
      job.cancel().get();
      awaitTerminal(job);
    }
  }

  /** Without TLS, without the client certificate, or with the wrong CA: refused, and named. */
  @Test
  void aConnectionRefusedForTlsReasonsIsANamedError() throws Exception {
    Properties plain = new Properties();
    plain.setProperty("user", WRITER);
    plain.setProperty("password", PASSWORD);
    plain.setProperty("sslmode", "disable");
    assertThatThrownBy(
            () ->
                PgDriver.connect("jdbc:postgresql://localhost:" + pg.port() + "/" + DB, plain)
                    .close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("no encryption");

    Map<String, String> noTls = writerOptions(Map.of());
    noTls.put("postgres.url", "jdbc:postgresql://localhost:" + pg.port() + "/" + DB
        + "?sslmode=disable");
    assertThatThrownBy(() -> connect(noTls).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("POSTGRES_TLS_REQUIRED")
        .hasMessageContaining("sslmode=verify-full");

    Map<String, String> noClientCert = writerOptions(Map.of());
    noClientCert.put("postgres.url", tlsUrl(DB, certs.caCert()));
    assertThatThrownBy(() -> connect(noClientCert).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("POSTGRES_CLIENT_CERTIFICATE")
        .hasMessageContaining("sslcert");

    Map<String, String> unknownCa = writerOptions(Map.of());
    unknownCa.put(
        "postgres.url",
        tlsUrl(DB, certs.otherCaCert()) + "&sslcert=" + certs.clientCert() + "&sslkey="
            + certs.clientKey());
    assertThatThrownBy(() -> connect(unknownCa).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("POSTGRES_TLS_HANDSHAKE")
        .hasMessageContaining("sslrootcert");
  }

  /** A role with REPLICATION but none of the grants: the preflight names each missing one. */
  @Test
  void aRoleWithoutTheGrantsIsRefusedByThePreflightNamingEachMissingGrant() throws Exception {
    assertThat(initDb.exitCode()).isZero();
    Map<String, String> options = writerOptions(Map.of());
    options.put("postgres.user", NO_GRANTS);
    options.put("postgres.url", tlsUrl(DB, certs.caCert()));
    options.put("postgres.slot", "oml_tls_nogrants_slot");
    options.put("lake.root", tmp.resolve("lake").toUri().toString());
    LakeWriterConfig cfg = LakeWriterConfig.of(options, name -> null);

    assertThatThrownBy(() -> Preflight.check(cfg, false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("MISSING_GRANT: postgres.user '" + NO_GRANTS + "'")
        .hasMessageContaining("SELECT on TABLE public.oml_outbox")
        .hasMessageContaining("SELECT, INSERT, UPDATE on TABLE public.oml_lake_lease")
        .hasMessageContaining("SELECT on SEQUENCE public.oml_outbox_seq")
        .hasMessageContaining("lakewriter init-db --grant-to " + NO_GRANTS)
        .hasMessageNotContaining("REPLICATION attribute");
    Map<String, JsonNode> doctor = doctor(options);
    assertThat(doctor.get("writer_grants").get("status").asText()).isEqualTo("FAIL");
    assertThat(doctor.get("writer_grants").get("fix").asText())
        .contains("lakewriter init-db --grant-to " + NO_GRANTS);
    // Refused before it created a slot or touched the lake.
    try (Connection c = admin(DB)) {
      assertThat(
              count(
                  c,
                  "SELECT count(*) FROM pg_replication_slots"
                      + " WHERE slot_name = 'oml_tls_nogrants_slot'"))
          .isZero();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static String tlsUrl(String database, Path rootCert) {
    return "jdbc:postgresql://localhost:" + pg.port() + "/" + database
        + "?sslmode=verify-full&sslrootcert=" + rootCert;
  }

  private static Map<String, String> ownerOptions() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("postgres.url", tlsUrl(DB, certs.caCert()));
    o.put("postgres.user", OWNER);
    o.put("postgres.password-file", passwordFile.toString());
    o.put("postgres.slot", "oml_tls_slot");
    o.put("postgres.publication", "oml_lake_pub");
    return o;
  }

  /** The writer's options: verify-full, the client certificate, an application name. */
  private static Map<String, String> writerOptions(Map<String, String> more) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put(
        "postgres.url",
        tlsUrl(DB, certs.caCert()) + "&sslcert=" + certs.clientCert() + "&sslkey="
            + certs.clientKey() + "&ApplicationName=" + APP_NAME);
    o.put("postgres.user", WRITER);
    o.put("postgres.password-file", passwordFile.toString());
    o.put("postgres.slot", "oml_tls_slot");
    o.put("postgres.publication", "oml_lake_pub");
    o.put("writer.id", "w1");
    o.put("horizon.tick-period", "200ms");
    o.put("checkpoint.interval", "500ms");
    o.putAll(more);
    return o;
  }

  /** {@code lakewriter doctor --json} with these options: each check by name. */
  private static Map<String, JsonNode> doctor(Map<String, String> options) throws Exception {
    CliRun.Result r = CliRun.run(options, "doctor", "--json");
    Map<String, JsonNode> checks = new LinkedHashMap<>();
    for (JsonNode check : new ObjectMapper().readTree(r.out()).get("checks")) {
      checks.put(check.get("name").asText(), check);
    }
    System.out.println(
        "doctor as " + options.get("postgres.user") + ": postgres_tls "
            + checks.get("postgres_tls") + ", writer_grants " + checks.get("writer_grants"));
    return checks;
  }

  private static Connection connect(Map<String, String> options) {
    return Preflight.connect(LakeWriterConfig.of(options, name -> null));
  }

  /** A superuser connection, over TLS like every other. */
  private static Connection admin(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", EmbeddedPostgresServer.USER);
    return PgDriver.connect(tlsUrl(database, certs.caCert()), p);
  }

  private static void awaitPlainRefused() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Properties plain = new Properties();
    plain.setProperty("user", EmbeddedPostgresServer.USER);
    // Not pg.connect(): pgjdbc's default sslmode (prefer) would encrypt, and be admitted.
    plain.setProperty("sslmode", "disable");
    while (System.nanoTime() < deadline) {
      try (Connection c = PgDriver.connect(pg.jdbcUrl(), plain)) {
        Thread.sleep(100); // the reload has not reached the postmaster yet
      } catch (SQLException refused) {
        return;
      }
    }
    throw new AssertionError("a plain connection is still admitted after the pg_hba.conf reload");
  }

  private static void awaitScalar(String sql, long atLeast) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    long value = -1;
    while (System.nanoTime() < deadline) {
      try (Connection c = admin(DB)) {
        value = count(c, sql);
      }
      if (value >= atLeast) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(sql + " is " + value + ", never reached " + atLeast);
  }

  /** Every connection of {@code role}, with its TLS state, joined with pg_stat_replication. */
  private static List<Map<String, Object>> sslOfRole(String role) throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Connection c = admin(DB);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT a.pid, a.backend_type, a.application_name, s.ssl, s.version, s.cipher,"
                    + " s.client_dn, r.pid IS NOT NULL AS in_pg_stat_replication"
                    + " FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid"
                    + " LEFT JOIN pg_stat_replication r ON r.pid = a.pid"
                    + " WHERE a.usename = '" + role + "' ORDER BY a.backend_type, a.pid")) {
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static void awaitTerminal(JobClient job) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!job.getJobStatus().get().isGloballyTerminalState()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("job did not end after cancel");
      }
      Thread.sleep(50);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
