package org.oml.lakewriter.delta.writer;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.merge.GoldMerge;
import org.oml.lakewriter.delta.merge.Retraction;
import org.oml.lakewriter.delta.merge.SilverMerge;
import org.oml.lakewriter.delta.quarantine.WriterQuarantine;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first phase: the batches of one checkpoint become one commit unit, and at the checkpoint
 * barrier ({@link #prepareCommit}) the unit becomes Parquet files per table and one {@link
 * DeltaCommittable}. For a {@code silver/memories} table that includes the unit's MERGE of
 * retractions: the files it rewrites and the files those replace ({@link SilverMerge}); for a
 * tenant's gold tables, planned after its other tables, their MERGEs ({@link GoldMerge},
 * docs/gold-streaming.md), all in the same committable and so under the same txn version.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A commit unit is a run of contiguous batches, {@code (first frontier, last batchEnd]}, with
 *       their rows in seq order: a batch like any other for the planner, so each table gets one
 *       file and one commit per checkpoint, whose txn version is the last batch's end. A unit is
 *       cut early at its {@link CommitUnitLimits} (memory stays bounded while a restart catches
 *       up) or when the next batch does not start where it ends.
 *   <li>Per table, no row at or below the table's txn version (read from the lake on first sight of
 *       the table) is written again; see {@link TableVersions}. Each table's commit names the first
 *       seq of its events, and the committer makes it only while the table is still below that
 *       seq (another writer's batch with other bounds may have taken some: docs/second-writer.md).
 *   <li>A replayed event keeps the route the lake already committed for it: a seq in its tenant's
 *       {@code dead_letter} never reaches bronze or silver, a seq in bronze is never dead-lettered
 *       again ({@link StickyRoutes}).
 *   <li>A unit's tenants are written by one task each, up to {@code sink.write-parallelism} at a
 *       time ({@link TenantPool}): a task touches only its tenant's tables and their entries in the
 *       per-table state (txn versions, key indexes, pending files, each thread-safe across
 *       tables), writes them in path order with the gold tables last, and hands a table that
 *       cannot be used back to the writer's thread, which quarantines the tenant. The unit is
 *       handed over only once every task has ended; its committable lists the tables by path,
 *       whatever order the tasks ended in.
 *   <li>Batches arrive in increasing seq order; one that does not is refused, because committing an
 *       older batch after a newer one would make every table skip it.
 *   <li>Nothing here is visible in the lake: files without a commit are orphans for VACUUM. The
 *       writer keeps no Flink state, since every batch it has written is handed over at each
 *       barrier. It remembers, in memory only, the silver files of batches handed over but not yet
 *       committed, so that a retraction finds a row promoted a few batches before. After a restore,
 *       Flink's committer (chained after the writer) commits the restored batches while it
 *       initializes, before the writer sees a batch; should one of them fail to commit then, a
 *       later silver rewrite planned without it fails its commit precisely (its base txn version
 *       does not match) instead of landing on the wrong rows.
 *   <li>With a {@link WriterQuarantine}: a tenant in quarantine gets no files; a table that fails
 *       for good while it is written puts its tenant in quarantine (durably, before the batch is
 *       handed over) and the batch goes on without that tenant's tables; a tenant being replayed
 *       has its outbox rows merged in front of the batch's and planned through this same path,
 *       against its tables' current snapshots and txn versions. Without one, such a failure fails
 *       the job over.
 * </ul>
 */
public final class DeltaSinkWriter implements CommittingSinkWriter<Batch, DeltaCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSinkWriter.class);

  private final DeltaTableClient client;
  private final BatchPlanner planner;
  private final TableVersions versions;
  private final SilverMerge merge;
  private final GoldMerge gold;
  private final StickyRoutes sticky;
  private final Counter retractsWithoutRow;
  private final WriterQuarantine quarantine;
  private final CommitUnitLimits unitLimits;
  /** Null: the job does not compact. */
  private final CompactionGuard compactionGuard;
  /** Writes a unit's tenants, one task each. */
  private final TenantPool tenants;
  private List<DeltaCommittable> pending = new ArrayList<>();
  private long lastBatchEnd = Long.MIN_VALUE;
  /**
   * The commit unit being gathered: its frontier and rows (null when there is none); it ends at
   * {@code lastBatchEnd}.
   */
  private List<OutboxEvent> unitEvents;
  private long unitFrontier;
  private long unitBytes;

  /** A writer with {@link WriterSettings#defaults()}. */
  public DeltaSinkWriter(DeltaTableClient client, Clock clock) {
    this(client, clock, WriterSettings.defaults());
  }

  public DeltaSinkWriter(DeltaTableClient client, Clock clock, WriterSettings settings) {
    this.tenants = new TenantPool(settings.writeParallelism());
    this.compactionGuard = settings.compactionGuard();
    this.unitLimits = settings.unitLimits();
    this.quarantine = settings.quarantine();
    this.client = client;
    this.planner = new BatchPlanner(clock, settings.gold());
    this.versions = new TableVersions(client);
    this.merge = new SilverMerge(client, settings.keyCache());
    this.gold = new GoldMerge(client, settings.keyCache());
    this.sticky = new StickyRoutes(client, versions);
    this.retractsWithoutRow = settings.retractsWithoutRow();
  }

  @Override
  public void write(Batch batch, Context context) throws IOException {
    if (batch.frontier() < lastBatchEnd) {
      throw new IllegalStateException(
          "batch ("
              + batch.frontier()
              + ", "
              + batch.batchEnd()
              + "] arrived after a batch ending"
              + " at "
              + lastBatchEnd
              + ": the cut must emit batches in seq order");
    }
    if (unitEvents != null && batch.frontier() != lastBatchEnd) {
      writeUnit();
    }
    if (unitEvents == null) {
      unitEvents = new ArrayList<>();
      unitFrontier = batch.frontier();
      unitBytes = 0;
    }
    unitEvents.addAll(batch.events());
    for (OutboxEvent event : batch.events()) {
      unitBytes += event.estimatedBytes();
    }
    lastBatchEnd = batch.batchEnd();
    if (unitLimits.reached(unitEvents.size(), unitBytes)) {
      writeUnit();
    }
  }

  /** Writes the gathered commit unit's files and hands its committable over at the next barrier. */
  private void writeUnit() throws IOException {
    if (unitEvents == null) {
      return;
    }
    Batch batch = new Batch(unitFrontier, lastBatchEnd, unitEvents);
    unitEvents = null;
    if (compactionGuard != null) {
      compactionGuard.unitWritten();
    }
    String name = "(" + batch.frontier() + ", " + batch.batchEnd() + "]";
    Batch planned = admit(batch);
    SortedMap<TableId, TableWrite> writes = sticky.apply(name, planner.plan(planned), tenants);
    // Tenants are independent: each one's tables are written by one task, in path order, its gold
    // tables after its other tables; up to writeParallelism tenants at a time (TenantPool).
    Map<String, SortedMap<TableId, TableWrite>> byTenant = new TreeMap<>();
    writes.forEach(
        (table, write) ->
            byTenant.computeIfAbsent(table.prefix(), t -> new TreeMap<>()).put(table, write));
    List<TenantPool.Task<TenantUnit>> tasks = new ArrayList<>(byTenant.size());
    byTenant.forEach(
        (tenant, tenantWrites) ->
            tasks.add(() -> writeTenant(name, batch.batchEnd(), tenant, tenantWrites)));
    List<TableCommit> tables = new ArrayList<>();
    int withoutRow = 0;
    for (TenantUnit unit : tenants.runAll(tasks)) {
      if (unit.failure() != null) {
        failTenant(name, batch, unit.tenant(), unit.failure());
      } else {
        tables.addAll(unit.commits());
        withoutRow += unit.retractsWithoutRow();
      }
    }
    // Gold tables were planned after the others: the committable lists every table by path.
    tables.sort(java.util.Comparator.comparing(TableCommit::table));
    DeltaCommittable committable =
        new DeltaCommittable(planned.frontier(), batch.batchEnd(), tables, withoutRow);
    retractsWithoutRow.inc(withoutRow);
    pending.add(committable);
    LOG.debug("batch {} prepared: {}", name, committable);
  }

  /** One tenant's part of a unit: its commits, or the failure that puts it in quarantine. */
  private record TenantUnit(
      String tenant,
      List<TableCommit> commits,
      int retractsWithoutRow,
      TableUnusableException failure) {}

  /**
   * Writes one tenant's tables of the unit: in path order, its gold tables after the others. Runs
   * on a {@link TenantPool} thread: it touches only this tenant's tables, and a table that cannot
   * be used is returned, not handled, so that the quarantine is written on the writer's thread.
   */
  private TenantUnit writeTenant(
      String name, long batchEnd, String tenant, SortedMap<TableId, TableWrite> writes)
      throws IOException {
    List<TableCommit> commits = new ArrayList<>();
    int withoutRow = 0;
    Map<TableKind, TableWrite> goldWrites = new EnumMap<>(TableKind.class);
    try {
      for (Map.Entry<TableId, TableWrite> entry : writes.entrySet()) {
        TableId table = entry.getKey();
        if (isGold(table.kind())) {
          goldWrites.put(table.kind(), entry.getValue());
          continue;
        }
        TableWrite fresh = unwritten(name, table, entry.getValue());
        TableCommit commit;
        if (table.kind() == TableKind.SILVER_MEMORIES) {
          SilverMerge.Outcome outcome =
              mergeGuarded(name, batchEnd, table, fresh.appends(), fresh.retractions());
          withoutRow += outcome.retractsWithoutRow();
          commit = outcome.commit();
        } else {
          commit = fresh.isEmpty() ? null : append(table, fresh);
        }
        if (commit != null) {
          commits.add(commit.withFirstSeq(fresh.firstSeq()));
        }
      }
      if (!goldWrites.isEmpty()) {
        commits.addAll(writeGold(name, batchEnd, tenant, goldWrites));
      }
    } catch (TableUnusableException e) {
      return new TenantUnit(tenant, List.of(), 0, e);
    }
    return new TenantUnit(tenant, commits, withoutRow, null);
  }

  /** A table of the tenant failed for good: the tenant goes into quarantine (or the job fails). */
  private void failTenant(String name, Batch batch, String tenant, TableUnusableException e)
      throws IOException {
    if (quarantine == null) {
      throw e;
    }
    quarantine.failed(name, batch.frontier(), e);
    resetTenant(tenant);
  }

  private static boolean isGold(TableKind kind) {
    return kind == TableKind.GOLD_LINEAGE
        || kind == TableKind.GOLD_WORKAREA_MEMORIES
        || kind == TableKind.GOLD_WORKAREAS;
  }

  /**
   * A tenant's gold commits for the unit: each gold table's input above its own txn version, folded
   * by {@link GoldMerge}; with a compaction guard each table is planned under its lock, and the
   * files its rewrite replaces are recorded before the lock is released (as for silver).
   */
  private List<TableCommit> writeGold(
      String name, long batchEnd, String tenant, Map<TableKind, TableWrite> writes)
      throws IOException {
    List<List<TableRow>> in = new ArrayList<>();
    Map<TableKind, Long> firstSeqs = new EnumMap<>(TableKind.class);
    for (TableKind kind :
        List.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES, TableKind.GOLD_WORKAREAS)) {
      TableWrite write = writes.get(kind);
      TableWrite fresh =
          write == null ? null : unwritten(name, TableId.of(tenant, kind), write);
      in.add(fresh == null ? List.of() : fresh.appends());
      firstSeqs.put(kind, fresh == null ? TableCommit.UNCHECKED : fresh.firstSeq());
    }
    GoldMerge.Guard guard =
        compactionGuard == null
            ? GoldMerge.Guard.NONE
            : (table, end, planner) -> {
              ReentrantLock lock = compactionGuard.lock(table);
              lock.lock();
              try {
                TableCommit commit = planner.plan();
                if (commit != null) {
                  compactionGuard.planned(table, end, commit.removes());
                }
                return commit;
              } finally {
                lock.unlock();
              }
            };
    // A gold table has a commit only for events of its own input (GoldMerge).
    return gold.write(name, batchEnd, tenant, in.get(0), in.get(1), in.get(2), guard).stream()
        .map(c -> c.withFirstSeq(firstSeqs.get(c.table().kind())))
        .toList();
  }

  /**
   * The batch to plan: held tenants' rows left out, replayed tenants' outbox rows merged in (their
   * tables' versions and pending silver files are read again from the lake).
   */
  private Batch admit(Batch batch) throws IOException {
    if (quarantine == null) {
      return batch;
    }
    WriterQuarantine.Admitted admitted = quarantine.admit(batch);
    admitted.replayed().forEach(this::resetTenant);
    return admitted.batch();
  }

  private void resetTenant(String tenant) {
    versions.forget(tenant);
    merge.forget(tenant);
    gold.forget(tenant);
  }

  /** The part of a write above the table's txn version; the rest is already in the lake. */
  private TableWrite unwritten(String batch, TableId table, TableWrite write) throws IOException {
    long version = versions.versionOf(table);
    TableWrite fresh = write.above(version);
    int dropped = write.size() - fresh.size();
    if (dropped > 0) {
      LOG.info(
          "batch {} table {}: {} events at or below txn version {} are already in the lake",
          batch,
          table,
          dropped,
          version);
    }
    return fresh;
  }

  /**
   * Plans a silver table's MERGE; with a compaction guard, under the table's lock and with the
   * files it replaces recorded before the lock is released, so that no compaction removes them
   * before the rewrite commits (see {@link CompactionGuard}).
   */
  private SilverMerge.Outcome mergeGuarded(
      String name, long batchEnd, TableId table, List<TableRow> appends, List<Retraction> retractions)
      throws IOException {
    if (compactionGuard == null) {
      return merge.write(name, batchEnd, table, appends, retractions);
    }
    ReentrantLock lock = compactionGuard.lock(table);
    lock.lock();
    try {
      SilverMerge.Outcome outcome = merge.write(name, batchEnd, table, appends, retractions);
      if (outcome.commit() != null) {
        compactionGuard.planned(table, batchEnd, outcome.commit().removes());
      }
      return outcome;
    } finally {
      lock.unlock();
    }
  }

  private TableCommit append(TableId table, TableWrite write) throws IOException {
    List<DataFile> files = client.writeDataFiles(table, write.appends());
    return new TableCommit(table, write.appends().size(), files);
  }

  @Override
  public void flush(boolean endOfInput) throws IOException {
    writeUnit();
  }

  @Override
  public List<DeltaCommittable> prepareCommit() throws IOException {
    writeUnit();
    merge.barrier();
    gold.barrier();
    List<DeltaCommittable> ready = pending;
    pending = new ArrayList<>();
    return ready;
  }

  @Override
  public void close() throws Exception {
    try {
      tenants.close();
      merge.saveKeys();
      gold.saveKeys();
      client.close();
    } finally {
      if (quarantine != null) {
        quarantine.close();
      }
    }
  }
}
