package org.oml.lakewriter.it.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.contract.OutboxContract;

/**
 * doctor on a server started with {@code wal_level=replica}: the {@code wal_level} check FAILs,
 * names the level and the fix, and the other checks still run and report.
 */
class DoctorWalLevelITCase {
  private static EmbeddedPostgres pg;
  private static String url;

  @TempDir Path tmp;

  @BeforeAll
  static void startReplicaLevelServer() throws Exception {
    pg = EmbeddedPostgres.builder().setServerConfig("wal_level", "replica").start();
    url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
    try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
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
  void walLevelReplicaFailsNamingTheLevelAndTheFix() throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", url);
    options.put("postgres.user", "postgres");
    options.put("postgres.slot", "doctor_replica_slot");
    options.put("lake.root", tmp.resolve("lake").toUri().toString());

    DoctorRun run = DoctorRun.run(options);
    assertThat(run.status("wal_level")).isEqualTo("FAIL");
    assertThat(run.finding("wal_level")).contains("wal_level is 'replica'");
    assertThat(run.fix("wal_level")).contains("ALTER SYSTEM SET wal_level = logical").contains("restart");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.status("publication")).isEqualTo("OK");
    assertThat(run.doc().get("checks")).hasSize(14);
  }
}
