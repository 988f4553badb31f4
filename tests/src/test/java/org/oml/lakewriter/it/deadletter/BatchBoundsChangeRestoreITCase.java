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
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 13, "a restore after a change of {@code batch.max-rows}", on the production job (embedded
 * PostgreSQL, CDC, the cut, the Delta sink on a MiniCluster): a job cutting batches of at most 7
 * rows commits past a checkpoint, is cancelled, and a NEW job is restored from that older
 * checkpoint with {@code batch.max-rows} 50. The restored cut re-cuts the rows after the checkpoint
 * into batches whose ends differ from the committed ones, so a table's txn version falls inside a
 * new batch; the writer must drop, per table, the rows at or below it. Every seq ends up in bronze
 * exactly once and {@link LakeVerifier} finds nothing. (Lives here for {@link LakeJobITBase}.)
 */
class BatchBoundsChangeRestoreITCase extends LakeJobITBase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension static final MiniClusterExtension FLINK = cluster(REPORTER);

  @Test
  void aRestoreWithOtherBatchBoundsLandsEveryRowOnce() throws Exception {
    options.put("batch.max-rows", "7");
    Path checkpoints = tmp.resolve("cp");
    JobClient first = start("bounds-7", checkpoints, null);
    write(0, 60);
    awaitFrontier(outboxHead());
    Path older = awaitCheckpointAfter(checkpoints, null);

    write(60, 160); // committed in batches of 7 after the checkpoint the restore uses
    long head = outboxHead();
    awaitFrontier(head);
    awaitCheckpointAfter(checkpoints, older);
    LakeWriterJobs.cancel(first, db);

    options.put("batch.max-rows", "50");
    JobClient restored = start("bounds-50", tmp.resolve("cp2"), older);
    write(160, 200);
    long last = outboxHead();
    awaitFrontier(last);

    LakeReader reader = reader();
    Map<Long, Integer> times = new HashMap<>();
    for (String tenant : List.of("acme", "globex")) {
      for (Map<String, Object> row :
          reader.rows(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS))) {
        times.merge((Long) row.get("seq"), 1, Integer::sum);
      }
    }
    List<Long> expected = new ArrayList<>();
    for (long seq = 1; seq <= last; seq++) {
      expected.add(seq);
    }
    assertThat(times.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(times.values()).as("each seq once in bronze").containsOnly(1);
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, last);
      assertThat(result.problems()).isEmpty();
    }
    assertThat(restored.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /** Rows {@code [from, to)}: journal events and promotions of two tenants, 10 per transaction. */
  private void write(int from, int to) throws Exception {
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = from; i < to; i++) {
        String tenant = i % 3 == 0 ? "globex" : "acme";
        if (i % 4 == 0) {
          OutboxWriter.materialize(c, tenant, "m-" + i, 1, ("body-" + i).getBytes());
        } else {
          OutboxWriter.journal(c, tenant, "j-" + i);
        }
        if (i % 10 == 9) {
          c.commit();
        }
      }
      c.commit();
    }
  }
}
