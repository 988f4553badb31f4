package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.sink2.Committer;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.compact.Compaction;
import org.oml.lakewriter.delta.compact.CompactionScheduler;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.quarantine.QuarantineStore;
import org.oml.lakewriter.delta.quarantine.TenantTables;
import org.oml.lakewriter.lease.CommitLease;
import org.oml.lakewriter.lease.LeaseLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase, run by Flink only after the checkpoint that holds the committables completed:
 * one Delta commit per table per batch, with {@code txn(oml-lakewriter, batchEnd)}. A silver
 * table's commit also carries the batch's MERGE: its rewritten files are added and the files they
 * replace are removed in that same commit, so a retraction lands with its batch or not at all.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Batches commit in {@code batchEnd} order. A batch never commits to a table before every
 *       earlier batch has: an older batch that lands after a newer one would be below the table's
 *       txn version and skipped forever. So a transient failure is retried in place, with back-off
 *       ({@link CommitRetry}), while everything after it waits; once the window is spent the job
 *       fails over and the batches commit after the restore.
 *   <li>Within a batch, tenants commit in parallel, up to {@code commitParallelism} at a time on
 *       the committer's own bounded pool; one tenant's tables commit one after the other in path
 *       order, as before, so a tenant's quarantine still stops its later tables. The lease is
 *       confirmed before any of them starts, and the batch is done (frontier reported, next batch
 *       started) only once every tenant's task has ended. If one fails, the tenants not yet
 *       started are not started, the running ones finish, and the batch fails as a whole: a replay
 *       skips the tables that committed by their txn versions. With {@code commitParallelism} 1,
 *       everything runs on the caller's thread, in path order.
 *   <li>Commits are idempotent: a table at or above {@code batchEnd} skips the batch, so a replay
 *       through a new committer, after a crash between tables, converges without duplicates.
 *   <li>A committable is never discarded. A table that can never take this batch (see {@link
 *       TableUnusableException}) puts its whole tenant in quarantine, durably in the lake, BEFORE
 *       anything else happens; the rest of the batch commits for the other tenants. While the
 *       record exists, none of that tenant's tables takes a commit, so their txn versions stay
 *       below every batch that was not applied to them; the record's resume point covers every
 *       skipped batch ({@link Quarantine#covering}), and the writer replays the tenant from the
 *       outbox. The record is deleted once the batch carrying that replay has committed.
 *   <li>Without a quarantine store, such a failure fails the job over (loudly, never a discard).
 *   <li>The frontier is reported after each batch committed for every tenant not in quarantine;
 *       each quarantined tenant's own frontier is in its record.
 *   <li>No Delta commit is made unless the leader lease is valid, with its safety margin, just
 *       before it ({@link CommitLease#checkValid}). A lapsed lease is a transient failure, retried
 *       in place like any other (the keeper may renew it meanwhile); a lease another holder took
 *       fails the job over at once with LEASE_LOST (the committables stay in the checkpoint, and a
 *       restore is refused until the lease is ours). Each commit's {@code commitInfo} names the
 *       lease epoch it was made under.
 * </ul>
 */
public final class DeltaCommitter implements Committer<DeltaCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitter.class);

  private final DeltaTableClient client;
  private final FrontierListener frontier;
  private final QuarantineStore quarantine;
  private final CommitRetry retry;
  private final CommitRetry.Sleeper sleeper;
  private final int maxReplans;
  private final Clock clock;
  private final CommitLease lease;
  private final CommitMetrics metrics;
  /** Commits a batch's tenants in parallel; null at {@code commitParallelism} 1. */
  private final ExecutorService pool;
  /** Quarantine records are read and written by one tenant task at a time. */
  private final Object quarantineLock = new Object();
  /** Null: no compaction. */
  private final Compaction compaction;
  /** The tables committed to by the current {@link #commit} call. */
  private final Set<TableId> touched = ConcurrentHashMap.newKeySet();

  /** Without quarantine or lease and with the default retry (tests and benchmarks). */
  public DeltaCommitter(DeltaTableClient client, FrontierListener frontier) {
    this(client, frontier, null, CommitRetry.DEFAULT, 3, Clock.systemUTC(), Thread::sleep);
  }

  /**
   * @param quarantine the durable quarantine; null fails over on a permanent table failure
   * @param maxReplans automatic re-plans in a row before a quarantine needs an operator
   */
  public DeltaCommitter(
      DeltaTableClient client,
      FrontierListener frontier,
      QuarantineStore quarantine,
      CommitRetry retry,
      int maxReplans,
      Clock clock,
      CommitRetry.Sleeper sleeper) {
    this(client, frontier, quarantine, retry, maxReplans, clock, sleeper, CommitLease.NONE);
  }

  /**
   * @param lease checked before every Delta commit; its epoch tags each commit's commitInfo
   */
  public DeltaCommitter(
      DeltaTableClient client,
      FrontierListener frontier,
      QuarantineStore quarantine,
      CommitRetry retry,
      int maxReplans,
      Clock clock,
      CommitRetry.Sleeper sleeper,
      CommitLease lease) {
    this(
        client, frontier, quarantine, retry, maxReplans, clock, sleeper, lease,
        CommitMetrics.none());
  }

  /** @param metrics commit latency, time since the last commit per table, committed frontier */
  public DeltaCommitter(
      DeltaTableClient client,
      FrontierListener frontier,
      QuarantineStore quarantine,
      CommitRetry retry,
      int maxReplans,
      Clock clock,
      CommitRetry.Sleeper sleeper,
      CommitLease lease,
      CommitMetrics metrics) {
    this(client, frontier, quarantine, retry, maxReplans, clock, sleeper, lease, metrics, 1);
  }

  /**
   * @param commitParallelism tenants of one batch committed at the same time ({@code >= 1}); the
   *     client's {@code commit} and {@code commitRewrite} must then be safe for distinct tables
   */
  public DeltaCommitter(
      DeltaTableClient client,
      FrontierListener frontier,
      QuarantineStore quarantine,
      CommitRetry retry,
      int maxReplans,
      Clock clock,
      CommitRetry.Sleeper sleeper,
      CommitLease lease,
      CommitMetrics metrics,
      int commitParallelism) {
    this(
        client, frontier, quarantine, retry, maxReplans, clock, sleeper, lease, metrics,
        commitParallelism, null);
  }

  /**
   * @param compaction told of each commit, and asked to compact the due tables after each call's
   *     batches have all committed (the job's runs on a thread of its own, see {@code
   *     docs/compaction.md}); null never compacts. Closed first by {@link #close}.
   */
  public DeltaCommitter(
      DeltaTableClient client,
      FrontierListener frontier,
      QuarantineStore quarantine,
      CommitRetry retry,
      int maxReplans,
      Clock clock,
      CommitRetry.Sleeper sleeper,
      CommitLease lease,
      CommitMetrics metrics,
      int commitParallelism,
      Compaction compaction) {
    this.compaction = compaction;
    if (commitParallelism < 1) {
      throw new IllegalArgumentException(
          "sink.commit-parallelism must be at least 1, got " + commitParallelism);
    }
    this.pool = commitParallelism == 1 ? null : newPool(commitParallelism);
    this.metrics = metrics;
    this.client = client;
    this.frontier = frontier;
    this.quarantine = quarantine;
    this.retry = retry;
    this.maxReplans = maxReplans;
    this.clock = clock;
    this.sleeper = sleeper;
    this.lease = lease;
    client.tagCommits(lease.commitTag());
  }

  @Override
  public void commit(Collection<CommitRequest<DeltaCommittable>> requests)
      throws IOException, InterruptedException {
    List<CommitRequest<DeltaCommittable>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> r.getCommittable().batchEnd()));
    long reached = Long.MIN_VALUE;
    Map<String, Quarantine> held = null;
    for (CommitRequest<DeltaCommittable> request : ordered) {
      DeltaCommittable batch = request.getCommittable();
      try {
        if (held == null) {
          held =
              quarantine == null
                  ? new ConcurrentHashMap<>()
                  : new ConcurrentHashMap<>(withRetry("quarantine list", quarantine::list));
        }
        if (commitBatch(batch, held)) {
          request.signalAlreadyCommitted();
        }
        reached = batch.batchEnd();
      } catch (UncheckedIOException e) {
        // Another writer leads the lake now: no retry can help. The committable stays in the
        // checkpoint; a restore is refused until the lease is ours again.
        LOG.error("batch {}: {}", batch.batchName(), e.getCause().getMessage());
        publishFrontier(reached);
        request.signalFailedWithUnknownReason(e.getCause());
        return;
      } catch (IOException e) {
        LOG.error(
            "batch {}: transient failure outlasted the retry window; failing over (this batch and"
                + " every later one commit after the restore, in order)",
            batch.batchName(),
            e);
        publishFrontier(reached);
        request.signalFailedWithUnknownReason(e);
        return;
      } catch (RuntimeException e) {
        LOG.error("batch {}: unexpected failure, failing over", batch.batchName(), e);
        publishFrontier(reached);
        request.signalFailedWithUnknownReason(e);
        return;
      }
    }
    publishFrontier(reached);
    compactAfter();
  }

  /**
   * Asks for the due tables' compaction once every batch of this call has committed: never in
   * front of a data commit. A compaction changes no row and carries no txn, so a failure of it is
   * only logged; a lease that is no longer ours ends the round.
   */
  private void compactAfter() {
    if (compaction == null) {
      return;
    }
    Set<TableId> tables = Set.copyOf(touched);
    touched.clear();
    compaction.afterCommits(
        tables,
        () -> {
          try {
            checkLease("compaction", false);
          } catch (IOException | UncheckedIOException e) {
            throw new CompactionScheduler.LeaseCheckFailed(e);
          }
        });
  }

  /** Commits one batch; true if every table already had it. */
  private boolean commitBatch(DeltaCommittable batch, Map<String, Quarantine> held)
      throws IOException, InterruptedException {
    if (batch.retractsWithoutRow() > 0) {
      LOG.info(
          "batch {}: {} retractions without a silver row (finding RETRACT_WITHOUT_ROW, in bronze"
              + " only)",
          batch.batchName(),
          batch.retractsWithoutRow());
    }
    boolean allAlreadyApplied = !batch.tables().isEmpty();
    if (!batch.tables().isEmpty()) {
      String what = "batch " + batch.batchName();
      withRetry("leader lease before " + what, () -> checkLease(what, true));
    }
    Set<String> failedNow = ConcurrentHashMap.newKeySet();
    Map<String, List<TableCommit>> byTenant = new LinkedHashMap<>();
    for (TableCommit table : batch.tables()) {
      byTenant.computeIfAbsent(table.table().prefix(), t -> new ArrayList<>()).add(table);
    }
    if (pool == null || byTenant.size() == 1) {
      for (List<TableCommit> tables : byTenant.values()) {
        allAlreadyApplied &= commitTenant(batch, tables, held, failedNow);
      }
    } else {
      allAlreadyApplied &= commitTenantsInParallel(batch, byTenant.values(), held, failedNow);
    }
    releaseReplayed(batch, held, failedNow);
    return allAlreadyApplied;
  }

  /**
   * Commits one tenant's tables of the batch, in path order; true if every one already had it. A
   * table that can never take the batch holds the tenant, and its later tables are skipped.
   */
  private boolean commitTenant(
      DeltaCommittable batch,
      List<TableCommit> tables,
      Map<String, Quarantine> held,
      Set<String> failedNow)
      throws IOException, InterruptedException {
    boolean allAlreadyApplied = true;
    for (TableCommit table : tables) {
      String tenant = table.table().prefix();
      if (failedNow.contains(tenant)) {
        allAlreadyApplied = false;
        continue;
      }
      Quarantine record = held.get(tenant);
      if (record != null && !record.admits(batch.batchEnd())) {
        synchronized (quarantineLock) {
          skip(batch, table, record, held);
        }
        allAlreadyApplied = false;
        continue;
      }
      try {
        allAlreadyApplied &= commitTable(batch, table) == CommitOutcome.ALREADY_APPLIED;
      } catch (TableUnusableException e) {
        synchronized (quarantineLock) {
          hold(batch, e, held);
        }
        failedNow.add(tenant);
        allAlreadyApplied = false;
      }
    }
    return allAlreadyApplied;
  }

  private CommitOutcome commitTable(DeltaCommittable batch, TableCommit table)
      throws IOException, InterruptedException {
    String what = "batch " + batch.batchName() + " table " + table.table();
    long started = System.nanoTime();
    CommitOutcome outcome =
        withRetry(
            what,
            () -> {
              checkLease(what, false);
              return client.commitEvents(
                  table.table(),
                  batch.batchEnd(),
                  table.firstSeq(),
                  table.files(),
                  table.rewrite());
            });
    if (compaction != null && outcome == CommitOutcome.COMMITTED) {
      compaction.committed(table.table(), table.files().size());
      touched.add(table.table());
    }
    metrics.tableCommitted(
        table.table(),
        table.rowCount(),
        (System.nanoTime() - started) / 1_000_000,
        outcome == CommitOutcome.COMMITTED);
    LOG.info(
        "batch {} table {}: {} ({} rows, {} files, {} files replaced)",
        batch.batchName(),
        table.table(),
        outcome,
        table.rowCount(),
        table.files().size(),
        table.removes().size());
    return outcome;
  }

  /**
   * Runs {@link #commitTenant} for every tenant on the pool and waits for all of them. The first
   * failure (in tenant order) is rethrown once every started task has ended; tenants not started
   * by then are not started. A started task is never interrupted for another's failure: it may be
   * writing a log checkpoint or a data file, and the caller closes the pool (interrupting what
   * still runs) as soon as this returns.
   */
  private boolean commitTenantsInParallel(
      DeltaCommittable batch,
      Collection<List<TableCommit>> tenants,
      Map<String, Quarantine> held,
      Set<String> failedNow)
      throws IOException, InterruptedException {
    AtomicBoolean failed = new AtomicBoolean();
    List<Future<Boolean>> tasks = new ArrayList<>(tenants.size());
    for (List<TableCommit> tables : tenants) {
      tasks.add(
          pool.submit(
              () -> {
                if (failed.get()) {
                  return false; // another tenant failed: the batch fails over, skip this one
                }
                try {
                  return commitTenant(batch, tables, held, failedNow);
                } catch (Throwable e) {
                  failed.set(true);
                  throw e;
                }
              }));
    }
    boolean allAlreadyApplied = true;
    Throwable failure = null;
    try {
      for (Future<Boolean> task : tasks) {
        try {
          allAlreadyApplied &= task.get();
        } catch (ExecutionException e) {
          allAlreadyApplied = false;
          if (failure == null) {
            failure = e.getCause();
          }
        }
      }
    } catch (InterruptedException e) {
      tasks.forEach(t -> t.cancel(true));
      throw e;
    }
    if (failure != null) {
      rethrow(failure);
    }
    return allAlreadyApplied;
  }

  private static void rethrow(Throwable failure) throws IOException, InterruptedException {
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof InterruptedException interrupted) {
      throw interrupted;
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    throw new IllegalStateException("commit task failed", failure);
  }

  private static ExecutorService newPool(int threads) {
    AtomicInteger count = new AtomicInteger();
    ThreadFactory factory =
        runnable -> {
          Thread thread = new Thread(runnable, "delta-committer-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    return Executors.newFixedThreadPool(threads, factory);
  }

  /** Skips a held tenant's table, first making sure the record's resume point covers the batch. */
  private void skip(
      DeltaCommittable batch, TableCommit table, Quarantine record, Map<String, Quarantine> held)
      throws IOException, InterruptedException {
    Quarantine covering = record.covering(batch.frontier());
    if (covering != record) {
      withRetry("quarantine record of " + record.tenant(), () -> put(covering));
      held.put(record.tenant(), covering);
    }
    LOG.info(
        "batch {} table {}: skipped, tenant {} is in quarantine (its rows wait in the outbox;"
            + " resume after seq {})",
        batch.batchName(),
        table.table(),
        record.tenant(),
        covering.resumeAfter());
  }

  /** Quarantines the tenant of a table that cannot take this batch; durable before returning. */
  private void hold(DeltaCommittable batch, TableUnusableException e, Map<String, Quarantine> held)
      throws IOException, InterruptedException {
    String tenant = e.table().prefix();
    if (quarantine == null) {
      throw new IllegalStateException(
          "batch "
              + batch.batchName()
              + ": "
              + e.getMessage()
              + ". This sink has no quarantine store (DeltaSinkBuilder.lakeRoot or"
              + " quarantineStore), so the job fails over rather than drop the batch",
          e);
    }
    Quarantine record =
        Quarantine.failed(
            held.get(tenant),
            e,
            batch.batchName(),
            batch.frontier(),
            TenantTables.txnVersions(client, tenant),
            clock.instant(),
            maxReplans);
    withRetry("quarantine record of " + tenant, () -> put(record));
    held.put(tenant, record);
    LOG.error(
        "finding TENANT_QUARANTINED: batch {}: {}. Tenant {} is held ({}); the other tenants'"
            + " tables of this batch commit",
        batch.batchName(),
        e.getMessage(),
        tenant,
        record.summary(),
        e);
  }

  /** Deletes the records whose replay batch has now committed for its tenant. */
  private void releaseReplayed(
      DeltaCommittable batch, Map<String, Quarantine> held, Set<String> failedNow)
      throws IOException, InterruptedException {
    List<String> done = new ArrayList<>();
    for (Quarantine record : held.values()) {
      if (record.admits(batch.batchEnd()) && !failedNow.contains(record.tenant())) {
        done.add(record.tenant());
      }
    }
    for (String tenant : done) {
      withRetry(
          "quarantine record of " + tenant,
          () -> {
            quarantine.delete(tenant);
            return null;
          });
      held.remove(tenant);
      LOG.warn(
          "quarantine {}: replayed and committed with batch {}; the tenant flows again",
          tenant,
          batch.batchName());
    }
  }

  /**
   * A lapsed lease is thrown as the IOException it is (retried in place); a lease another holder
   * took escapes the retry, unchecked, and fails the job over.
   */
  private Void checkLease(String what, boolean confirm) throws LeaseLostException {
    try {
      if (confirm) {
        lease.confirm(what);
      } else {
        lease.checkValid(what);
      }
      return null;
    } catch (LeaseLostException e) {
      if (e.takenOver()) {
        throw new UncheckedIOException(e);
      }
      throw e;
    }
  }

  private Void put(Quarantine record) throws IOException {
    quarantine.put(record);
    return null;
  }

  private <T> T withRetry(String what, CommitRetry.Call<T> call)
      throws IOException, InterruptedException {
    return retry.run(
        what,
        call,
        sleeper,
        (e, attempt, backoff) ->
            LOG.warn(
                "{}: transient failure ({}), attempt {}; retrying in {} ms",
                what,
                e.getMessage(),
                attempt,
                backoff));
  }

  private void publishFrontier(long reached) {
    if (reached == Long.MIN_VALUE) {
      return;
    }
    metrics.frontierReached(reached);
    try {
      frontier.frontierAdvanced(reached);
    } catch (IOException | RuntimeException e) {
      // A cache for `lakewriter status`: recovery reads each table's txn version instead.
      LOG.warn("frontier {}: not recorded ({}); the lake has it regardless", reached, e.toString());
    }
  }

  @Override
  public void close() throws Exception {
    if (pool != null) {
      pool.shutdownNow();
    }
    try {
      if (compaction != null) {
        compaction.close(); // before the lease is released: no compaction commits after it
      }
      client.close();
    } finally {
      try {
        frontier.close();
      } finally {
        try {
          if (quarantine != null) {
            quarantine.close();
          }
        } finally {
          lease.close();
        }
      }
    }
  }
}
