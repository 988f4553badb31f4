package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.env;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.it.support.CliRun;

/**
 * Case 2: PostgreSQL refuses the password. The embedded server trusts everyone, so this test runs
 * its own server whose pg_hba.conf demands scram-sha-256 on TCP for every role but postgres.
 */
class WrongPasswordITCase {
  private static final String ROLE = "oml_writer";
  private static final String RIGHT = "right-Pa55-7c1e";
  private static final String WRONG = "wrong-Pa55-94ab";

  private static EmbeddedPostgres pg;
  private static String url;

  @TempDir Path tmp;

  @BeforeAll
  static void startPasswordCheckingServer() throws Exception {
    pg = EmbeddedPostgres.builder().setServerConfig("wal_level", "logical").start();
    url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE ROLE " + ROLE + " LOGIN SUPERUSER REPLICATION PASSWORD '" + RIGHT + "'");
      Path hba = Path.of(scalar(c, "SHOW hba_file"));
      Files.writeString(
          hba,
          String.join(
              "\n",
              "# written by WrongPasswordITCase: passwords for everyone but postgres",
              "local all all trust",
              "host  all postgres 127.0.0.1/32 trust",
              "host  all postgres ::1/128      trust",
              "host  all all      127.0.0.1/32 scram-sha-256",
              "host  all all      ::1/128      scram-sha-256",
              ""));
      st.execute("SELECT pg_reload_conf()");
      assertThat(
              scalar(
                  c,
                  "SELECT count(*) FROM pg_hba_file_rules"
                      + " WHERE auth_method = 'scram-sha-256' AND error IS NULL"))
          .isEqualTo("2");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  private Map<String, String> roleOptions() {
    Map<String, String> options = options(url, tmp.resolve("lake"));
    options.put("postgres.user", ROLE);
    return options;
  }

  @Test
  void wrongPasswordNamesUserAndPasswordOptions() throws Exception {
    LakeWriterConfig wrong = LakeWriterConfig.of(roleOptions(), env(WRONG));
    assertThatThrownBy(() -> Preflight.connect(wrong).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("refused the credentials of postgres.user '" + ROLE + "'")
        .hasMessageContaining("postgres.password-env")
        .hasMessageContaining("postgres.password-file")
        .hasMessageNotContaining(WRONG)
        .hasMessageNotContaining(RIGHT)
        .cause()
        .isInstanceOf(SQLException.class);

    // No password at all (the variable is not set) is refused the same way.
    LakeWriterConfig none = LakeWriterConfig.of(roleOptions(), env(null));
    assertThatThrownBy(() -> Preflight.connect(none).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("refused the credentials of postgres.user '" + ROLE + "'")
        .hasMessageContaining("no password is set")
        .hasMessageContaining("postgres.password-env (OML_PG_PASSWORD)")
        .hasMessageContaining("postgres.password-file");

    // The right password from the same fake environment gets in: the server really checks.
    LakeWriterConfig right = LakeWriterConfig.of(roleOptions(), env(RIGHT));
    try (Connection c = Preflight.connect(right)) {
      assertThat(scalar(c, "SELECT current_user")).isEqualTo(ROLE);
    }

    // A password file wins over the (wrong) variable.
    Path file = Files.writeString(tmp.resolve("pg-password"), RIGHT + "\n");
    Map<String, String> withFile = roleOptions();
    withFile.put("postgres.password-file", file.toString());
    try (Connection c = Preflight.connect(LakeWriterConfig.of(withFile, env(WRONG)))) {
      assertThat(scalar(c, "SELECT current_user")).isEqualTo(ROLE);
    }
  }

  @Test
  void cliExitsWithTwoOnAWrongPasswordAndWorksWithTheRightOne() throws Exception {
    Map<String, String> options = roleOptions();
    options.put(
        "postgres.password-file",
        Files.writeString(tmp.resolve("wrong"), WRONG + "\n").toString());
    CliRun.Result refused = cli("init-db", options);
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .startsWith("lakewriter: PostgreSQL refused the credentials of postgres.user")
        .contains("postgres.password-file")
        .doesNotContain(WRONG);
    assertThat(refused.out()).doesNotContain(WRONG);

    options.put(
        "postgres.password-file",
        Files.writeString(tmp.resolve("right"), RIGHT + "\n").toString());
    CliRun.Result applied = cli("init-db", options);
    assertThat(applied.exitCode()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("outbox contract applied").doesNotContain(RIGHT);
  }
}
