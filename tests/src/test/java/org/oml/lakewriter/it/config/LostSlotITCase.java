package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/** Case 6: a job restores from a checkpoint, but its replication slot is gone. */
@ExtendWith(SharedPostgres.class)
class LostSlotITCase {
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
  void lostSlotOnRestoreIsSlotLostUnlessAccepted() throws Exception {
    String slot = db.slot();
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put("postgres.slot", slot);
    LakeWriterConfig cfg = config(options);

    assertThatThrownBy(() -> Preflight.check(cfg, true, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOT_LOST: replication slot '" + slot + "' (postgres.slot)")
        .hasMessageContaining("is gone")
        .hasMessageContaining("--accept-lost-slot");
    // Acknowledged: proceeds, and preflight creates the slot the job will stream from (bounded,
    // outside the job). A fresh start never needs the slot to exist either.
    Preflight.check(cfg, true, true);
    assertThat(
            db.scalarLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
        .isEqualTo(1);
    Preflight.check(cfg, false, false);
    try (Connection c = db.connect()) {
      scalar(c, "SELECT pg_drop_replication_slot(?)", slot);
    }

    // Through the CLI: `run --restore` with a restore point, and no slot.
    Path stateDir = tmp.resolve("state");
    Path checkpoint = Files.createDirectories(stateDir.resolve("checkpoints/job/chk-1"));
    // A completed (readable) checkpoint: `run` resumes only from one whose metadata Flink reads
    // whole. Preflight refuses before the job would restore it.
    try (OutputStream out = Files.newOutputStream(checkpoint.resolve("_metadata"))) {
      Checkpoints.storeCheckpointMetadata(new CheckpointMetadata(1, List.of(), List.of()), out);
    }
    options.put("state.dir", stateDir.toString());
    CliRun.Result run = cli("run", options, "--restore");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("lakewriter: SLOT_LOST").contains("--accept-lost-slot");

    // With the slot in place, a restore passes without acknowledging anything.
    try (Connection c = db.connect()) {
      scalar(c, "SELECT pg_create_logical_replication_slot(?, 'pgoutput')", slot);
    }
    Preflight.check(cfg, true, false);
  }
}
