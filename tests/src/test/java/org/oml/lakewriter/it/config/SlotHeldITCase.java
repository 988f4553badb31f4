package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/** Case 5: another process streams from the slot, e.g. a second lake writer. */
@ExtendWith(SharedPostgres.class)
class SlotHeldITCase {
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
  void activeSlotNamesPostgresSlotAndTheHolder() throws Exception {
    String slot = db.slot();
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put("postgres.slot", slot);
    try (Connection c = db.connect()) {
      scalar(c, "SELECT pg_create_logical_replication_slot(?, 'pgoutput')", slot);
    }

    int holder;
    try (Connection replication = replicationConnection();
        PGReplicationStream stream =
            replication
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName(slot)
                .withSlotOption("proto_version", 1)
                .withSlotOption("publication_names", TestDatabase.PUBLICATION)
                .start()) {
      assertThat(stream.isClosed()).isFalse();
      try (Connection c = db.connect()) {
        assertThat(scalar(c, "SELECT active FROM pg_replication_slots WHERE slot_name = ?", slot))
            .isEqualTo("t");
        holder =
            Integer.parseInt(
                scalar(c, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?", slot));
      }

      assertThatThrownBy(() -> Preflight.check(config(options), false, false))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("replication slot '" + slot + "' (postgres.slot)")
          .hasMessageContaining("is held by another process (pid " + holder + ")")
          .hasMessageContaining("is another lake writer running?");

      CliRun.Result run = cli("run", options);
      assertThat(run.exitCode()).isEqualTo(2);
      assertThat(run.err())
          .startsWith("lakewriter: replication slot '" + slot + "' (postgres.slot)")
          .contains("(pid " + holder + ")");
    }

    // Once the holder is gone, the same check passes.
    awaitInactive(slot);
    Preflight.check(config(options), false, false);
    // A restored job finds its slot too.
    Preflight.check(config(options), true, false);
  }

  private Connection replicationConnection() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", EmbeddedPostgresServer.USER);
    p.setProperty("password", "");
    p.setProperty("replication", "database");
    p.setProperty("assumeMinServerVersion", "10");
    p.setProperty("preferQueryMode", "simple");
    return DriverManager.getConnection(db.jdbcUrl(), p);
  }

  private void awaitInactive(String slot) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    try (Connection c = db.connect()) {
      while (!"f".equals(
          scalar(c, "SELECT active FROM pg_replication_slots WHERE slot_name = ?", slot))) {
        assertThat(System.nanoTime()).as("slot %s still active", slot).isLessThan(deadline);
        Thread.sleep(50);
      }
    }
  }
}
