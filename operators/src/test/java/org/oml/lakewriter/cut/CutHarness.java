package org.oml.lakewriter.cut;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingTaskMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.oml.lakewriter.deadletter.DeadLetters;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.serde.StreamTypes;
import org.oml.lakewriter.testing.Events;

/**
 * The batch cut on Flink's keyed operator harness, with the metrics it registers captured. The
 * function runs without an outbox connection: the test is the horizon and delivers every row.
 */
final class CutHarness implements AutoCloseable {
  static final String WRITER = "w1";

  /** The state backends a restore test runs on. */
  enum Backend {
    HEAP,
    ROCKSDB;

    StateBackend create() {
      return this == HEAP ? new HashMapStateBackend() : new EmbeddedRocksDBStateBackend();
    }
  }

  private final MockEnvironment environment;
  private final CapturingTaskMetricGroup metrics = new CapturingTaskMetricGroup();
  private final KeyedOneInputStreamOperatorTestHarness<String, OutboxChange, Batch> harness;
  private int taken;
  private long time;

  private CutHarness(int maxRows, long maxBytes, Backend backend, OperatorSubtaskState restore)
      throws Exception {
    // Every batch of a horizon in one call, as the cut's own tests expect; turns are tested apart.
    this(
        new BatchCutFunction(maxRows, maxBytes, null, null, RetryBudget.DEFAULT, Integer.MAX_VALUE),
        backend,
        restore);
  }

  private CutHarness(BatchCutFunction function, Backend backend, OperatorSubtaskState restore)
      throws Exception {
    environment = new MockEnvironmentBuilder().setMetricGroup(metrics).build();
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new CutOperator(function),
            (KeySelector<OutboxChange, String>) change -> WRITER,
            Types.STRING,
            environment);
    harness.setStateBackend(backend.create());
    harness.setup(
        StreamTypes.BATCH.createSerializer(harness.getExecutionConfig().getSerializerConfig()));
    if (restore != null) {
      harness.initializeState(restore);
    }
    harness.open();
  }

  static CutHarness open(int maxRows, long maxBytes) throws Exception {
    return new CutHarness(maxRows, maxBytes, Backend.HEAP, null);
  }

  static CutHarness open(int maxRows, long maxBytes, Backend backend) throws Exception {
    return new CutHarness(maxRows, maxBytes, backend, null);
  }

  /** A new operator with a fresh function, restored from {@code snapshot}: a job restart. */
  static CutHarness restore(
      int maxRows, long maxBytes, Backend backend, OperatorSubtaskState snapshot) throws Exception {
    return new CutHarness(maxRows, maxBytes, backend, snapshot);
  }

  /** A cut with its own function (a row check), restored from {@code snapshot} unless null. */
  static CutHarness open(BatchCutFunction function, Backend backend, OperatorSubtaskState snapshot)
      throws Exception {
    return new CutHarness(function, backend, snapshot);
  }

  /** Moves processing time to {@code millis}, firing the timers that are due. */
  void processingTime(long millis) throws Exception {
    harness.setProcessingTime(millis);
  }

  void rows(long... seqs) throws Exception {
    for (long seq : seqs) {
      row(Events.journal(seq).build());
    }
  }

  void row(OutboxEvent event) throws Exception {
    harness.processElement(event, ++time);
  }

  /** A horizon update streamed after the snapshot phase: it may cut. */
  void horizon(long stableSeq) throws Exception {
    harness.processElement(
        new HorizonUpdate(WRITER, stableSeq, stableSeq + 5, time, false), ++time);
  }

  /** The horizon row as the snapshot phase read it: it must never cut. */
  void snapshotHorizon(long stableSeq) throws Exception {
    harness.processElement(new HorizonUpdate(WRITER, stableSeq, stableSeq, time, true), ++time);
  }

  /** The batches emitted since the previous call. */
  List<Batch> newBatches() {
    List<Batch> all = harness.extractOutputValues();
    List<Batch> fresh = new ArrayList<>(all.subList(taken, all.size()));
    taken = all.size();
    return fresh;
  }

  /** Every row the cut has sent to the dead-letter side output so far. */
  List<OutboxEvent> deadLetters() {
    List<OutboxEvent> rows = new ArrayList<>();
    var records = harness.getSideOutput(DeadLetters.TAG);
    if (records != null) {
      records.forEach(r -> rows.add(r.getValue()));
    }
    return rows;
  }

  OperatorSubtaskState snapshot(long checkpointId) throws Exception {
    return harness.snapshot(checkpointId, time);
  }

  long counter(String name) {
    return ((Counter) metrics.operator.get(name)).getCount();
  }

  /** Any numeric gauge (breakerState is an Integer). */
  long numericGauge(String name) {
    Gauge<?> gauge = (Gauge<?>) metrics.operator.get(name);
    if (gauge == null) {
      return -1;
    }
    Object v = gauge.getValue();
    return v instanceof Number n ? n.longValue() : -1;
  }

  long gauge(String name) {
    return ((Gauge<?>) metrics.operator.get(name)).getValue() instanceof Long value ? value : -1;
  }

  @Override
  public void close() throws Exception {
    try {
      harness.close();
    } finally {
      environment.close();
    }
  }

  /** Hands the operator a metric group that keeps what it registers. */
  private static final class CapturingTaskMetricGroup extends InterceptingTaskMetricGroup {
    /**
     * The operator's metrics, flat: the {@code lakewriter} group and key-value groups (a finding's
     * name) are this group again, so a test reads a metric by its own name.
     */
    final InterceptingOperatorMetricGroup operator =
        new InterceptingOperatorMetricGroup() {
          @Override
          public org.apache.flink.metrics.MetricGroup addGroup(String name) {
            return this;
          }

          @Override
          public org.apache.flink.metrics.MetricGroup addGroup(String key, String value) {
            return this;
          }
        };

    @Override
    public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name) {
      return operator;
    }
  }
}
