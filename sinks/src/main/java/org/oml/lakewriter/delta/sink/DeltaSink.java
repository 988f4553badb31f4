package org.oml.lakewriter.delta.sink;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Gauge;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.compact.BackgroundCompaction;
import org.oml.lakewriter.delta.compact.CompactionScheduler;
import org.oml.lakewriter.delta.compact.TableCompactor;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommittableSerializer;
import org.oml.lakewriter.delta.merge.KeyCache;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.quarantine.QuarantineStore;
import org.oml.lakewriter.delta.quarantine.TenantReplay;
import org.oml.lakewriter.delta.quarantine.WriterQuarantine;
import org.oml.lakewriter.delta.writer.CommitUnitLimits;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.lease.CommitLease;
import org.oml.lakewriter.metrics.LakeWriterMetrics;
import org.oml.lakewriter.delta.committer.CommitMetrics;

/**
 * The Delta two-phase-commit sink: batches in, per-tenant Delta tables out, exactly once.
 *
 * <pre>
 *   Batch(frontier, batchEnd] ──▶ DeltaSinkWriter ──(barrier: one DeltaCommittable per checkpoint)─▶
 *       gathered until the barrier, then one Parquet file per table      │
 *                                        ▼   checkpoint completes
 *                                 DeltaCommitter ──▶ per table: txn(oml-lakewriter, batchEnd)
 *                                        └──▶ FrontierListener (cache, e.g. oml_lake_frontier)
 * </pre>
 *
 * <p>Assumptions: exactly one writer per lake (parallelism 1, one job, held by the leader lease
 * that the committer acquires, renews and checks before every commit), batches arrive in seq
 * order, and every table's txn version for {@code oml-lakewriter} is the only record of progress
 * that recovery trusts. The writer is stateless; the committables live in the committer's state
 * until their checkpoint completes.
 *
 * <p>Build it with {@link #builder()}.
 */
public final class DeltaSink implements Sink<Batch>, SupportsCommitter<DeltaCommittable> {
  private static final long serialVersionUID = 1L;

  /**
   * How long closing the committer waits for a running compaction round (interrupted, and barred
   * from committing) to end before the lease is released.
   */
  private static final Duration COMPACTION_CLOSE_WAIT = Duration.ofSeconds(30);

  /** The writer's counter of retractions that found no silver row (finding RETRACT_WITHOUT_ROW). */
  public static final String RETRACTS_WITHOUT_ROW_METRIC = LakeWriterMetrics.RETRACTS_WITHOUT_ROW;

  /** The writer's gauge of tenants in quarantine (see {@code docs/quarantine.md}). */
  public static final String QUARANTINED_TENANTS_METRIC = LakeWriterMetrics.QUARANTINED_TENANTS;

  private final DeltaTableClientFactory clients;
  private final FrontierListener frontier;
  private final QuarantineStore.Factory quarantine;
  private final TenantReplay replay;
  private final CommitRetry commitRetry;
  private final int maxReplans;
  private final CommitUnitLimits unitLimits;
  private final CommitLease.Factory leaderLease;
  private final int commitParallelism;
  private final int writeParallelism;
  /** When the committer compacts; {@link CompactionPolicy#OFF} never. */
  private final CompactionPolicy compaction;
  /** Names the {@link CompactionGuard} the writer and the committer of this lake share. */
  private final String guardKey;
  /** Whether the tenants' gold tables are written (docs/gold-streaming.md). */
  private final boolean gold;
  /** Where the writer saves its key indexes between runs; null: not saved (docs/key-cache.md). */
  private final String keyCacheDir;

  DeltaSink(
      DeltaTableClientFactory clients,
      FrontierListener frontier,
      QuarantineStore.Factory quarantine,
      TenantReplay replay,
      CommitRetry commitRetry,
      int maxReplans,
      CommitUnitLimits unitLimits,
      CommitLease.Factory leaderLease,
      int commitParallelism,
      int writeParallelism,
      CompactionPolicy compaction,
      String guardKey,
      boolean gold,
      String keyCacheDir) {
    this.gold = gold;
    this.keyCacheDir = keyCacheDir;
    this.compaction = compaction;
    this.guardKey = guardKey;
    this.commitParallelism = commitParallelism;
    this.writeParallelism = writeParallelism;
    this.clients = clients;
    this.frontier = frontier;
    this.quarantine = quarantine;
    this.replay = replay;
    this.commitRetry = commitRetry;
    this.maxReplans = maxReplans;
    this.unitLimits = unitLimits;
    this.leaderLease = leaderLease;
  }

