package org.oml.lakewriter.it.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.it.support.BatchCollector;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The first half of the pipeline (CDC source and batch cut) on a real PostgreSQL with logical WAL
 * and a real MiniCluster with RocksDB state.
 */
class BatchCutITCase extends PipelineITCaseBase {
  private static final Duration TICK = Duration.ofMillis(200);
  private static final Duration WAIT = Duration.ofSeconds(90);

  private BatchCollector start(int maxRows, int restarts, boolean failOnce) throws Exception {
    StreamExecutionEnvironment env = Flink.env(tmp, Duration.ofMillis(500), restarts);
    BatchCollector collector = new BatchCollector(UUID.randomUUID().toString());
    DataStream<Batch> batches =
        OutboxPipeline.batches(env, db.sourceOptions("w1", TICK), maxRows, 1 << 20);
    if (failOnce) {
      batches = batches.map(new FailOnceAfterCheckpoint()).returns(StreamTypes.BATCH);
    }
    batches.addSink(collector).name("collect").setParallelism(1);
    startJob(env, "batch-cut-it");
    return collector;
  }

  @Test
  void snapshotAndStreamedRowsComeOutInContiguousOrderedBatches() throws Exception {
    Set<Long> committed = new TreeSet<>();
    try (Connection c = db.connect()) {
      for (int i = 0; i < 40; i++) {
        committed.add(OutboxWriter.journal(c, "t" + (i % 3), "a-" + i));
      }
    }
    BatchCollector collector = start(7, 3, false);
    collector.awaitFrontier(Collections.max(committed), WAIT);
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int tx = 0; tx < 20; tx++) {
        for (int i = 0; i < 5; i++) {
          committed.add(OutboxWriter.journal(c, "t" + (i % 3), "b-" + tx + "-" + i));
        }
        c.commit();
      }
    }
    List<Batch> batches = collector.awaitFrontier(Collections.max(committed), WAIT);

    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    assertThat(batches).allSatisfy(b -> assertThat(b.events().size()).isLessThanOrEqualTo(7));
  }

  @Test
  void aLongOpenTransactionHoldsTheFrontierBelowItsSeqAndLandsLater() throws Exception {
    BatchCollector collector = start(50, 3, false);
    try (Connection open = db.connect();
        Connection other = db.connect()) {
      collector.awaitFrontier(OutboxWriter.journal(other, "t1", "warm-up"), WAIT);
      open.setAutoCommit(false);
      long held = OutboxWriter.journal(open, "t1", "held");
      long last = 0;
      long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
      int later = 0;
      while (System.nanoTime() < until) {
        last = OutboxWriter.journal(other, "t2", "later-" + later++);
        Thread.sleep(20);
        assertThat(collector.frontier()).as("frontier while seq %d is open", held).isLessThan(held);
      }
      assertThat(later).isGreaterThan(50);
      int seenWhileOpen = collector.batches().size();
      open.commit();

      List<Batch> batches = collector.awaitFrontier(last, WAIT);
      assertContiguous(batches);
      Batch landing = batchOf(batches, held);
      assertThat(batches.indexOf(landing)).isGreaterThanOrEqualTo(seenWhileOpen);
      assertThat(landing.frontier()).isLessThan(held);
      assertThat(seqs(batches)).contains(held, last).doesNotHaveDuplicates();
    }
  }

  @Test
  void withoutTheHorizonCandidatesTheSameWorkloadLosesTheLateRow() throws Exception {
    // The control for the test above: a naive tick that trusts the sequence alone. It must let
    // the frontier pass the open transaction's seq, and then the late row lands behind it.
    db.execute(
        "CREATE OR REPLACE FUNCTION oml_lake_tick(p_writer text) RETURNS bigint LANGUAGE sql AS $$"
            + " INSERT INTO oml_lake_horizon AS h (writer_id, stable_seq) VALUES (p_writer,"
            + " (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM oml_outbox_seq))"
            + " ON CONFLICT (writer_id) DO UPDATE SET stable_seq = EXCLUDED.stable_seq,"
            + " ticked_at = now() RETURNING stable_seq $$");
    BatchCollector collector = start(50, 3, false);
    try (Connection open = db.connect();
        Connection other = db.connect()) {
      collector.awaitFrontier(OutboxWriter.journal(other, "t1", "warm-up"), WAIT);
      open.setAutoCommit(false);
      long held = OutboxWriter.journal(open, "t1", "held");
      long last = OutboxWriter.journal(other, "t2", "later");
      collector.awaitFrontier(last, WAIT);
      open.commit();
      long after = OutboxWriter.journal(other, "t2", "after");
      List<Batch> batches = collector.awaitFrontier(after, WAIT);
      assertThat(seqs(batches)).doesNotContain(held).contains(last, after);
    }
  }

  @Test
  void rolledBackSeqsAreGapsTheFrontierStepsOver() throws Exception {
    BatchCollector collector = start(50, 3, false);
    List<Long> committed = new ArrayList<>();
    List<Long> rolledBack = new ArrayList<>();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; i < 10; i++) {
        rolledBack.add(OutboxWriter.journal(c, "t1", "gone-" + i));
        rolledBack.add(OutboxWriter.journal(c, "t1", "gone-too-" + i));
        c.rollback();
        committed.add(OutboxWriter.journal(c, "t1", "kept-" + i));
        c.commit();
      }
      for (int i = 0; i < 5; i++) {
        rolledBack.add(OutboxWriter.journal(c, "t1", "trailing-gap-" + i));
      }
      c.rollback();
    }
    List<Batch> batches = collector.awaitFrontier(Collections.max(rolledBack), WAIT);
    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    assertThat(seqs(batches)).doesNotContainAnyElementsOf(rolledBack);
  }

  @Test
  void concurrentWritersEachCommittedRowExactlyOnceNeverBehindTheFrontier() throws Exception {
    BatchCollector collector = start(200, 3, false);
    Set<Long> committed = new ConcurrentSkipListSet<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int writer = w;
      writers.add(
          pool.submit(
              () -> {
                Random random = new Random(writer);
                try (Connection c = db.connect()) {
                  c.setAutoCommit(false);
                  int rows = 0;
                  while (rows < 650) {
                    List<Long> tx = new ArrayList<>();
                    int size = 1 + random.nextInt(12);
                    for (int i = 0; i < size; i++) {
                      tx.add(OutboxWriter.journal(c, "t" + writer, "w" + writer + "-" + rows++));
                      if (random.nextInt(4) == 0) {
                        Thread.sleep(random.nextInt(15));
                      }
                    }
                    if (random.nextInt(10) == 0) {
                      c.rollback();
                    } else {
                      c.commit();
                      committed.addAll(tx);
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : writers) {
      f.get();
    }
    pool.shutdown();
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    List<Batch> batches = collector.awaitFrontier(max, WAIT);

    assertThat(committed).hasSizeGreaterThan(2000);
    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
  }

  @Test
  void aRestoreFromACheckpointChangesNoBoundaryAlreadyEmitted() throws Exception {
    FailOnceAfterCheckpoint.FAILED.set(false);
    FailOnceAfterCheckpoint.CHECKPOINTED_AT_FAILURE.set(0);
    BatchCollector collector = start(5, 4, true);
    Set<Long> committed = new TreeSet<>();
    try (Connection c = db.connect()) {
      for (int round = 0; round < 30 && !FailOnceAfterCheckpoint.FAILED.get(); round++) {
        for (int i = 0; i < 4; i++) {
          committed.add(OutboxWriter.journal(c, "t1", "r" + round + "-" + i));
          Thread.sleep(60);
        }
      }
      for (int i = 0; i < 20; i++) {
        committed.add(OutboxWriter.journal(c, "t1", "after-" + i));
      }
    }
    assertThat(FailOnceAfterCheckpoint.FAILED).isTrue();
    List<Batch> received = collector.awaitFrontier(Collections.max(committed), WAIT);

    // The restore resumes at a boundary emitted before the failure, at or after the frontier of
    // the last completed checkpoint: batches already checkpointed are never cut again. Batches
    // emitted after that checkpoint may be cut differently on replay (the CDC replay after a
    // restore can skip horizon updates it already delivered), which the sink tolerates by
    // dropping, per table, rows at or below the table's txn version.
    int restart = 1;
    while (received.get(restart).frontier() == received.get(restart - 1).batchEnd()) {
      restart++;
    }
    long resumedAt = received.get(restart).frontier();
    List<Batch> beforeFailure = received.subList(0, restart);
    assertThat(beforeFailure.stream().map(Batch::batchEnd))
        .as("received %s, checkpointed at failure %d", received,
            FailOnceAfterCheckpoint.CHECKPOINTED_AT_FAILURE.get())
        .contains(resumedAt);
    assertThat(resumedAt).isGreaterThanOrEqualTo(FailOnceAfterCheckpoint.CHECKPOINTED_AT_FAILURE.get());
    assertThat(FailOnceAfterCheckpoint.CHECKPOINTED_AT_FAILURE.get()).isPositive();

    List<Batch> chain = new ArrayList<>();
    for (Batch b : beforeFailure) {
      if (b.batchEnd() <= resumedAt) {
        chain.add(b);
      }
    }
    chain.addAll(received.subList(restart, received.size()));
    assertContiguous(chain);
    assertThat(seqs(chain)).containsExactlyElementsOf(committed);
  }

  @Test
  void rowsThatCdcNeverDeliversAreFetchedByTheCompletenessCheck() throws Exception {
    BatchCollector collector = start(50, 3, false);
    List<Long> committed = new ArrayList<>();
    try (Connection c = db.connect()) {
      committed.add(OutboxWriter.journal(c, "t1", "seen"));
      collector.awaitFrontier(committed.get(0), WAIT);
      // pgoutput decodes nothing for a table outside the publication: CDC loses these rows.
      db.execute("ALTER PUBLICATION " + TestDatabase.PUBLICATION + " DROP TABLE oml_outbox");
      for (int i = 0; i < 5; i++) {
        committed.add(OutboxWriter.journal(c, "t1", "unseen-" + i));
      }
      db.execute("ALTER PUBLICATION " + TestDatabase.PUBLICATION + " ADD TABLE oml_outbox");
      committed.add(OutboxWriter.journal(c, "t1", "seen-again"));
    }
    List<Batch> batches = collector.awaitFrontier(Collections.max(committed), WAIT);
    assertContiguous(batches);
    assertThat(seqs(batches)).containsExactlyElementsOf(committed);
    OutboxEvent refetched = batchOf(batches, committed.get(3)).events().stream()
        .filter(e -> e.seq() == committed.get(3)).findFirst().orElseThrow();
    assertThat(refetched.artifactId()).isEqualTo("unseen-2");
    assertThat(refetched.envelope()).contains("unseen-2");
    assertThat(refetched.isValid()).isTrue();
  }

  /** Contiguous, ordered, non-overlapping, every row inside its bounds, no seq twice. */
  static void assertContiguous(List<Batch> batches) {
    assertThat(batches).isNotEmpty();
    long frontier = 0;
    Set<Long> seen = new HashSet<>();
    for (Batch b : batches) {
      assertThat(b.frontier()).as("frontier of %s", b).isEqualTo(frontier);
      for (OutboxEvent e : b.events()) {
        assertThat(e.seq()).isGreaterThan(b.frontier()).isLessThanOrEqualTo(b.batchEnd());
        assertThat(seen.add(e.seq())).as("seq %d seen once", e.seq()).isTrue();
      }
      frontier = b.batchEnd();
    }
  }

  static List<Long> seqs(List<Batch> batches) {
    List<Long> seqs = new ArrayList<>();
    for (Batch b : batches) {
      for (OutboxEvent e : b.events()) {
        seqs.add(e.seq());
      }
    }
    return seqs;
  }

  static Batch batchOf(List<Batch> batches, long seq) {
    return batches.stream()
        .filter(b -> b.events().stream().anyMatch(e -> e.seq() == seq))
        .findFirst()
        .orElseThrow(() -> new AssertionError("seq " + seq + " is in no batch"));
  }

  /**
   * Fails the job once, at the third non-empty batch after a completed checkpoint that holds a
   * batch, so that two
   * batches reach the sink before the failure. Remembers the frontier that the last completed
   * checkpoint holds (the last batch end it saw at that checkpoint's barrier).
   */
  static final class FailOnceAfterCheckpoint extends RichMapFunction<Batch, Batch>
      implements CheckpointListener, CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicLong CHECKPOINTED_AT_FAILURE = new AtomicLong();
    private transient int sinceCheckpoint;
    private transient long lastEnd;
    private transient long checkpointed;
    private transient Map<Long, Long> atBarrier;

    @Override
    public Batch map(Batch batch) {
      if (sinceCheckpoint >= 0 && !batch.events().isEmpty() && ++sinceCheckpoint == 3
          && !FAILED.get()) {
        CHECKPOINTED_AT_FAILURE.set(checkpointed);
        FAILED.set(true);
        throw new IllegalStateException("injected failure after a checkpoint, at " + batch);
      }
      lastEnd = batch.batchEnd();
      return batch;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      atBarrier.put(context.getCheckpointId(), lastEnd);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
      // Transient fields are not initialized by deserialization: set them here.
      sinceCheckpoint = -1;
      atBarrier = new java.util.HashMap<>();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      Long end = atBarrier.remove(checkpointId);
      if (end != null) {
        checkpointed = Math.max(checkpointed, end);
      }
      // Count from a checkpoint that holds at least one batch, so the restore has one to keep.
      if (checkpointed > 0 && sinceCheckpoint < 3) {
        sinceCheckpoint = 0;
      }
    }
  }
}
