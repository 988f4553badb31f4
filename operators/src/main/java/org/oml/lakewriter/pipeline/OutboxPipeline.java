package org.oml.lakewriter.pipeline;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.cdc.OutboxSource;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.cut.BatchCutFunction;
import org.oml.lakewriter.cut.CutOperator;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.horizon.HorizonTicker;
import org.oml.lakewriter.identity.JobIdentity;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.retry.RowCheck;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The first half of the job: outbox CDC source, then the batch cut, both at parallelism one and
 * with stable uids (savepoints map state by uid; renaming one orphans its state).
 *
 * <pre>
 *   oml_outbox + oml_lake_horizon --pgoutput--> [outbox-cdc-source] --keyBy(writer)--> [batch-cut] --> Batch
 * </pre>
 */
public final class OutboxPipeline {
  public static final String SOURCE_UID = "outbox-cdc-source";
  public static final String CUT_UID = "batch-cut";

  private OutboxPipeline() {}

  public static DataStream<Batch> batches(
      StreamExecutionEnvironment env, OutboxSourceOptions source, int maxRows, long maxBytes) {
    return batches(env, source, maxRows, maxBytes, null, RetryBudget.DEFAULT);
  }

  /** With a check of every batch ({@code null}: none) and the retry budget of its failures. */
  public static DataStream<Batch> batches(
      StreamExecutionEnvironment env,
      OutboxSourceOptions source,
      int maxRows,
      long maxBytes,
      RowCheck check,
      RetryBudget budget) {
    return batches(env, source, maxRows, maxBytes, check, budget, null);
  }

  /**
   * @param identity recorded in the cut's state and compared on restore ({@code null}: not
   *     checked); see {@link org.oml.lakewriter.identity.IdentityGuard}
   */
  public static DataStream<Batch> batches(
      StreamExecutionEnvironment env,
      OutboxSourceOptions source,
      int maxRows,
      long maxBytes,
      RowCheck check,
      RetryBudget budget,
      JobIdentity identity) {
    return batches(
        env, source, maxRows, maxBytes, check, budget, identity,
        HorizonTicker.DEFAULT_MIN_SPACING);
  }

  /**
   * @param minTickSpacing the least time between two horizon ticks brought forward because rows
   *     wait above the horizon ({@code horizon.min-tick-spacing}; zero: tick on the period only)
   */
  public static DataStream<Batch> batches(
      StreamExecutionEnvironment env,
      OutboxSourceOptions source,
      int maxRows,
      long maxBytes,
      RowCheck check,
      RetryBudget budget,
      JobIdentity identity,
      Duration minTickSpacing) {
    return batches(
        env, source, maxRows, maxBytes, check, budget, identity, minTickSpacing,
        BatchCutFunction.DEFAULT_ROW_CACHE_BYTES, BatchCutFunction.DEFAULT_SNAPSHOT_PHASE_ROWS);
  }

  /**
   * @param rowCacheBytes bytes of buffered rows the cut also keeps in heap so that it does not
   *     read them back from state ({@code cut.row-cache}; zero: none)
   * @param snapshotPhaseRows rows the cut holds in the CDC snapshot phase before it cuts them on
   *     the ticker's horizon ({@code cut.snapshot-phase-rows}; zero: it waits for the stream)
   */
  public static DataStream<Batch> batches(
      StreamExecutionEnvironment env,
      OutboxSourceOptions source,
      int maxRows,
      long maxBytes,
      RowCheck check,
      RetryBudget budget,
      JobIdentity identity,
      Duration minTickSpacing,
      long rowCacheBytes,
      int snapshotPhaseRows) {
    DataStream<OutboxChange> changes =
        env.fromSource(OutboxSource.create(source), WatermarkStrategy.noWatermarks(), SOURCE_UID)
            .returns(StreamTypes.OUTBOX_CHANGE)
            .uid(SOURCE_UID)
            .name("outbox CDC source")
            .setParallelism(1);
    return changes
        .keyBy(new WriterKey(source.writerId()))
        .transform(
            "batch cut (stable prefix)",
            StreamTypes.BATCH,
            new CutOperator(
                new BatchCutFunction(maxRows, maxBytes, source, check, budget)
                    .withIdentity(identity)
                    .withMinTickSpacing(minTickSpacing)
                    .withRowCache(rowCacheBytes)
                    .withSnapshotPhaseRows(snapshotPhaseRows)))
        .uid(CUT_UID)
        .setParallelism(1);
  }

  /** One key, the writer's id: the cut is a single ordered stream. */
  static final class WriterKey implements KeySelector<OutboxChange, String> {
    private static final long serialVersionUID = 1L;
    private final String writerId;

    WriterKey(String writerId) {
      this.writerId = writerId;
    }

    @Override
    public String getKey(OutboxChange change) {
      return writerId;
    }
  }
}
