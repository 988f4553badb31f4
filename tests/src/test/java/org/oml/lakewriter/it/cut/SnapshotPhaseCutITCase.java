package org.oml.lakewriter.it.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.it.cut.BatchCutITCase.assertContiguous;
import static org.oml.lakewriter.it.cut.BatchCutITCase.seqs;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.cut.BatchCutFunction;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.horizon.HorizonTicker;
import org.oml.lakewriter.it.support.BatchCollector;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.JobMetrics;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.metrics.LakeWriterMetrics;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.oml.lakewriter.retry.RetryBudget;

/**
 * A first start over an outbox that already holds rows: the cut cuts them while the CDC snapshot
 * still reads (counter {@code snapshotPhaseHorizons}), never past a seq that an open transaction
 * holds, and every row still comes out exactly once, in contiguous batches (docs/cut-and-tick.md,
 * "Cutting during the snapshot"). Real PostgreSQL, a real MiniCluster with RocksDB state.
 */
class SnapshotPhaseCutITCase {
  private static final Duration TICK = Duration.ofMillis(200);
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final int MAX_ROWS = 100;
  /** {@code cut.snapshot-phase-rows} of these tests: a few probes into a snapshot of thousands. */
  private static final int SNAPSHOT_PHASE_ROWS = 500;
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension FLINK =
      Flink.miniCluster(REPORTER.addToConfiguration(new Configuration()));

  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;
  private TestDatabase db;
  private JobClient job;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void createDatabase() throws Exception {
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabase() throws Exception {
    if (job != null) {
      job.cancel().get();
      Thread.sleep(500);
    }
    db.close();
  }

  @Test
  void aFirstStartCutsTheOutboxWhileTheSnapshotReadsIt() throws Exception {
    List<Long> committed = load(6000, "a");
    db.execute("SELECT oml_lake_tick('w1')");

    BatchCollector collector = start(SNAPSHOT_PHASE_ROWS);
    List<Batch> batches = collector.awaitFrontier(committed.get(committed.size() - 1), WAIT);

    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    assertThat(metrics().counter(LakeWriterMetrics.SNAPSHOT_PHASE_HORIZONS))
        .as("horizons the cut took before the stream phase")
        .isPositive();
  }

  @Test
  void belowItsThresholdTheCutWaitsForTheStream() throws Exception {
    List<Long> committed = load(3000, "a");
    db.execute("SELECT oml_lake_tick('w1')");

    BatchCollector collector = start(10_000);
    List<Batch> batches = collector.awaitFrontier(committed.get(committed.size() - 1), WAIT);

    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    assertThat(metrics().counter(LakeWriterMetrics.SNAPSHOT_PHASE_HORIZONS)).isZero();
  }

  @Test
  void anOpenTransactionStopsTheCutBeforeTheStreamBelowItsSeq() throws Exception {
    List<Long> committed = new ArrayList<>(load(3000, "before"));
    db.execute("SELECT oml_lake_tick('w1')");
    // As `init-db` does: creating a logical slot waits for every open transaction.
    db.execute("SELECT pg_create_logical_replication_slot('" + db.slot() + "', 'pgoutput')");
    try (Connection open = db.connect()) {
      open.setAutoCommit(false);
      long held = OutboxWriter.journal(open, "t1", "held");
      committed.addAll(load(3000, "after"));
      long last = committed.get(committed.size() - 1);

      BatchCollector collector = start(SNAPSHOT_PHASE_ROWS);
      collector.awaitFrontier(held - 1, WAIT);
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < until) {
        assertThat(collector.frontier()).as("frontier while seq %d is open", held).isLessThan(held);
        Thread.sleep(50);
      }
      assertThat(metrics().counter(LakeWriterMetrics.SNAPSHOT_PHASE_HORIZONS)).isPositive();
      open.commit();
      committed.add(held);
      committed.sort(null);

      List<Batch> batches = collector.awaitFrontier(last, WAIT);
      assertContiguous(batches);
      assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    }
  }

  /** {@code n} journal rows of three tenants in one committed statement; their seqs, ascending. */
  private List<Long> load(int n, String prefix) throws Exception {
    try (Connection c = db.connect()) {
      return OutboxWriter.bulkJournal(c, prefix, n, "t0", "t1", "t2");
    }
  }

  private BatchCollector start(int snapshotPhaseRows) throws Exception {
    StreamExecutionEnvironment env = Flink.env(tmp, Duration.ofMillis(500), 3);
    BatchCollector collector = new BatchCollector(UUID.randomUUID().toString());
    OutboxPipeline.batches(
            env, db.sourceOptions("w1", TICK), MAX_ROWS, 1 << 20, null, RetryBudget.DEFAULT, null,
            HorizonTicker.DEFAULT_MIN_SPACING, BatchCutFunction.DEFAULT_ROW_CACHE_BYTES,
            snapshotPhaseRows)
        .addSink(collector)
        .name("collect")
        .setParallelism(1);
    job = env.executeAsync("snapshot-phase-cut-it");
    return collector;
  }

  private JobMetrics metrics() {
    return new JobMetrics(REPORTER, job.getJobID());
  }
}
