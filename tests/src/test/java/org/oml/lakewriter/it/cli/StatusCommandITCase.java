package org.oml.lakewriter.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.it.support.CliRun;

/**
 * {@code lakewriter status} against a running lake writer: the frontier and the lag, and, while a
 * transaction holds the horizon back, that transaction's pid.
 */
class StatusCommandITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void statusShowsTheFrontierAndTheTransactionHoldingTheHorizon() throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    JobClient job =
        LakeWriterJobs.start(
            LakeWriterJobs.config(options), tmp.resolve("checkpoints"), null, "status-it");
    try (Connection open = db.connect();
        Connection other = db.connect()) {
      long last = 0;
      for (int i = 0; i < 20; i++) {
        last = OutboxWriter.journal(other, "acme", "a-" + i);
      }
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, last, WAIT);

      JsonNode caughtUp = status(options);
      assertThat(caughtUp.get("frontier").asLong()).isEqualTo(last);
      assertThat(caughtUp.get("outbox_head").asLong()).isEqualTo(last);
      assertThat(caughtUp.get("rows_behind_frontier").asLong()).isZero();
      assertThat(caughtUp.get("slot_active").asBoolean()).isTrue();
      assertThat(caughtUp.get("holding_horizon")).isEmpty();

      open.setAutoCommit(false);
      long held = OutboxWriter.journal(open, "acme", "held");
      int pid;
      try (var st = open.createStatement();
          var rs = st.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getInt(1);
      }
      long after = 0;
      for (int i = 0; i < 5; i++) {
        after = OutboxWriter.journal(other, "acme", "b-" + i);
      }
      Thread.sleep(1500); // several ticks: the held seq stays pending

      JsonNode held1 = status(options);
      assertThat(held1.get("horizon").asLong()).isLessThan(held);
      assertThat(held1.get("frontier").asLong()).isLessThan(held);
      assertThat(held1.get("rows_behind_frontier").asLong()).isGreaterThanOrEqualTo(5);
      List<Integer> pids = new ArrayList<>();
      held1.get("holding_horizon").forEach(h -> pids.add(h.get("pid").asInt()));
      assertThat(pids).contains(pid);

      open.commit();
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, after, WAIT);
      JsonNode released = status(options);
      assertThat(released.get("holding_horizon")).isEmpty();
      assertThat(released.get("rows_behind_frontier").asLong()).isZero();
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
  }

  private static JsonNode status(Map<String, String> options) throws Exception {
    CliRun.Result run = CliRun.run(options, "status", "--json");
    String printed = run.out();
    assertThat(run.exitCode()).as(printed + run.err()).isZero();
    return new ObjectMapper().readTree(printed);
  }
}
