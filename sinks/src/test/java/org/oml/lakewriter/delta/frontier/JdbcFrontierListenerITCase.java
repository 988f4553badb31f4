package org.oml.lakewriter.delta.frontier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The frontier cache on a real PostgreSQL: upserts per writer, never moves back. */
class JdbcFrontierListenerITCase {
  private static EmbeddedPostgres postgres;

  @BeforeAll
  static void start() throws Exception {
    postgres = EmbeddedPostgres.builder().start();
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      // Owned by the outbox contract SQL; created here only so that this module tests alone.
      s.execute(
          "CREATE TABLE IF NOT EXISTS oml_lake_frontier (writer_id text PRIMARY KEY,"
              + " frontier_seq bigint NOT NULL, updated_at timestamptz NOT NULL)");
    }
  }

  @AfterAll
  static void stop() throws IOException {
    postgres.close();
  }

  @Test
  void upsertsPerWriterAndNeverMovesBack() throws Exception {
    try (JdbcFrontierListener a = listener("writer-a");
        JdbcFrontierListener b = listener("writer-b")) {
      a.frontierAdvanced(10);
      a.frontierAdvanced(25);
      b.frontierAdvanced(7);
      a.frontierAdvanced(20); // a replay of an older checkpoint
      assertThat(frontierOf("writer-a")).isEqualTo(25);
      assertThat(frontierOf("writer-b")).isEqualTo(7);
    }
  }

  @Test
  void survivesSerializationAndReconnectsAfterAFailure() throws Exception {
    JdbcFrontierListener original = listener("writer-c");
    JdbcFrontierListener copy =
        InstantiationUtil.deserializeObject(
            InstantiationUtil.serializeObject(original), getClass().getClassLoader());
    copy.frontierAdvanced(3);
    assertThat(frontierOf("writer-c")).isEqualTo(3);
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
              + " WHERE pid <> pg_backend_pid() AND datname = 'postgres'");
    }
    assertThatThrownBy(() -> copy.frontierAdvanced(4)).isInstanceOf(IOException.class);
    copy.frontierAdvanced(5);
    assertThat(frontierOf("writer-c")).isEqualTo(5);
    assertThat(copy.toString()).doesNotContain("password");
    copy.close();
  }

  private static JdbcFrontierListener listener(String writerId) {
    Properties props = new Properties();
    props.setProperty("user", "postgres");
    props.setProperty("password", "secret-password");
    return new JdbcFrontierListener(postgres.getJdbcUrl("postgres", "postgres"), props, writerId);
  }

  private static long frontierOf(String writerId) throws Exception {
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = '"
                    + writerId
                    + "'")) {
      assertThat(rs.next()).isTrue();
      return rs.getLong(1);
    }
  }
}
