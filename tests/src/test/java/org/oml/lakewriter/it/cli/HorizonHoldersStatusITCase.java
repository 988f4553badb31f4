package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * {@code lakewriter status} names what holds the horizon (issue 11 item 6): an ordinary outbox
 * writer by its pid, and a prepared transaction, which has no backend and is not in {@code
 * pg_stat_activity}, by its gid, prepare time, owner and database. An unrelated prepared
 * transaction is not named, because it does not hold the horizon. The ticks run here, as the job's
 * ticker would run them.
 */
class HorizonHoldersStatusITCase extends PipelineITCaseBase {

  @Test
  void statusNamesAPreparedOutboxWriterAndAnOpenOneButNotAnUnrelatedPreparedTransaction()
      throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    String writer = LakeWriterJobs.WRITER;
    try (Connection ticker = db.connect();
        Connection open = db.connect();
        Connection other = db.connect()) {
      try (Connection unrelated = db.connect()) {
        exec(unrelated, "CREATE TABLE side (n int)");
        unrelated.setAutoCommit(false);
        exec(unrelated, "INSERT INTO side VALUES (1)");
        exec(unrelated, "PREPARE TRANSACTION 'status-unrelated'");
      }
      try (Connection preparer = db.connect()) {
        preparer.setAutoCommit(false);
        OutboxWriter.journal(preparer, "acme", "prepared");
        exec(preparer, "PREPARE TRANSACTION 'status-outbox'");
      }
      open.setAutoCommit(false);
      long held = OutboxWriter.journal(open, "acme", "open");
      int pid = scalarInt(open, "SELECT pg_backend_pid()");
      OutboxWriter.journal(other, "acme", "later");
      assertThat(OutboxContract.tick(ticker, writer)).isLessThan(held);

      JsonNode status = status(options);
      JsonNode holders = status.get("holding_horizon");
      assertThat(holders).hasSize(2);
      JsonNode prepared = holders.get(0).get("holder").asText().equals("prepared")
          ? holders.get(0) : holders.get(1);
      JsonNode ordinary = prepared == holders.get(0) ? holders.get(1) : holders.get(0);
      assertThat(prepared.get("holder").asText()).isEqualTo("prepared");
      assertThat(prepared.get("gid").asText()).isEqualTo("status-outbox");
      assertThat(prepared.get("database").asText()).isEqualTo(db.name());
      assertThat(prepared.get("owner").asText()).isEqualTo("postgres");
      assertThat(prepared.get("since").asText()).isNotBlank();
      assertThat(prepared.get("pid").isNull()).isTrue();
      assertThat(ordinary.get("holder").asText()).isEqualTo("transaction");
      assertThat(ordinary.get("pid").asInt()).isEqualTo(pid);
      assertThat(status.toString()).doesNotContain("status-unrelated");

      exec(ticker, "COMMIT PREPARED 'status-outbox'");
      open.commit();
      OutboxContract.tick(ticker, writer);
      assertThat(status(options).get("holding_horizon")).isEmpty();
    } finally {
      try (Connection c = db.connect()) {
        exec(c, "ROLLBACK PREPARED 'status-unrelated'");
      }
    }
  }

  private static JsonNode status(Map<String, String> options) throws Exception {
    CliRun.Result run = CliRun.run(options, "status", "--json");
    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    return new ObjectMapper().readTree(run.out());
  }

  private static void exec(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static int scalarInt(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
