package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's side of the quarantine: decides, per batch, which tenants' rows are held back and
 * which quarantined tenants are replayed from the outbox into it; and quarantines a tenant whose
 * table fails while the writer writes it.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A held tenant's rows are never written, and never lost: before dropping them from a batch
 *       {@code (frontier, batchEnd]} the record's resume point is made at most {@code frontier},
 *       durably ({@link Quarantine#covering}).
 *   <li>A replay re-reads {@code (resumeAfter, frontier]} of that tenant, merges it in seq order in
 *       front of the batch's own rows, and marks the record as replayed by this writer into this
 *       batch, durably, before the batch is handed over. The caller plans the merged batch through
 *       its ordinary path, against the tables' current snapshots.
 * </ul>
 *
 * <p>Not thread-safe: one per writer. Its id is new per writer instance, so a restarted writer
 * replays again whatever an earlier instance had started.
 */
public final class WriterQuarantine {
  private static final Logger LOG = LoggerFactory.getLogger(WriterQuarantine.class);

  private final QuarantineStore store;
  private final TenantReplay replay;
  private final DeltaTableClient client;
  private final int maxReplans;
  private final Clock clock;
  private final CommitRetry retry;
  private final String writerId = UUID.randomUUID().toString();
  private volatile int quarantined;

  /**
   * @param replay the outbox to replay from; null means tenants stay held (logged as an error)
   * @param retry how transient failures of the store and the outbox are retried before the writer
   *     fails over (the committer's policy: an object-store blip must not fail the job over)
   */
  public WriterQuarantine(
      QuarantineStore store,
      TenantReplay replay,
      DeltaTableClient client,
      int maxReplans,
      Clock clock,
      CommitRetry retry) {
    this.retry = retry;
    this.store = store;
    this.replay = replay;
    this.client = client;
    this.maxReplans = maxReplans;
    this.clock = clock;
  }

  /** What the writer plans for one batch. */
  public record Admitted(Batch batch, Set<String> replayed, Set<String> held) {}

  /**
   * The batch to plan: without the rows of held tenants, with the replayed rows of the tenants
   * replayed now. Its frontier is the lowest replayed resume point (or the batch's own).
   */
  public Admitted admit(Batch batch) throws IOException {
    Map<String, Quarantine> records = retried("quarantine list", store::list);
    quarantined = records.size();
    if (records.isEmpty()) {
      return new Admitted(batch, Set.of(), Set.of());
    }
    Set<String> held = new TreeSet<>();
    Set<String> replayed = new TreeSet<>();
    List<OutboxEvent> extra = new ArrayList<>();
    long frontier = batch.frontier();
    for (Quarantine record : records.values()) {
      String tenant = record.tenant();
      if (record.replay() != null && record.replay().writer().equals(writerId)) {
        continue; // this writer replayed it into an earlier batch: its rows flow again
      }
      if (record.replayable() && replay != null) {
        long from = record.resumeAfter();
        if (from < batch.frontier()) {
          List<OutboxEvent> rows =
              retried(
                  "replay of tenant " + tenant, () -> replay.rows(tenant, from, batch.frontier()));
          for (OutboxEvent event : rows) {
            if (TenantTables.prefixOf(event).equals(tenant)) {
              extra.add(event);
            }
          }
        }
        put(record.replaying(writerId, batch.batchEnd()));
        replayed.add(tenant);
        frontier = Math.min(frontier, from);
        LOG.warn(
            "quarantine {}: replaying {} rows of ({}, {}] from the outbox into batch ({}, {}],"
                + " planned against the tables' current snapshots ({})",
            tenant,
            extra.stream().filter(e -> TenantTables.prefixOf(e).equals(tenant)).count(),
            from,
            batch.frontier(),
            batch.frontier(),
            batch.batchEnd(),
            record.released() ? "released by an operator" : "automatic re-plan " + record.replans());
        continue;
      }
      if (record.replayable()) {
        LOG.error(
            "quarantine {}: may be replayed but this sink has no outbox to replay from"
                + " (DeltaSinkBuilder.tenantReplay); its rows wait in the outbox",
            tenant);
      }
      Quarantine covering = record.covering(batch.frontier());
      if (covering != record) {
        put(covering);
      }
      held.add(tenant);
    }
    if (held.isEmpty() && extra.isEmpty() && frontier == batch.frontier()) {
      return new Admitted(batch, replayed, held);
    }
    List<OutboxEvent> events = new ArrayList<>(extra);
    for (OutboxEvent event : batch.events()) {
      if (!held.contains(TenantTables.prefixOf(event))) {
        events.add(event);
      }
    }
    events.sort(Comparator.comparingLong(OutboxEvent::seq));
    if (!held.isEmpty()) {
      LOG.info(
          "batch ({}, {}]: tenants {} are in quarantine; their rows wait in the outbox",
          batch.frontier(),
          batch.batchEnd(),
          held);
    }
    return new Admitted(new Batch(frontier, batch.batchEnd(), events), replayed, held);
  }

  /**
   * Quarantines the tenant of a table that failed while this writer wrote the batch {@code
   * (frontier, ...]}: durably, before the batch is handed over without that tenant's tables.
   */
  public void failed(String batchName, long frontier, TableUnusableException failure)
      throws IOException {
    String tenant = failure.table().prefix();
    Quarantine prior = retried("quarantine list", store::list).get(tenant);
    Quarantine record =
        Quarantine.failed(
            prior,
            failure,
            batchName,
            frontier,
            TenantTables.txnVersions(client, tenant),
            clock.instant(),
            maxReplans);
    put(record);
    quarantined = Math.max(quarantined, 1);
    LOG.error(
        "finding TENANT_QUARANTINED: batch {}: {}. Other tenants go on; this tenant's rows wait in"
            + " the outbox ({})",
        batchName,
        failure.getMessage(),
        record.summary(),
        failure);
  }

  private void put(Quarantine record) throws IOException {
    retried(
        "quarantine record of " + record.tenant(),
        () -> {
          store.put(record);
          return null;
        });
  }

  private <T> T retried(String what, CommitRetry.Call<T> call) throws IOException {
    try {
      return retry.run(
          what,
          call,
          Thread::sleep,
          (e, attempt, backoff) ->
              LOG.warn(
                  "{}: transient failure ({}), attempt {}; retrying in {} ms",
                  what,
                  e.getMessage(),
                  attempt,
                  backoff));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(what + ": interrupted");
    }
  }

  /** How many tenants were in quarantine at the last batch (the sink's gauge). */
  public int quarantinedTenants() {
    return quarantined;
  }

  public void close() throws IOException {
    try {
      store.close();
    } finally {
      if (replay != null) {
        replay.close();
      }
    }
  }
}
