package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.delta.frontier.JdbcFrontierListener;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.StallingProxy;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.keys.DataKeyCheck;

/**
 * Issue 11 items 8 and 14 (URL parameters). Every side connection of the job has a connect and a
 * socket timeout and carries the parameters of {@code postgres.url}:
 *
 * <ul>
 *   <li>a half-open connection (a proxy that stops forwarding, nothing closed) makes the key check,
 *       the outbox side connection (ticker, completeness check) and the frontier listener fail
 *       with a named error within the socket timeout, instead of blocking the task thread;
 *   <li>a parameter of {@code postgres.url} ({@code ApplicationName}) reaches the ticker, the
 *       completeness check, the key check and the frontier (before, only the frontier and the
 *       journal had it: mixed TLS).
 * </ul>
 */
class SideConnectionTimeoutITCase {
  @RegisterExtension static final MiniClusterExtension FLINK = Flink.miniCluster();

  private static EmbeddedPostgresServer pg;
  @TempDir java.nio.file.Path tmp;
  private TestDatabase db;
  private StallingProxy proxy;

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
    proxy = new StallingProxy(pg.port());
    db.execute("CREATE TABLE oml_data_key (key_id text PRIMARY KEY)");
  }

  @AfterEach
  void tearDown() throws Exception {
    proxy.close();
    db.close();
  }

  /** The job's options with postgres.url through the proxy and a 1 s socket timeout. */
  private LakeWriterConfig throughProxy() {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    options.put("postgres.url", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + db.name());
    options.put("postgres.socket-timeout", "1s");
    options.put("postgres.connect-timeout", "2s");
    options.put("keys.lookup-query", "SELECT key_id FROM oml_data_key WHERE key_id = ANY(?)");
    // The server-side statement timeout cannot help here: its answer never crosses the proxy.
    options.put("keys.lookup-timeout", "500ms");
    return LakeWriterJobs.config(options);
  }

  @Test
  void aHalfOpenConnectionFailsWithANamedErrorWithinTheSocketTimeoutInsteadOfHanging()
      throws Exception {
    LakeWriterConfig cfg = throughProxy();
    DataKeyCheck keys = cfg.dataKeyCheck();
    Connection outbox = cfg.sourceOptions().connect(); // the ticker's and the completeness check's
    JdbcFrontierListener frontier =
        new JdbcFrontierListener(cfg.jdbcUrl(), cfg.connectionProperties(), cfg.writerId());
    try {
      // All three work through the proxy first, so each holds an open connection.
      assertThat(keys.known(Set.of("k"))).isEmpty();
      assertThat(selectOne(outbox)).isEqualTo(1);
      frontier.frontierAdvanced(1);

      proxy.stall();

      Duration limit = Duration.ofSeconds(10); // the socket timeout is 1 s
      assertTimeoutPreemptively(
          limit,
          () ->
              assertThatThrownBy(() -> keys.known(Set.of("k")))
                  .isInstanceOf(SQLException.class)
                  .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08006")),
          "the key lookup hung on a half-open connection");
      // The cut sees the registry as unavailable: the breaker's business, not a row's fault.
      Map<Long, RowError> failures =
          assertTimeoutPreemptively(limit, () -> keys.check(List.of(promotion())));
      assertThat(failures.get(7L).errorClass()).isEqualTo(ErrorClass.DEPENDENCY_UNAVAILABLE);
      assertTimeoutPreemptively(
          limit,
          () ->
              assertThatThrownBy(() -> selectOne(outbox))
                  .isInstanceOf(SQLException.class)
                  .hasMessageContaining("I/O error"),
          "the outbox side connection hung on a half-open connection");
      assertTimeoutPreemptively(
          limit,
          () ->
              assertThatThrownBy(() -> frontier.frontierAdvanced(2))
                  .isInstanceOf(IOException.class)
                  .hasMessageContaining("could not record frontier 2"),
          "the frontier listener hung on a half-open connection");
    } finally {
      keys.close();
      frontier.close();
      outbox.close();
    }
  }

  @Test
  void theParametersOfPostgresUrlReachEveryConnectionOfTheJob() throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    options.put("postgres.url", db.jdbcUrl() + "?ApplicationName=oml-it-params");
    options.put("keys.lookup-query", "SELECT key_id FROM oml_data_key WHERE key_id = ANY(?)");
    LakeWriterConfig cfg = LakeWriterJobs.config(options);
    JobClient job = LakeWriterJobs.start(cfg, tmp.resolve("cp"), null, "url-params");
    try {
      long seq;
      try (Connection c = db.connect()) {
        seq = OutboxWriter.materialize(c, "acme", "a-1", 1, "body".getBytes());
        db.execute("INSERT INTO oml_data_key VALUES ('dek-a-1')");
      }
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, seq, Duration.ofSeconds(90));
      // Each of the job's side connections, found by what it last ran. (The CDC source's own
      // connections get the parameters as Debezium database.* properties, see OutboxSourceTest;
      // Debezium sets ApplicationName itself, so it is no probe for them.)
      Map<String, String> roles =
          Map.of(
              "horizon ticker", "query LIKE '%oml_lake_horizon_pending%' OR query LIKE '%oml_lake_tick%'",
              "completeness check", "query LIKE 'SELECT count(*) FROM public.oml_outbox%'",
              "key check", "query LIKE '%oml_data_key WHERE key_id%'",
              "frontier listener", "query LIKE 'INSERT INTO oml_lake_frontier%'");
      for (Map.Entry<String, String> role : roles.entrySet()) {
        String sql =
            "SELECT coalesce(string_agg(DISTINCT application_name, ','), '<none>')"
                + " FROM pg_stat_activity WHERE datname = '" + db.name() + "'"
                + " AND pid <> pg_backend_pid() AND ("
                + role.getValue() + ")";
        try (Connection c = db.connect();
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery(sql)) {
          rs.next();
          assertThat(rs.getString(1)).as("application_name of the %s", role.getKey())
              .isEqualTo("oml-it-params");
        }
      }
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
  }

  private static OutboxEvent promotion() {
    return OutboxEvent.builder()
        .seq(7)
        .tenantId("acme")
        .kind(EventKind.MATERIALIZE)
        .dataKeyId("k")
        .build();
  }

  private static int selectOne(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
