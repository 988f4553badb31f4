package org.oml.lakewriter.it.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.JobMetrics;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 11 item 10 on real parts: the completeness check fetches what CDC did not deliver, and it
 * must do so in bounded pieces. A restore from a checkpoint behind the slot (the slot's confirmed
 * LSN has moved past 3,000 rows, so CDC never redelivers them; the same as after {@code
 * --accept-lost-slot} or a new {@code writer.id}) makes the cut refetch all of them. Before, one
 * {@code SELECT *} over the whole range pulled them, bodies included, into the heap in one turn;
 * now each turn fetches at most {@code 4 x batch.max-rows} rows (found by a keys-only query, paged),
 * never cuts past a seq it has not fetched, and nothing is lost or duplicated.
 */
class RefetchCapITCase extends LakeJobITBase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension static final MiniClusterExtension FLINK = cluster(REPORTER);

  private static final int ROWS = 3_000;
  private static final int MAX_ROWS = 50;
  /** The cut's rows per turn: BatchCutFunction.DEFAULT_MAX_BATCHES_PER_TURN batches. */
  private static final int CAP = 4 * MAX_ROWS;

  @Test
  void aRefetchOfManyMissingRowsIsPagedAndCappedPerTurnAndLosesNothing() throws Exception {
    options.put("batch.max-rows", String.valueOf(MAX_ROWS));
    Path checkpoints = tmp.resolve("cp");
    JobClient first = start("refetch-first", checkpoints, null);
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "a-0");
    }
    awaitFrontier(outboxHead());
    Path beforeRows = awaitCheckpointAfter(checkpoints, null);

    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; i < ROWS; i++) {
        String tenant = i % 3 == 0 ? "globex" : "acme";
        if (i % 4 == 0) {
          OutboxWriter.materialize(c, tenant, "m-" + i, 1, ("body-" + i).getBytes());
        } else {
          OutboxWriter.journal(c, tenant, "j-" + i);
        }
        if (i % 500 == 499) {
          c.commit();
        }
      }
      c.commit();
    }
    long head = outboxHead();
    awaitFrontier(head);
    // The slot's confirmed LSN moves only with completed checkpoints, a few checkpoints late.
    Path cp = beforeRows;
    for (int i = 0; i < 5; i++) {
      cp = awaitCheckpointAfter(checkpoints, cp);
    }
    LakeWriterJobs.cancel(first, db);

    JobClient restored = start("refetch-restored", tmp.resolve("cp2"), beforeRows);
    JobMetrics metrics = new JobMetrics(REPORTER, restored.getJobID());
    await(
        () -> metrics.counter("rowsRefetchedFromOutbox") >= ROWS,
        "the restored cut to refetch the " + ROWS + " rows CDC does not redeliver");
    assertThat(metrics.gauge("maxRowsRefetchedPerTurn"))
        .as("rows fetched in one turn")
        .isBetween(1L, (long) CAP);
    assertThat(metrics.counter("refetchCappedTurns")).isGreaterThanOrEqualTo(ROWS / CAP - 1);
    assertThat(metrics.counter("rowsRefetchedFromOutbox")).isEqualTo(ROWS);

    // New rows after the catch-up still land, and the lake is the outbox, row for row.
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "after");
    }
    long last = outboxHead();
    awaitFrontier(last);
    LakeReader reader = reader();
    Map<Long, Integer> times = new HashMap<>();
    for (String tenant : List.of("acme", "globex")) {
      for (Map<String, Object> row : reader.rows(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS))) {
        times.merge((Long) row.get("seq"), 1, Integer::sum);
      }
    }
    List<Long> expected = new ArrayList<>();
    for (long seq = 1; seq <= last; seq++) {
      expected.add(seq);
    }
    assertThat(times.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(times.values()).containsOnly(1);
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, last);
      assertThat(result.problems()).isEmpty();
    }
    assertThat(restored.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }
}
