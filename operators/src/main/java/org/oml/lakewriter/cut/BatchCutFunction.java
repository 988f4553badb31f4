package org.oml.lakewriter.cut;

import java.time.Instant;
import java.io.Serializable;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.oml.lakewriter.deadletter.DeadLetters;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.retry.BreakerStatusPublisher;
import org.oml.lakewriter.retry.DependencyBreaker;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.retry.RetryState;
import org.oml.lakewriter.retry.RetryStateSerializer;
import org.oml.lakewriter.retry.RowCheck;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.horizon.HorizonTicker;
import org.oml.lakewriter.identity.IdentityGuard;
import org.oml.lakewriter.identity.JobIdentity;
import org.oml.lakewriter.metrics.LagProbe;
import org.oml.lakewriter.metrics.LakeWriterMetrics;
import org.oml.lakewriter.serde.OutboxEventSerializer;
import org.oml.lakewriter.serde.VersionedTypeSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.oml.lakewriter.cdc.SlotCheck;
import org.oml.lakewriter.cdc.SlotInvalidatedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts the outbox into batches from its stable prefix only.
 *
 * <p>Rows are buffered in keyed state (RocksDB in production: a long-open transaction makes the
 * buffer grow) under their seq. When a streamed horizon update raises the horizon to {@code H},
 * batches over {@code (frontier, E]} with {@code E <= H} are emitted, each capped at a row count
 * and a byte size. A batch that is not capped ends at {@code H}, stepping over rolled-back seqs.
 * The cut depends only on the buffered rows and {@code H}, never on time or arrival.
 *
 * <p>How the buffer is read (issue 12; {@code docs/cut-and-tick.md}): a heap index of the
 * buffered seqs ({@link SeqIndex}, 8 bytes a row) is kept in step with the buffer, so a row is
 * put without a {@code contains} first and a turn knows exactly which seqs of {@code (frontier,
 * H]} it holds without probing the buffer for each seq of the range (rolled-back seqs included).
 * The turn then reads each of those rows with one get, on either backend. (One ordered pass of
 * the buffer's iterator was measured and dropped: on RocksDB every pass starts at the map's
 * first key and steps over the tombstones of every row removed since the last compaction, which
 * made a 1M-row catch-up's cut 2.7 times slower than the gets.) The progress is read from state
 * once after {@link #open} (a restore) and cached; every change is still written to state, which
 * stays the authority. The index is rebuilt from the buffer's keys at the same time, so the state
 * layout is unchanged. The rows this run put are also kept in heap up to a byte budget ({@link
 * RowCache}, {@code cut.row-cache}), and a turn takes a row from there before it reads state: on
 * RocksDB the read deserialises the whole row again.
 *
 * <p>Write-behind (issue 12, stop 43): run by its own operator ({@link CutOperator}, as the job
 * does), the cut writes a row it holds in that heap cache to state only when a checkpoint is
 * taken, just before the keyed state is snapshot ({@link #flushDeferred}). A row that arrives and
 * is emitted between two checkpoints, which is nearly every row in the steady state, is then never
 * put into or removed from the buffer: on RocksDB the put alone was the largest part of the cut's
 * thread. The progress is written at the checkpoint too, not once per row. Every checkpoint still
 * holds every buffered row and the progress that goes with them, and a row that arrived after it is
 * replayed by the source on a restore, as it always was. Rows that do not fit in the cache are
 * written when they arrive. On a plain {@code KeyedProcessOperator} (no way to set the key at a
 * checkpoint) every row is written when it arrives.
 *
 * <p>The operator also runs the horizon tick (see {@link HorizonTicker}): it is the one that
 * needs the horizon to rise, and it runs exactly once per job at parallelism one. A row that
 * arrives above the horizon asks the ticker for an early tick ({@code
 * horizon.min-tick-spacing}), so under load the tick is not a period on every row's lag.
 *
 * <p>With a {@link RowCheck}, each batch is checked before it is emitted. A row that fails
 * transiently holds the cut just below it: the batch ends at {@code seq - 1}, the row and every
 * row behind it stay buffered, and a processing-time timer retries after a back-off. The attempts
 * are kept in keyed state, so a restart continues the budget instead of resetting it. Once the
 * {@link RetryBudget} is spent the row is dead-lettered with its attempts and failure times, and
 * the cut moves on: a poison row delays the stream by at most the budget, never blocks it.
 *
 * <p>A failure of the check's dependency itself ({@code DEPENDENCY_UNAVAILABLE}: the registry
 * times out, is unreachable, errs) is not the row's fault and spends no budget. It goes to the
 * dependency's {@link DependencyBreaker}; the cut holds just below the first row that needs the
 * dependency and asks again after a back-off, or once the open breaker lets a probe through. An
 * outage thus holds the stream once, visibly (gauge {@code breakerState}, counter {@code dependencyHolds}, and {@code
 * lakewriter status} through {@code oml_lake_dependency}), and dead-letters nothing.
 *
 * <p>One call emits at most {@code maxBatchesPerTurn} batches; if the horizon is further, a
 * processing-time timer due at once continues the cut. Between turns the task handles its mailbox,
 * so a checkpoint barrier passes and the sink commits what it has written: a catch-up over a
 * million buffered rows commits as it goes, instead of writing every batch before its first
 * commit and holding their committables (and, for silver, their pending files) in memory.
 *
 * <p>Metrics (group {@code lakewriter}, see {@link LakeWriterMetrics} and {@code docs/metrics.md}):
 * the cut's bound, horizon and buffer, batch sizes, the retry backlog, completeness findings, and,
 * from a {@link LagProbe} on its own side connection, the frontier lag, the horizon's age and the
 * slot's retained WAL.
 *
 * <p>Invariant: no row is ever emitted at or below a frontier already emitted. A horizon row read
 * in the snapshot phase never cuts: snapshot rows come in no order. Before the first horizon
 * streams in, the cut may raise its horizon itself, from the ticker's stable seq and the outbox's
 * keys ({@link #cutBeforeStream}, {@code cut.snapshot-phase-rows}).
 */
public final class BatchCutFunction extends KeyedProcessFunction<String, OutboxChange, Batch>
    implements CheckpointedFunction {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BatchCutFunction.class);

  /** Batches one call may emit before it yields to the mailbox (checkpoints, timers). */
  public static final int DEFAULT_MAX_BATCHES_PER_TURN = 4;

  /** Bytes of buffered rows also kept in heap by default ({@code cut.row-cache}). */
  public static final long DEFAULT_ROW_CACHE_BYTES = 64L << 20;

  /**
   * Rows the cut holds before the stream phase before it cuts them on its own ({@code
   * cut.snapshot-phase-rows}): as many as the sink's default commit unit, so that these cuts make
   * no more, and no smaller, commits than a catch-up after the snapshot does.
   */
  public static final int DEFAULT_SNAPSHOT_PHASE_ROWS = 100_000;

  private final int maxRows;
  private final long maxBytes;
  private final int maxBatchesPerTurn;
  private final OutboxSourceOptions outbox;
  private final RowCheck check;
  private final RetryBudget budget;
  private JobIdentity identity;
  private java.time.Duration minTickSpacing = HorizonTicker.DEFAULT_MIN_SPACING;
  private long rowCacheBytes = DEFAULT_ROW_CACHE_BYTES;
  private int snapshotPhaseRows = DEFAULT_SNAPSHOT_PHASE_ROWS;

  private transient MapState<Long, OutboxEvent> buffer;
  private transient ValueState<CutProgress> progress;
  /** Tests only: wraps the cut's state to count its accesses; {@code null} in a job. */
  private StateView stateView;

  /**
   * The key whose progress and seq index are cached below; {@code null} until the first element
   * or timer after {@link #open}, so a restored job reads its state once. One key (the writer id)
   * in a job; another key drops the cache and reads its own state.
   */
  private transient String cachedKey;
  /** The progress as last written to state: state stays the authority, this saves the reads. */
  private transient CutProgress cached;
  /** The seqs in {@link #buffer}, kept in step with it: the cut reads exactly those rows. */
  private transient SeqIndex index;
  /** Rows of {@link #buffer} this run put, as far as they fit: read before state is. */
  private transient RowCache cache;
  /** Set by {@link CutOperator}: with it, cached rows are written to state at a checkpoint. */
  private transient KeyScope keyScope;
  /** With write-behind: {@link #cached} is newer than the progress in state. */
  private transient boolean progressDeferred;
  private transient Counter rowsReadFromState;
  private transient Counter rowsWrittenToState;
  private transient volatile long cacheBytes;
  private transient Counter rowsBehindFrontier;
  private transient Counter batchesCut;
  private transient volatile CutProgress lastProgress;

  private transient HorizonTicker ticker;
  /** A horizon came through the stream since {@link #open}: the snapshot phase is over. */
  private transient boolean streamedHorizon;
  /** Rows held since the cut last asked the ticker for a horizon before the stream. */
  private transient int heldSinceProbe;
  private transient Counter snapshotPhaseHorizons;
  private transient CompletenessCheck completeness;
  private transient Counter rowsRefetched;
  private transient Counter refetchCapped;
  private transient volatile long maxRefetchedPerTurn;
  private transient MapState<Long, RetryState> retries;
  private transient Counter retryAttempts;
  private transient volatile long retryBacklog;
  private transient DependencyBreaker breaker;
  private transient Histogram batchRows;
  private transient volatile long lastBatchRows;
  private transient Counter cdcLostRows;
  private transient LagProbe lagProbe;
  private transient boolean retryBacklogCounted;
  private transient BreakerStatusPublisher breakerStatus;
  private transient Counter dependencyHolds;
  private transient int dependencyFailuresInRow;
  private transient long nextDependencyProbe;

  /**
   * @param outbox where the horizon tick runs and the completeness check reads; {@code null} in
   *     unit tests, where the test drives the horizon and delivers every row itself.
   */
  public BatchCutFunction(int maxRows, long maxBytes, OutboxSourceOptions outbox) {
    this(maxRows, maxBytes, outbox, null, RetryBudget.DEFAULT);
  }

  /**
   * @param check run on every batch before it is emitted; {@code null} for none
   * @param budget how long a row that fails {@code check} transiently is retried
   */
  public BatchCutFunction(
      int maxRows, long maxBytes, OutboxSourceOptions outbox, RowCheck check, RetryBudget budget) {
    this(maxRows, maxBytes, outbox, check, budget, DEFAULT_MAX_BATCHES_PER_TURN);
  }

  /** @param maxBatchesPerTurn batches one call may emit before it yields to the mailbox */
  public BatchCutFunction(
      int maxRows,
      long maxBytes,
      OutboxSourceOptions outbox,
      RowCheck check,
      RetryBudget budget,
      int maxBatchesPerTurn) {
    if (maxRows <= 0 || maxBytes <= 0 || maxBatchesPerTurn <= 0) {
      throw new IllegalArgumentException(
          "batch caps must be positive: rows=" + maxRows + ", bytes=" + maxBytes
              + ", batches per turn=" + maxBatchesPerTurn);
    }
    this.maxBatchesPerTurn = maxBatchesPerTurn;
    this.maxRows = maxRows;
    this.maxBytes = maxBytes;
    this.outbox = outbox;
    this.check = check;
    this.budget = Objects.requireNonNull(budget, "budget");
  }

  /**
   * The database, slot, writer id and lake root this job belongs to, recorded in the cut's
   * operator state: a restore of state recorded under another identity fails without restarts
   * ({@link IdentityGuard}). {@code null} (unit tests): nothing is checked or recorded.
   */
  public BatchCutFunction withIdentity(JobIdentity identity) {
    this.identity = identity;
    return this;
  }

  /**
   * Tests only: every state handle the cut opens goes through {@code view} (to count point
   * lookups, for example).
   */
  BatchCutFunction withStateView(StateView view) {
    this.stateView = view;
    return this;
  }

  /** Wraps the cut's keyed state handles; a test seam. */
  interface StateView extends Serializable {
    MapState<Long, OutboxEvent> buffer(MapState<Long, OutboxEvent> buffer);

    ValueState<CutProgress> progress(ValueState<CutProgress> progress);
  }

  /**
   * The least time between two horizon ticks brought forward because rows wait above the horizon
   * ({@code horizon.min-tick-spacing}; {@link java.time.Duration#ZERO}: tick on the period only).
   */
  public BatchCutFunction withMinTickSpacing(java.time.Duration spacing) {
    this.minTickSpacing = Objects.requireNonNull(spacing, "minTickSpacing");
    return this;
  }

  /**
   * Bytes of the rows this run buffers that are also kept in heap, so that the turn that emits
   * them does not read them back from state ({@code cut.row-cache}; 0: every row is read from
   * state).
   */
  public BatchCutFunction withRowCache(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("the row cache must be >= 0 bytes, not " + bytes);
    }
    this.rowCacheBytes = bytes;
    return this;
  }

  /**
   * Rows the cut holds before the first horizon streams in (the CDC snapshot phase) before it cuts
   * them on the ticker's horizon ({@code cut.snapshot-phase-rows}; 0: it waits for the stream).
   */
  public BatchCutFunction withSnapshotPhaseRows(int rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("cut.snapshot-phase-rows must be >= 0, not " + rows);
    }
    this.snapshotPhaseRows = rows;
    return this;
  }

  /** Runs state work under a given key: how {@link CutOperator} lets the cut write at a checkpoint. */
  interface KeyScope {
    void run(String key, org.apache.flink.util.function.ThrowingRunnable<Exception> work)
        throws Exception;
  }

  /** Turns write-behind on; {@link CutOperator#open} calls it. */
  void writeBehind(KeyScope scope) {
    this.keyScope = Objects.requireNonNull(scope, "scope");
  }

  /**
   * Writes the rows held only in heap, and the progress, to state under the key they belong to.
   * {@link CutOperator} calls it before every checkpoint's keyed state is snapshot, and the cut
   * itself before it moves to another key.
   */
  void flushDeferred() throws Exception {
    if (cache == null || (cache.deferred() == 0 && !progressDeferred)) {
      return;
    }
    List<OutboxEvent> rows = cache.takeDeferred();
    CutProgress p = cached;
    keyScope.run(
        cachedKey,
        () -> {
          for (OutboxEvent row : rows) {
            buffer.put(row.seq(), row);
          }
          progress.update(p);
        });
    progressDeferred = false;
    rowsWrittenToState.inc(rows.size());
  }

  /** Puts {@code row} into the buffer: with write-behind into heap alone if it fits there. */
  private void hold(OutboxEvent row) throws Exception {
    boolean writeBehind = keyScope != null;
    if (cache.offer(row, !writeBehind) && writeBehind) {
      return;
    }
    buffer.put(row.seq(), row);
    rowsWrittenToState.inc();
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    IdentityGuard.check(context.getOperatorStateStore(), identity);
    failIfSlotInvalidated();
  }

  /**
   * An invalidated slot makes the CDC source fail at every restart, for ever: the job would loop
   * in its restart strategy while the rows it can no longer stream wait. The check runs at every
   * (re)start of the cut, which is every restart of the job, and ends the job for good with {@code
   * SLOT_INVALIDATED}; {@code lakewriter run} exits 2 with that message, and so does every restart
   * with the same command line until the operator acknowledges it (docs/failure-matrix.md). A
   * check that cannot run is not a verdict: the source reports an unreachable database itself.
   */
  private void failIfSlotInvalidated() {
    if (outbox == null) {
      return;
    }
    Optional<SlotInvalidatedException> invalid;
    try (java.sql.Connection c = outbox.connect()) {
      invalid = SlotCheck.invalidation(c, outbox.slotName());
    } catch (java.sql.SQLException | RuntimeException e) {
      LOG.warn("replication slot {}: validity not checked ({})", outbox.slotName(), e.toString());
      return;
    }
    if (invalid.isPresent()) {
      throw new SuppressRestartsException(invalid.get());
    }
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) {
    // The identity's list state is written once, in initializeState; nothing changes per checkpoint.
  }

  @Override
  public void open(Configuration parameters) {
    buffer =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "outbox-buffer",
                    LongSerializer.INSTANCE,
                    new VersionedTypeSerializer<>(OutboxEventSerializer.class)));
    progress =
        getRuntimeContext()
            .getState(
                new ValueStateDescriptor<>(
                    "cut-progress", new VersionedTypeSerializer<>(CutProgressSerializer.class)));
    if (stateView != null) {
      buffer = stateView.buffer(buffer);
      progress = stateView.progress(progress);
    }
    cachedKey = null;
    cached = null;
    progressDeferred = false;
    index = null;
    cache = null;
    lastProgress = CutProgress.INITIAL;
    var metrics = LakeWriterMetrics.group(getRuntimeContext().getMetricGroup());
    rowsBehindFrontier = metrics.counter(LakeWriterMetrics.ROWS_BEHIND_FRONTIER);
    batchesCut = metrics.counter(LakeWriterMetrics.BATCHES_CUT);
    metrics.gauge(LakeWriterMetrics.CUT_END, () -> lastProgress.frontier());
    metrics.gauge(LakeWriterMetrics.HORIZON, () -> lastProgress.horizon());
    metrics.gauge(LakeWriterMetrics.BUFFERED_ROWS, () -> lastProgress.bufferedRows());
    batchRows = LakeWriterMetrics.histogram(metrics, LakeWriterMetrics.BATCH_ROWS);
    metrics.gauge(LakeWriterMetrics.LAST_BATCH_ROWS, () -> lastBatchRows);
    rowsRefetched = metrics.counter(LakeWriterMetrics.ROWS_REFETCHED);
    rowsReadFromState = metrics.counter(LakeWriterMetrics.ROWS_READ_FROM_STATE);
    rowsWrittenToState = metrics.counter(LakeWriterMetrics.ROWS_WRITTEN_TO_STATE);
    snapshotPhaseHorizons = metrics.counter(LakeWriterMetrics.SNAPSHOT_PHASE_HORIZONS);
    streamedHorizon = false;
    heldSinceProbe = 0;
    metrics.gauge(LakeWriterMetrics.ROW_CACHE_BYTES, () -> cacheBytes);
    // One finding per turn whose range CDC delivered short: registered up front, so a dashboard
    // shows a zero rather than no series.
    cdcLostRows =
        metrics
            .addGroup(LakeWriterMetrics.FINDING, LakeWriterMetrics.CDC_LOST_ROWS)
            .counter(LakeWriterMetrics.FINDINGS);
    // The refetch is paged and capped per turn (issue 11 item 10): these show it stays bounded.
    refetchCapped = metrics.counter(LakeWriterMetrics.REFETCH_CAPPED);
    metrics.gauge(LakeWriterMetrics.MAX_ROWS_REFETCHED_PER_TURN, () -> maxRefetchedPerTurn);
    retries =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "cut-retries",
                    LongSerializer.INSTANCE,
                    new VersionedTypeSerializer<>(RetryStateSerializer.class)));
    retryAttempts = metrics.counter(LakeWriterMetrics.RETRY_ATTEMPTS);
    metrics.gauge(LakeWriterMetrics.RETRY_BACKLOG, () -> retryBacklog);
    if (check != null) {
      if (outbox != null) {
        breakerStatus = new BreakerStatusPublisher(outbox);
      }
      breaker =
          new DependencyBreaker(check.dependency(), check.breakerPolicy(), this::onBreakerTransition);
      // 0 closed, 1 open, 2 half-open: a dashboard shows an outage as one line going to 1. One
      // check per cut, so one breaker: its dependency's name is in the logs and in status.
      metrics.gauge(LakeWriterMetrics.BREAKER_STATE, breaker::stateCode);
      if (breakerStatus != null) {
        // A new breaker starts closed: replace whatever a previous run left (it may have died
        // with the breaker open), so status never shows a stale OPEN.
        breakerStatus.publish(
            new DependencyBreaker.Transition(
                check.dependency(), "CLOSED", System.currentTimeMillis(), null));
      }
      dependencyHolds = metrics.counter(LakeWriterMetrics.DEPENDENCY_HOLDS);
    }
    if (outbox != null) {
      ticker = HorizonTicker.start(outbox, minTickSpacing);
      metrics.gauge(LakeWriterMetrics.TICK_FAILURES, ticker::consecutiveFailures);
      completeness = new CompletenessCheck(outbox);
      // The lag as PostgreSQL sees it, on its own connection and thread: a slow answer never
      // holds the cut, and the gauges read the last one.
      LagProbe probe = LagProbe.start(outbox);
      lagProbe = probe;
      metrics.gauge(LakeWriterMetrics.FRONTIER_LAG_ROWS, probe::frontierLagRows);
      metrics.gauge(LakeWriterMetrics.FRONTIER_LAG_SECONDS, probe::frontierLagSeconds);
      metrics.gauge(LakeWriterMetrics.HORIZON_AGE_SECONDS, probe::horizonAgeSeconds);
      metrics.gauge(LakeWriterMetrics.SLOT_RETAINED_BYTES, probe::slotRetainedBytes);
      metrics.gauge(LakeWriterMetrics.PROBE_FAILURES, probe::consecutiveFailures);
    }
  }

  @Override
  public void close() throws Exception {
    if (ticker != null) {
      ticker.close();
    }
    if (lagProbe != null) {
      lagProbe.close();
    }
    if (completeness != null) {
      completeness.close();
    }
    if (check != null) {
      check.close();
    }
    if (breakerStatus != null) {
      breakerStatus.close();
    }
  }

  /** A held row's back-off is over, or a turn ended: cut on up to the horizon already known. */
  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<Batch> out) throws Exception {
    CutProgress p = current(ctx.getCurrentKey());
    if (p.frontier() < p.horizon()) {
      save(cut(p, ctx, out));
    }
  }

  @Override
  public void processElement(OutboxChange change, Context ctx, Collector<Batch> out)
      throws Exception {
    CutProgress p = current(ctx.getCurrentKey());
    if (change instanceof OutboxEvent) {
      long held = p.bufferedRows();
      p = buffer(p, (OutboxEvent) change);
      if (!streamedHorizon && p.bufferedRows() > held && ++heldSinceProbe >= maxRows) {
        heldSinceProbe = 0;
        if (snapshotPhaseRows > 0 && p.bufferedRows() >= snapshotPhaseRows) {
          p = cutBeforeStream(p, ctx, out);
        }
      }
    } else {
      HorizonUpdate h = (HorizonUpdate) change;
      streamedHorizon |= !h.fromSnapshot();
      if (!h.fromSnapshot() && h.stableSeq() > p.horizon()) {
        p = cut(new CutProgress(p.frontier(), h.stableSeq(), p.bufferedRows()), ctx, out);
      }
    }
    save(p);
  }

  /**
   * Before the first horizon arrives through the stream (the CDC snapshot phase, where a horizon
   * row never cuts), once the cut holds {@code snapshotPhaseRows} rows, every {@code maxRows} rows:
   * raises the horizon to the highest {@code end} at or below the ticker's stable seq up to which
   * the cut holds every row the outbox has, and cuts. The ticker's stable seq says that every row
   * at or below it that will ever commit is visible now; the outbox's keys, read after it, say
   * which rows those are; a row the cut lacks is one the snapshot has not delivered yet, so {@code
   * end} stops below it and nothing is fetched.
   * So a first start over a large outbox writes while the snapshot reads, instead of buffering
   * the whole outbox in state first (docs/cut-and-tick.md, "Cutting during the snapshot").
   */
  private CutProgress cutBeforeStream(CutProgress p, Context ctx, Collector<Batch> out)
      throws Exception {
    if (ticker == null || completeness == null) {
      return p;
    }
    long stable = ticker.stable();
    long from = Math.max(p.frontier(), p.horizon());
    if (stable <= from) {
      return p;
    }
    long end =
        completeness.heldPrefix(
            from, stable, index::contains,
            (int) Math.min(Integer.MAX_VALUE, (long) maxBatchesPerTurn * maxRows));
    if (end <= from) {
      return p;
    }
    snapshotPhaseHorizons.inc();
    return cut(new CutProgress(p.frontier(), end, p.bufferedRows()), ctx, out);
  }

  /**
   * Writes {@code p} to state if it changed (a redelivered row changes nothing); with write-behind
   * only at the next checkpoint, with the deferred rows.
   */
  private void save(CutProgress p) throws Exception {
    if (p != cached) {
      if (keyScope == null) {
        progress.update(p);
      } else {
        progressDeferred = true;
      }
      cached = p;
    }
    lastProgress = p;
    cacheBytes = cache.bytes();
  }

  /**
   * The key's progress, read from state on the first call after {@link #open} (a restore) and
   * from the cache after that; the seq index is rebuilt from the buffer's keys at the same time.
   */
  private CutProgress current(String key) throws Exception {
    if (!retryBacklogCounted) {
      // After a restore the held rows are in state before any check runs: show them at once.
      retryBacklogCounted = true;
      long held = 0;
      for (Long ignored : retries.keys()) {
        held++;
      }
      retryBacklog = held;
    }
    if (!key.equals(cachedKey)) {
      flushDeferred(); // the rows of the previous key, if any, under that key
      CutProgress p = progress.value();
      cached = p == null ? CutProgress.INITIAL : p;
      index = new SeqIndex();
      cache = new RowCache(rowCacheBytes);
      for (Long seq : buffer.keys()) {
        index.add(seq);
      }
      if (index.size() != cached.bufferedRows()) {
        LOG.warn(
            "the cut's buffer holds {} rows, its progress counted {}: counting the buffer",
            index.size(), cached.bufferedRows());
        cached = new CutProgress(cached.frontier(), cached.horizon(), index.size());
        progress.update(cached);
      }
      cachedKey = key;
      lastProgress = cached;
    }
    return cached;
  }

  private CutProgress buffer(CutProgress p, OutboxEvent event) throws Exception {
    if (event.seq() <= p.frontier()) {
      // A redelivery of a row already cut (CDC replays a whole transaction after a restore), or
      // a breach of the horizon protocol. Either way the row is already in an emitted batch:
      // the completeness check fetched it by seq before the frontier passed it.
      rowsBehindFrontier.inc();
      if (rowsBehindFrontier.getCount() % 1000 == 1) {
        // A restore in the snapshot phase re-reads whole chunks: one line per thousand rows.
        LOG.info(
            "outbox row seq={} arrived at or below the frontier {}: already cut ({} such rows"
                + " since the start)",
            event.seq(),
            p.frontier(),
            rowsBehindFrontier.getCount());
      }
      return p;
    }
    if (ticker != null && event.seq() > p.horizon()) {
      // The row waits for the horizon to pass it: tick soon rather than a period later.
      ticker.requestTick();
    }
    if (!index.add(event.seq())) {
      // Already held: a redelivery of the same committed row. Nothing to write.
      return p;
    }
    hold(event);
    return new CutProgress(p.frontier(), p.horizon(), p.bufferedRows() + 1);
  }

  private CutProgress cut(CutProgress p, Context ctx, Collector<Batch> out) throws Exception {
    // This turn cuts at most maxBatchesPerTurn full batches: (frontier, until], where until is
    // the horizon, or the last row that fits when more rows wait.
    int limit = (int) Math.min(Integer.MAX_VALUE, (long) maxBatchesPerTurn * maxRows);
    // The seqs come from the heap index: the buffer is read only for rows it holds, once each.
    long[] seqs = index.range(p.frontier(), p.horizon(), limit);
    long until = seqs.length >= limit ? seqs[seqs.length - 1] : p.horizon();
    long buffered = p.bufferedRows();
    if (completeness != null) {
      CompletenessCheck.Refetch refetch =
          completeness.missing(
              p.frontier(), until, new SeqList(seqs), limit,
              maxBytes > Long.MAX_VALUE / maxBatchesPerTurn
                  ? Long.MAX_VALUE
                  : maxBytes * maxBatchesPerTurn);
      for (OutboxEvent row : refetch.rows()) {
        if (index.add(row.seq())) {
          hold(row);
          buffered++;
        }
      }
      if (!refetch.rows().isEmpty()) {
        seqs = index.range(p.frontier(), until, Integer.MAX_VALUE);
      }
      rowsRefetched.inc(refetch.rows().size());
      if (!refetch.rows().isEmpty() || refetch.checkedUpTo() < until) {
        cdcLostRows.inc();
      }
      maxRefetchedPerTurn = Math.max(maxRefetchedPerTurn, refetch.rows().size());
      if (refetch.checkedUpTo() < until) {
        // Missing rows above checkedUpTo were not fetched this turn: never cut past them. The
        // rows held above it stay buffered; the timer below continues the cut next turn.
        refetchCapped.inc();
        until = refetch.checkedUpTo();
        seqs = index.range(p.frontier(), until, Integer.MAX_VALUE);
      }
    }
    int next = 0;
    long frontier = p.frontier();
    boolean held = false;
    int emitted = 0;
    do {
      List<OutboxEvent> rows = new ArrayList<>();
      long bytes = 0;
      while (next < seqs.length && rows.size() < maxRows && bytes < maxBytes) {
        long seq = seqs[next++];
        OutboxEvent row = cache.get(seq);
        if (row == null) {
          row = buffer.get(seq);
          rowsReadFromState.inc();
        }
        if (row == null) {
          throw new IllegalStateException(
              "the cut's seq index holds seq " + seq + " but its buffer does not:"
                  + " the index is out of step with state 'outbox-buffer'; restart the job (the"
                  + " index is rebuilt from the buffer on restore)");
        }
        rows.add(row);
        bytes += row.estimatedBytes();
      }
      long end = next < seqs.length ? rows.get(rows.size() - 1).seq() : until;
      if (check != null) {
        int checked = rows.size();
        rows = checked(rows, ctx.timerService().currentProcessingTime(), ctx);
        if (rows.size() < checked) {
          held = true;
          end = seqs[next - checked + rows.size()] - 1;
          if (end == frontier) {
            break;
          }
        }
      }
      out.collect(new Batch(frontier, end, rows));
      for (OutboxEvent row : rows) {
        if (!row.isValid()) {
          ctx.output(DeadLetters.TAG, row);
        }
      }
      batchesCut.inc();
      batchRows.update(rows.size());
      lastBatchRows = rows.size();
      emitted++;
      buffered -= rows.size();
      frontier = end;
    } while (!held && frontier < until && emitted < maxBatchesPerTurn);
    // Every held row at or below the new frontier was emitted; the rows above stay.
    for (int i = 0; i < seqs.length && seqs[i] <= frontier; i++) {
      if (cache.remove(seqs[i])) {
        buffer.remove(seqs[i]);
      }
    }
    index.removeUpTo(frontier);
    if (!held && frontier < p.horizon()) {
      ctx.timerService().registerProcessingTimeTimer(ctx.timerService().currentProcessingTime());
    }
    return new CutProgress(frontier, p.horizon(), buffered);
  }

  /**
   * The longest prefix of {@code rows} that may be emitted now, with the rows that used up their
   * retry budget or failed permanently carrying their error. The prefix stops at the first row
   * that waits for a retry: one whose back-off is not over (the dependency is not asked again
   * before then) or that failed again within its budget (a timer then retries it).
   */
  private List<OutboxEvent> checked(List<OutboxEvent> rows, long now, Context ctx)
      throws Exception {
    Map<Long, RetryState> waiting = new HashMap<>();
    if (!retries.isEmpty()) {
      for (Map.Entry<Long, RetryState> e : retries.entries()) {
        waiting.put(e.getKey(), e.getValue());
      }
    }
    int due = 0;
    List<OutboxEvent> valid = new ArrayList<>();
    for (; due < rows.size(); due++) {
      RetryState w = waiting.get(rows.get(due).seq());
      if (w != null && w.nextAttemptMillis() > now) {
        break;
      }
      if (rows.get(due).isValid()) {
        valid.add(rows.get(due));
      }
    }
    Map<Long, RowError> failures = Map.of();
    // The dependency's own failure (or its open breaker): charged to the dependency, never to a
    // row. The cut holds before the first row that needs it; no budget is spent.
    RowError outage = null;
    if (valid.stream().anyMatch(check::needs)) {
      if (!breaker.permits(now)) {
        outage = breaker.lastError() != null
            ? breaker.lastError()
            : new RowError(ErrorClass.DEPENDENCY_UNAVAILABLE, check.dependency() + " breaker open");
      } else {
        long started = System.nanoTime();
        failures = check.check(valid);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        outage = firstDependencyFailure(failures);
        if (outage != null) {
          breaker.failed(now, tookMillis, outage);
        } else {
          breaker.succeeded(now, tookMillis);
          dependencyFailuresInRow = 0;
        }
      }
    }
    List<OutboxEvent> emit = new ArrayList<>(due);
    for (OutboxEvent row : rows.subList(0, due)) {
      RowError failure = failures.get(row.seq());
      if (outage != null
          && row.isValid()
          && check.needs(row)
          && (failure == null || failure.errorClass() == ErrorClass.DEPENDENCY_UNAVAILABLE)) {
        holdForDependency(row, outage, now, ctx);
        break;
      }
      RetryState before = waiting.remove(row.seq());
      if (failure == null || failure.errorClass().isPermanent()) {
        if (before != null) {
          retries.remove(row.seq());
          LOG.info(
              "outbox row seq={} passed after {} failed attempts", row.seq(), before.attempts());
        }
        emit.add(failure == null ? row : row.withError(failure));
        continue;
      }
      retryAttempts.inc();
      RetryState after = RetryState.failed(before, failure, now, budget);
      if (budget.isExhausted(after)) {
        retries.remove(row.seq());
        LOG.warn(
            "outbox row seq={} dead-lettered as {} after {} attempts: {}",
            row.seq(), after.errorClass(), after.attempts(), after.message());
        emit.add(row.withError(after.toDeadLetter()));
        continue;
      }
      retries.put(row.seq(), after);
      waiting.put(row.seq(), after);
      ctx.timerService().registerProcessingTimeTimer(after.nextAttemptMillis());
      LOG.info(
          "outbox row seq={} failed attempt {} ({}: {}); the cut holds at seq {} until {}",
          row.seq(), after.attempts(), after.errorClass(), after.message(), row.seq() - 1,
          Instant.ofEpochMilli(after.nextAttemptMillis()));
      break;
    }
    retryBacklog = waiting.size();
    return emit;
  }

  private static RowError firstDependencyFailure(Map<Long, RowError> failures) {
    for (RowError e : failures.values()) {
      if (e.errorClass() == ErrorClass.DEPENDENCY_UNAVAILABLE) {
        return e;
      }
    }
    return null;
  }

  /**
   * Holds the cut just below {@code row} because its dependency failed or its breaker is open,
   * and asks again when the breaker lets a probe through (or, while it is still closed, after the
   * budget's back-off). The row's retry state is left as it was.
   */
  private void holdForDependency(OutboxEvent row, RowError outage, long now, Context ctx) {
    dependencyHolds.inc();
    dependencyFailuresInRow++;
    long at = breaker.retryAtMillis(now, budget.backoffMillis(dependencyFailuresInRow));
    if (at != nextDependencyProbe || nextDependencyProbe <= now) {
      nextDependencyProbe = at;
      ctx.timerService().registerProcessingTimeTimer(at);
    }
    if (dependencyFailuresInRow == 1 || dependencyFailuresInRow % 20 == 0) {
      LOG.warn(
          "dependency {} unavailable (breaker {}): the cut holds at seq {} for every tenant,"
              + " no row's retry budget is spent; next attempt at {}: {}",
          check.dependency(), breaker.stateName(), row.seq() - 1, Instant.ofEpochMilli(at),
          outage.message());
    }
  }

  /** Logged loudly and published for {@code lakewriter status}. */
  private void onBreakerTransition(DependencyBreaker.Transition t) {
    if ("CLOSED".equals(t.state())) {
      LOG.warn("breaker of dependency {} CLOSED: the cut goes on", t.dependency());
    } else {
      LOG.warn(
          "breaker of dependency {} {}: the cut holds before the next row that needs it;"
              + " last error: {}",
          t.dependency(), t.state(), t.lastError() == null ? "-" : t.lastError().message());
    }
    if (breakerStatus != null) {
      breakerStatus.publish(t);
    }
  }

  /** A read-only view of a seq array for the completeness check, boxing only what it reads. */
  private static final class SeqList extends AbstractList<Long> {
    private final long[] seqs;

    SeqList(long[] seqs) {
      this.seqs = seqs;
    }

    @Override
    public Long get(int i) {
      return seqs[i];
    }

    @Override
    public int size() {
      return seqs.length;
    }
  }
}
