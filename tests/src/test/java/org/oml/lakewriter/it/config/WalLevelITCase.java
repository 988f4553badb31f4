package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.connect;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.contract.ContractException;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.it.support.CliRun;

/** Case 3: a server with wal_level=replica cannot feed logical replication. */
class WalLevelITCase {
  private static EmbeddedPostgres pg;
  private static String url;

  @TempDir Path tmp;

  @BeforeAll
  static void startReplicaLevelServer() throws Exception {
    pg = EmbeddedPostgres.builder().setServerConfig("wal_level", "replica").start();
    url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
    try (Connection c = connect(url)) {
      OutboxContract.apply(c, "oml_lake_pub");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void walLevelReplicaFailsNamingWalLevelAndTheFix() throws Exception {
    try (Connection c = connect(url)) {
      assertThat(scalar(c, "SHOW wal_level")).isEqualTo("replica");
    }
    Map<String, String> options = options(url, tmp.resolve("lake"));

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ContractException.class)
        .hasMessageContaining("postgres.url = " + url)
        .hasMessageContaining("wal_level is 'replica'")
        .hasMessageContaining("ALTER SYSTEM SET wal_level = logical")
        .hasMessageContaining("restart PostgreSQL")
        // The contract itself is in place: wal_level is the only thing to fix.
        .hasMessageNotContaining("init-db");

    CliRun.Result run = cli("run", options);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("lakewriter: ").contains("wal_level is 'replica'");
  }
}
