package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;

/** Case 1: the database in postgres.url cannot be reached. */
@ExtendWith(SharedPostgres.class)
class UnreachableDatabaseITCase {
  @TempDir Path tmp;

  @Test
  void closedPortNamesPostgresUrl(EmbeddedPostgresServer pg) throws Exception {
    int closed = closedPort();
    String url = "jdbc:postgresql://localhost:" + closed + "/postgres";
    Map<String, String> options = options(url, tmp.resolve("lake"));

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot reach PostgreSQL")
        .hasMessageContaining("postgres.url = " + url)
        .hasMessageContaining("Check that the hostname and port are correct");

    CliRun.Result status = cli("status", options);
    assertThat(status.exitCode()).isEqualTo(2);
    assertThat(status.err())
        .startsWith("lakewriter: cannot reach PostgreSQL at postgres.url = " + url);

    // The same options pointing at the running server connect: only the port was wrong.
    Map<String, String> reachable = options(pg.jdbcUrl(), tmp.resolve("lake"));
    try (Connection c = Preflight.connect(config(reachable))) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  @Test
  void missingDatabaseNamesPostgresUrl(EmbeddedPostgresServer pg) {
    String url = "jdbc:postgresql://localhost:" + pg.port() + "/no_such_database";
    assertThatThrownBy(() -> Preflight.connect(config(options(url, tmp.resolve("lake")))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the database in postgres.url does not exist")
        .hasMessageContaining("no_such_database");
  }

  /** A port nothing listens on: bound once by us, then released. */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