  public static DeltaSinkBuilder builder() {
    return new DeltaSinkBuilder();
  }

  @Override
  public DeltaSinkWriter createWriter(WriterInitContext context) throws IOException {
    requireSingleSubtask(context.getTaskInfo().getNumberOfParallelSubtasks());
    DeltaTableClient client = clients.create();
    WriterQuarantine tenants =
        quarantine == null
            ? null
            : new WriterQuarantine(
                quarantine.open(), replay, client, maxReplans, Clock.systemUTC(), commitRetry);
    var metrics = LakeWriterMetrics.group(context.metricGroup());
    if (tenants != null) {
      metrics.gauge(QUARANTINED_TENANTS_METRIC, (Gauge<Integer>) tenants::quarantinedTenants);
    }
    return new DeltaSinkWriter(
        client,
        Clock.systemUTC(),
        new WriterSettings(
            metrics.counter(RETRACTS_WITHOUT_ROW_METRIC),
            tenants,
            unitLimits,
            compaction.enabled() ? CompactionGuard.of(guardKey) : null,
            gold,
            writeParallelism,
            KeyCache.in(keyCacheDir)));
  }

  /** Flink 1.20 still declares this; the runtime calls the {@link WriterInitContext} variant. */
  @Override
  @Deprecated
  public SinkWriter<Batch> createWriter(InitContext context) {
    throw new UnsupportedOperationException(
        "DeltaSink needs Flink's WriterInitContext (Flink 1.19+); createWriter(InitContext) is"
            + " deprecated");
  }

  @Override
  public Committer<DeltaCommittable> createCommitter(CommitterInitContext context)
      throws IOException {
    requireSingleSubtask(context.getTaskInfo().getNumberOfParallelSubtasks());
    // The lease first: a writer refused here (LEASE_HELD) never opens the lake for a commit.
    CommitLease lease = leaderLease.open(context.getJobInfo().getJobId().toHexString());
    BackgroundCompaction background = null;
    try {
      DeltaTableClient client = clients.create();
      if (compaction.enabled()) {
        // A client of its own: the compactor's thread never shares the committer's.
        DeltaTableClient compactions = clients.create();
        CompactionGuard guard = CompactionGuard.of(guardKey);
        CompactionScheduler scheduler =
            new CompactionScheduler(
                new TableCompactor(compactions, compaction, guard),
                compaction,
                guard,
                System::nanoTime);
        scheduler.stats().register(context.metricGroup());
        background = new BackgroundCompaction(scheduler, compactions, COMPACTION_CLOSE_WAIT);
      }
      return new DeltaCommitter(
          client,
          frontier,
          quarantine == null ? null : quarantine.open(),
          commitRetry,
          maxReplans,
          Clock.systemUTC(),
          Thread::sleep,
          lease,
          new CommitMetrics(
              context.metricGroup(), Clock.systemUTC(), CommitMetrics.DEFAULT_MAX_TABLE_SERIES),
          commitParallelism,
          background);
    } catch (IOException | RuntimeException e) {
      if (background != null) {
        background.close();
      }
      lease.close();
      throw e;
    }
  }

  @Override
  public SimpleVersionedSerializer<DeltaCommittable> getCommittableSerializer() {
    return new DeltaCommittableSerializer();
  }

  private static void requireSingleSubtask(int parallelism) {
    if (parallelism != 1) {
      throw new IllegalStateException(
          "DeltaSink runs at parallelism 1, got "
              + parallelism
              + ": two writers would race for the same tables, and Delta Kernel has no"
              + " read-conflict detection to stop them (set the sink's parallelism to 1)");
    }
  }

  @Override
  public String toString() {
    return "DeltaSink{"
        + clients
        + ", frontier="
        + frontier
        + ", quarantine="
        + quarantine
        + ", replay="
        + replay
        + ", "
        + commitRetry
        + ", commitParallelism="
        + commitParallelism
        + ", writeParallelism="
        + writeParallelism
        + ", "
        + compaction
        + ", gold="
        + gold
        + "}";
  }
}
