package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Committer;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableUnusableException;
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
 *   <li>Batches commit in {@code batchEnd} order and tables in path order. A batch never commits to
 *       a table before every earlier batch has: an older batch that lands after a newer one would
 *       be below the table's txn version and skipped forever. So a transient failure is retried in
 *       place, with back-off ({@link CommitRetry}), while everything after it waits; once the
 *       window is spent the job fails over and the batches commit after the restore.
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
                  ? new HashMap<>()
                  : new HashMap<>(withRetry("quarantine list", quarantine::list));
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
    Set<String> failedNow = new LinkedHashSet<>();
    for (TableCommit table : batch.tables()) {
      String tenant = table.table().prefix();
      if (failedNow.contains(tenant)) {
        allAlreadyApplied = false;
        continue;
      }
      Quarantine record = held.get(tenant);
      if (record != null && !record.admits(batch.batchEnd())) {
        skip(batch, table, record, held);
        allAlreadyApplied = false;
        continue;
      }
      try {
        String what = "batch " + batch.batchName() + " table " + table.table();
        long started = System.nanoTime();
        CommitOutcome outcome =
            withRetry(
                what,
                () -> {
                  checkLease(what, false);
                  return table.rewrite() == null
                      ? client.commit(table.table(), batch.batchEnd(), table.files())
                      : client.commitRewrite(
                          table.table(), batch.batchEnd(), table.files(), table.rewrite());
                });
        allAlreadyApplied &= outcome == CommitOutcome.ALREADY_APPLIED;
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
      } catch (TableUnusableException e) {
        hold(batch, e, held);
        failedNow.add(tenant);
        allAlreadyApplied = false;
      }
    }
    releaseReplayed(batch, held, failedNow);
    return allAlreadyApplied;
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
    try {
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
