package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.SlotCreation;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * A logical slot can only be created once every transaction running in the cluster has ended.
 * {@code init-db} creates the slot at deployment; where it has to wait, the wait is bounded and
 * its error names the transactions it waited for, instead of a job that silently never streams.
 */
@ExtendWith(SharedPostgres.class)
class SlotCreationITCase {
  @TempDir Path tmp;
  private TestDatabase db;
  private EmbeddedPostgresServer pg;

  @BeforeEach
  void createDatabase(EmbeddedPostgresServer pg) throws SQLException {
    this.pg = pg;
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabaseSlots() throws SQLException {
    db.close();
  }

  @Test
  void initDbCreatesTheSlotOnceAndAgainIsANoOp() throws Exception {
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.remove("lake.root");
    options.put("postgres.slot", db.slot());

    CliRun.Result first = CliRun.run(options, "init-db");
    CliRun.Result second = CliRun.run(options, "init-db");

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out()).contains("replication slot " + db.slot() + " created");
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.out()).doesNotContain("created");
    assertThat(
            db.scalarLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                    + "' AND plugin = 'pgoutput'"))
        .isEqualTo(1);
  }

  @Test
  void aTransactionRunningElsewhereBlocksCreationWithANamedBoundedError() throws Exception {
    String other = db.name() + "_elsewhere";
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + other);
    }
    try (Connection blocker =
        DriverManager.getConnection(
            "jdbc:postgresql://localhost:" + pg.port() + "/" + other,
            EmbeddedPostgresServer.USER,
            "")) {
      blocker.setAutoCommit(false);
      long pid;
      try (Statement st = blocker.createStatement()) {
        st.execute("CREATE TABLE report (id int)");
        var rs = st.executeQuery("SELECT pg_backend_pid()");
        rs.next();
        pid = rs.getLong(1);
      }
      long started = System.nanoTime();
      try (Connection c = db.connect()) {
        assertThatThrownBy(() -> SlotCreation.ensure(c, db.slot(), Duration.ofSeconds(2)))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("SLOT_CREATION_BLOCKED")
            .hasMessageContaining("pid " + pid)
            .hasMessageContaining("database " + other)
            .hasMessageContaining("postgres.slot-wait");
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
      assertThat(
              db.scalarLong(
                  "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db.slot()
                      + "'"))
          .isZero();
      // init-db, a deployment step, does not hang or fail on it: it warns and leaves the slot to run.
      Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
      options.remove("lake.root");
      options.put("postgres.slot", db.slot());
      CliRun.Result init = CliRun.run(options, "init-db");
      assertThat(init.exitCode()).as(init.err()).isZero();
      assertThat(init.err()).contains("SLOT_CREATION_BLOCKED").contains("pid " + pid);
      blocker.rollback();
    }
    try (Connection c = db.connect()) {
      assertThat(SlotCreation.ensure(c, db.slot(), Duration.ofSeconds(30))).isTrue();
    }
  }
}
