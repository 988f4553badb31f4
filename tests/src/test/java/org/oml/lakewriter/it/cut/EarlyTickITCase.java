package org.oml.lakewriter.it.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.it.support.BatchCollector;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.oml.lakewriter.retry.RetryBudget;

/**
 * The horizon tick off the lag's critical path (issue 12): with a tick period far longer than the
 * test, rows that wait above the horizon still get cut, because the cut asks the ticker for an
 * early tick ({@code horizon.min-tick-spacing}). With early ticks off, the same rows wait for the
 * period: the control.
 */
class EarlyTickITCase extends PipelineITCaseBase {
  private static final Duration PERIOD = Duration.ofSeconds(30);
  /** Far below the period; generous for a loaded machine. */
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void rowsAboveTheHorizonAreCutLongBeforeTheTickPeriod() throws Exception {
    // The 4-argument pipeline: the default spacing, as a job gets it.
    BatchCollector collector = start(null);
    for (int round = 0; round < 3; round++) {
      long last = writeRound(round);
      long started = System.nanoTime();
      collector.awaitFrontier(last, WAIT);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(PERIOD);
    }
  }

  @Test
  void withEarlyTicksOffTheRowsWaitForThePeriod() throws Exception {
    BatchCollector collector = start(Duration.ZERO);
    long last = writeRound(0);
    Thread.sleep(WAIT.toMillis());
    assertThat(collector.frontier())
        .as("no tick within the period: the frontier stays below the rows")
        .isLessThan(last);
  }

  private BatchCollector start(Duration spacing) throws Exception {
    StreamExecutionEnvironment env = Flink.env(tmp, Duration.ofMillis(500), 0);
    BatchCollector collector = new BatchCollector(UUID.randomUUID().toString());
    (spacing == null
            ? OutboxPipeline.batches(env, db.sourceOptions("w1", PERIOD), 50, 1 << 20)
            : OutboxPipeline.batches(
                env, db.sourceOptions("w1", PERIOD), 50, 1 << 20, null, RetryBudget.DEFAULT,
                null, spacing))
        .addSink(collector)
        .name("collect")
        .setParallelism(1);
    startJob(env, "early-tick-it");
    awaitFirstTick();
    // The CDC source reaches its stream phase after the first tick's WAL; give it a moment, so
    // that the rows below come through the stream, not the snapshot.
    Thread.sleep(2_000);
    return collector;
  }

  /** Three transactions of three rows; the last seq. */
  private long writeRound(int round) throws Exception {
    long last = 0;
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int tx = 0; tx < 3; tx++) {
        for (int i = 0; i < 3; i++) {
          last = OutboxWriter.journal(c, "t" + i, "r" + round + "-" + tx + "-" + i);
        }
        c.commit();
      }
    }
    return last;
  }

  /** The job's first tick (at the cut's start) has written the horizon row. */
  private void awaitFirstTick() throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = db.connect();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT 1 FROM oml_lake_horizon WHERE writer_id = 'w1'")) {
        if (rs.next()) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the job never ticked the horizon");
  }
}
