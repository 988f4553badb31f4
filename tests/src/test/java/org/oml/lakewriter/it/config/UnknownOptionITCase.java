package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/** Case 8: a misspelt option, or a value an option cannot take, stops the command at once. */
@ExtendWith(SharedPostgres.class)
class UnknownOptionITCase {
  @TempDir Path tmp;
  private TestDatabase db;

  @BeforeEach
  void createDatabase(EmbeddedPostgresServer pg) throws SQLException {
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabaseSlots() throws SQLException {
    db.close();
  }

  @Test
  void unknownOptionExitsWithTwoNamingTheKey() throws Exception {
    // The command works with the right spelling, so the exit code below is the typo's.
    CliRun.Result ok = cli("status", options(db.jdbcUrl(), tmp.resolve("lake")));
    assertThat(ok.exitCode()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("outbox_head");

    CliRun.Result typo =
        CliRun.run(
            List.of(
                "status",
                "-D", "postgres.uri=" + db.jdbcUrl(),
                "-D", "postgres.url=" + db.jdbcUrl(),
                "-D", "lake.root=" + tmp.resolve("lake")));
    assertThat(typo.exitCode()).isEqualTo(2);
    assertThat(typo.err())
        .startsWith("lakewriter: unknown option(s) [postgres.uri]")
        .contains("known options are")
        .contains("postgres.url")
        .contains("lake.hadoop.*");
    assertThat(typo.out()).isEmpty();

    // The same from a config file.
    Path file =
        Files.writeString(
            tmp.resolve("lakewriter.properties"),
            "postgres.url = " + db.jdbcUrl() + "\nlake.root = " + tmp.resolve("lake")
                + "\nbatch.max-row = 5\n");
    CliRun.Result fromFile = CliRun.run(List.of("status", "--config", file.toString()));
    assertThat(fromFile.exitCode()).isEqualTo(2);
    assertThat(fromFile.err()).startsWith("lakewriter: unknown option(s) [batch.max-row]");

    Map<String, String> direct = options(db.jdbcUrl(), tmp.resolve("lake"));
    direct.put("postgres.uri", db.jdbcUrl());
    assertThatThrownBy(() -> config(direct))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown option(s) [postgres.uri]");
  }

  @Test
  void badValueNamesTheOption() {
    assertBadValue("batch.max-rows", "-5", "option batch.max-rows must be positive, not -5");
    assertBadValue("batch.max-rows", "many", "option batch.max-rows has a bad value 'many'");
    assertBadValue("horizon.tick-period", "soon", "option horizon.tick-period has a bad value 'soon'");
    assertBadValue("checkpoint.interval", "0s", "option checkpoint.interval must be positive");
    assertBadValue("batch.max-bytes", "lots", "option batch.max-bytes has a bad value 'lots'");
    assertBadValue("state.backend", "memory", "option state.backend is 'memory'; use rocksdb or hashmap");
    assertBadValue("postgres.slot", "Lake-Writer", "option postgres.slot 'Lake-Writer' must match");
    assertBadValue("postgres.url", "postgres://localhost/x", "option postgres.url is 'postgres://localhost/x'; expected jdbc:postgresql://host:port/database");
  }

  private void assertBadValue(String key, String value, String message) {
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put(key, value);
    CliRun.Result status = cli("status", options);
    assertThat(status.exitCode()).as("%s=%s", key, value).isEqualTo(2);
    assertThat(status.err()).startsWith("lakewriter: " + message);
    assertThatThrownBy(() -> config(options))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message);
  }
}
