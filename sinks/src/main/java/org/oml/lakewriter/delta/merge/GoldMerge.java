package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.gold.GoldEvent;
import org.oml.lakewriter.delta.gold.GoldTransitions;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;
import org.oml.lakewriter.event.EventKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gold MERGE of one writer: turns one commit unit's bronze rows of a tenant into the files of
 * at most one commit per gold table, in the same {@code DeltaCommittable} (so under the same {@code
 * txn(oml-lakewriter, unit end)}) as the tenant's bronze and silver. The rules are those of issue
 * 15 ({@link GoldTransitions}); the design is in {@code docs/gold-streaming.md}.
 *
 * <pre>
 *   bronze rows of the unit (each gold table's above its own txn version, seq order)
 *     1. gold/workareas          the whole (tiny) table, rewritten as one file ({@link WorkareaFiles})
 *     2. gold/lineage            per key in seq order; new keys appended; keys the index holds:
 *                                journal-only changes nothing (no read), the rest a copy-on-write
 *                                of the files the index names ({@link KeyedFiles})
 *     3. gold/workarea_memories  K = keys of promotions/retractions, Wc = validated/invalidated
 *                                workareas; keys of Wc's lineage rows join K; each key's row is
 *                                recomputed from lineage and workareas AFTER the unit (table +
 *                                pending + this unit) and replaces, deletes or adds its row
 * </pre>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>A table with nothing to change gets no commit (and its txn version stays).
 *   <li>Memories are a function of lineage and workareas as they stand after the unit, never of
 *       what changed in them: so they are right whatever the order in which an earlier unit's gold
 *       tables were committed, and a replayed unit recomputes the same rows.
 *   <li>Every rewrite is planned on the table as it will be after this writer's pending batches
 *       and is refused at commit unless the table is exactly there ({@link Rewrite}).
 * </ul>
 *
 * <p>Not thread-safe: one per writer.
 */
public final class GoldMerge {
  private static final Logger LOG = LoggerFactory.getLogger(GoldMerge.class);

  /** Plans one table's commit, e.g. under the compaction guard's lock of that table. */
  @FunctionalInterface
  public interface Guard {
    Guard NONE = (table, batchEnd, planner) -> planner.plan();

    TableCommit plan(TableId table, long batchEnd, Planner planner) throws IOException;
  }

  /** The planning of one table's commit (null: nothing changes in it). */
  @FunctionalInterface
  public interface Planner {
    TableCommit plan() throws IOException;
  }

  private final DeltaTableClient client;
  private final KeyedFiles files;
  private final WorkareaFiles workareas;

  public GoldMerge(DeltaTableClient client) {
    this(client, KeyCache.NONE);
  }

  /** With the keys of the keyed gold tables' files saved in {@code cache} between runs. */
  public GoldMerge(DeltaTableClient client, KeyCache cache) {
    this.client = client;
    this.files = new KeyedFiles(client, cache);
    this.workareas = new WorkareaFiles(client);
  }

  /** Saves the key indexes that changed since their last save (the writer is closing). */
  public void saveKeys() {
    files.saveKeys();
  }

  /**
   * Writes one unit's gold files for one tenant.
   *
   * @param lineageIn the unit's bronze rows that feed {@code gold/lineage}, above its txn version
   * @param memoriesIn those that feed {@code gold/workarea_memories}, above its txn version
   * @param workareasIn those that feed {@code gold/workareas}, above its txn version
   * @return the unit's gold commits (none for a table that does not change)
   */
  public List<TableCommit> write(
      String batchName,
      long batchEnd,
      String tenant,
      List<TableRow> lineageIn,
      List<TableRow> memoriesIn,
      List<TableRow> workareasIn,
      Guard guard)
      throws IOException {
    TableId lineage = TableId.of(tenant, TableKind.GOLD_LINEAGE);
    TableId memories = TableId.of(tenant, TableKind.GOLD_WORKAREA_MEMORIES);
    TableId workareaTable = TableId.of(tenant, TableKind.GOLD_WORKAREAS);
    List<TableCommit> commits = new ArrayList<>();
    WorkareasAfter workareasAfter = new WorkareasAfter(workareaTable);
    if (!workareasIn.isEmpty()) {
      add(
          commits,
          guard.plan(
              workareaTable,
              batchEnd,
              () -> planWorkareas(workareaTable, batchEnd, events(workareasIn), workareasAfter)));
    }
    Map<ArtifactKey, TableRow> lineageAfter = new HashMap<>();
    if (!lineageIn.isEmpty()) {
      add(
          commits,
          guard.plan(
              lineage,
              batchEnd,
              () ->
                  planLineage(
                      batchName,
                      lineage,
                      batchEnd,
                      events(lineageIn),
                      lineageAfter,
                      workareasAfter)));
    }
    if (!memoriesIn.isEmpty()) {
      add(
          commits,
          guard.plan(
              memories,
              batchEnd,
              () ->
                  planMemories(
                      batchName,
                      memories,
                      lineage,
                      batchEnd,
                      events(memoriesIn),
                      lineageAfter,
                      workareasAfter.rows())));
    }
    return commits;
  }

  /** The tenant's {@code gold/workareas} rows after the unit, read once, when first needed. */
  private final class WorkareasAfter {
    private final TableId table;
    private Map<String, TableRow> rows;

    WorkareasAfter(TableId table) {
      this.table = table;
    }

    Map<String, TableRow> rows() throws IOException {
      if (rows == null) {
        rows = new HashMap<>(workareas.current(table).rows());
      }
      return rows;
    }

    void planned(Map<String, TableRow> after) {
      rows = new HashMap<>(after); // looked up with a lineage row's workarea, which may be null
    }
  }

  private static void add(List<TableCommit> commits, TableCommit commit) {
    if (commit != null) {
      commits.add(commit);
    }
  }

  private static List<GoldEvent> events(List<TableRow> bronzeRows) {
    List<GoldEvent> events = new ArrayList<>(bronzeRows.size());
    bronzeRows.forEach(r -> events.add(GoldEvent.ofBronze(r)));
    return events;
  }

  /** The whole table, with the unit's validation events applied, replaces its files. */
  private TableCommit planWorkareas(
      TableId table, long batchEnd, List<GoldEvent> events, WorkareasAfter after)
      throws IOException {
    WorkareaFiles.Current current = workareas.current(table);
    Map<String, TableRow> rows = new TreeMap<>(current.rows());
    for (GoldEvent e : events) {
      rows.put(e.workareaId(), GoldTransitions.workarea(rows.get(e.workareaId()), e));
    }
    after.planned(rows);
    List<DataFile> written = client.writeDataFiles(table, new ArrayList<>(rows.values()));
    workareas.record(table, batchEnd, rows, written);
    List<DataFile> removes = current.files();
    return new TableCommit(
        table,
        rows.size(),
        written,
        removes.isEmpty() ? null : new Rewrite(current.txnVersion(), removes));
  }

  /**
   * Lineage: new keys are folded from nothing and appended; a key the table (or a pending batch)
   * holds is read and rewritten only for a promotion or retraction, since a journal event of an
   * existing key changes nothing.
   */
  private TableCommit planLineage(
      String batchName,
      TableId table,
      long batchEnd,
      List<GoldEvent> events,
      Map<ArtifactKey, TableRow> after,
      WorkareasAfter workareasAfter)
      throws IOException {
    SortedMap<ArtifactKey, List<GoldEvent>> byKey = new TreeMap<>();
    for (GoldEvent e : events) {
      byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
    }
    Set<ArtifactKey> existing = files.existing(table, byKey.keySet());
    List<TableRow> appends = new ArrayList<>();
    SortedMap<ArtifactKey, List<GoldEvent>> onEarlier = new TreeMap<>();
    int withoutRow = 0;
    for (Map.Entry<ArtifactKey, List<GoldEvent>> entry : byKey.entrySet()) {
      if (existing.contains(entry.getKey())) {
        if (entry.getValue().stream().anyMatch(e -> e.kind() != EventKind.JOURNAL)) {
          onEarlier.put(entry.getKey(), entry.getValue());
        }
        continue;
      }
      TableRow row = null;
      for (GoldEvent e : entry.getValue()) {
        TableRow next = GoldTransitions.lineage(row, e);
        if (next == null) {
          withoutRow++;
        }
        row = next;
      }
      if (row != null) {
        appends.add(row);
        after.put(entry.getKey(), row);
      }
    }
    CopyOnWrite.Result rewrite =
        onEarlier.isEmpty()
            ? null
            : files.rewrite(table, onEarlier, lineageTransition(onEarlier, after, workareasAfter));
    if (withoutRow > 0) {
      LOG.info(
          "batch {} table {}: {} retractions of keys without a lineage row change nothing",
          batchName,
          table,
          withoutRow);
    }
    return handOver(table, batchEnd, appendsByStage(appends), rewrite, Set.of());
  }

  /**
   * Lineage's events applied to the rows of earlier units, each row after them kept in {@code
   * after} for the memories. A file whose keys get only retractions is read in the columns a
   * retraction reads ({@link GoldTransitions#LINEAGE_RETRACTION_READS}), unless one of them is a
   * reassign into a workarea validated after the unit: its row may then make a memory, which copies
   * most of the row's columns. A promotion sets most columns, so its file is read whole.
   */
  private static CopyOnWrite.Transition<GoldEvent> lineageTransition(
      Map<ArtifactKey, List<GoldEvent>> changes,
      Map<ArtifactKey, TableRow> after,
      WorkareasAfter workareasAfter)
      throws IOException {
    boolean reassigns =
        changes.values().stream()
            .anyMatch(c -> c.stream().anyMatch(e -> e.kind() == EventKind.REASSIGN));
    Map<String, TableRow> workareas = reassigns ? workareasAfter.rows() : Map.of();
    return new CopyOnWrite.Transition<>() {
      @Override
      public TableRow apply(ArtifactKey key, TableRow row, List<GoldEvent> events) {
        TableRow merged = row;
        for (GoldEvent e : events) {
          merged = GoldTransitions.lineage(merged, e);
        }
        after.put(key, merged);
        return merged;
      }

      @Override
      public Set<String> reads(Collection<List<GoldEvent>> fileChanges) {
        for (List<GoldEvent> events : fileChanges) {
          for (GoldEvent e : events) {
            if (e.kind() == EventKind.MATERIALIZE
                || e.kind() == EventKind.REASSIGN
                    && GoldTransitions.isValidated(workareas.get(e.workareaId()))) {
              return null;
            }
          }
        }
        return GoldTransitions.LINEAGE_RETRACTION_READS;
      }
    };
  }

  /**
   * A unit's new lineage rows in two runs, each written as files of its own: the rows not promoted
   * (journal only, whose next change is a promotion) and the promoted ones (whose next change is a
   * retraction). A copy-on-write rewrites every row of a file that holds one of its keys, so a
   * retraction then rewrites promoted rows only, not the journal rows appended beside them
   * (docs/scale.md, "Lineage appends by stage").
   */
  private static List<List<TableRow>> appendsByStage(List<TableRow> appends) {
    List<TableRow> submitted = new ArrayList<>();
    List<TableRow> promoted = new ArrayList<>();
    for (TableRow row : appends) {
      (GoldTransitions.isPromoted(row) ? promoted : submitted).add(row);
    }
    return List.of(submitted, promoted);
  }

  /**
   * Memories: every key whose row the unit may change (its promotions and retractions, and every
   * lineage row of a workarea it validates or invalidates) gets the row the rule gives from lineage
   * and workareas after the unit; existing rows are replaced or deleted by copy-on-write, new ones
   * appended.
   */
  private TableCommit planMemories(
      String batchName,
      TableId table,
      TableId lineage,
      long batchEnd,
      List<GoldEvent> events,
      Map<ArtifactKey, TableRow> lineageAfter,
      Map<String, TableRow> workareasAfter)
      throws IOException {
    Set<ArtifactKey> keys = new TreeSet<>();
    Set<String> changedWorkareas = new TreeSet<>();
    for (GoldEvent e : events) {
      if (e.kind().isWorkareaValidation()) {
        changedWorkareas.add(e.workareaId());
      } else if (e.key() != null) {
        keys.add(e.key());
      }
    }
    Map<ArtifactKey, TableRow> rows = new HashMap<>();
    if (!changedWorkareas.isEmpty()) {
      // Validations are rare; their workareas' lineage rows are found by reading lineage whole.
      files.forEachRow(
          lineage,
          row -> {
            String workarea = GoldTransitions.workareaOf(row); // null: a journal-only row
            if (workarea != null && changedWorkareas.contains(workarea)) {
              ArtifactKey key = ArtifactKey.of(TableKind.GOLD_LINEAGE, row);
              keys.add(key);
              rows.put(key, row);
            }
          });
    }
    // The unit's own lineage rows come first (looked up, not copied: they are most of the unit's).
    Set<ArtifactKey> unknown = new TreeSet<>();
    for (ArtifactKey key : keys) {
      if (!lineageAfter.containsKey(key) && !rows.containsKey(key)) {
        unknown.add(key);
      }
    }
    // A key whose lineage this unit did not change (a replay, a re-promotion): read it.
    unknown.retainAll(files.existing(lineage, unknown));
    rows.putAll(files.read(lineage, unknown));
    Map<ArtifactKey, Optional<TableRow>> desired = new TreeMap<>();
    for (ArtifactKey key : keys) {
      TableRow l = lineageAfter.get(key);
      if (l == null) {
        l = rows.get(key);
      }
      TableRow w = l == null ? null : workareasAfter.get(GoldTransitions.workareaOf(l));
      desired.put(key, Optional.ofNullable(GoldTransitions.memory(l, w)));
    }
    Set<ArtifactKey> existing = files.existing(table, keys);
    List<TableRow> appends = new ArrayList<>();
    SortedMap<ArtifactKey, List<Optional<TableRow>>> onEarlier = new TreeMap<>();
    for (Map.Entry<ArtifactKey, Optional<TableRow>> entry : desired.entrySet()) {
      if (existing.contains(entry.getKey())) {
        onEarlier.put(entry.getKey(), List.of(entry.getValue()));
      } else {
        entry.getValue().ifPresent(appends::add);
      }
    }
    Set<ArtifactKey> deleted = new HashSet<>();
    CopyOnWrite.Result rewrite =
        onEarlier.isEmpty()
            ? null
            : files.rewrite(
                table,
                onEarlier,
                (key, row, changes) -> {
                  TableRow wanted = changes.get(0).orElse(null);
                  if (wanted == null) {
                    deleted.add(key);
                    return null;
                  }
                  return wanted.equals(row) ? row : wanted;
                });
    LOG.debug(
        "batch {} table {}: {} keys recomputed ({} workareas validated or invalidated)",
        batchName,
        table,
        keys.size(),
        changedWorkareas.size());
    return handOver(table, batchEnd, List.of(appends), rewrite, deleted);
  }

  /**
   * Writes the appends (each run as files of its own), records the commit as pending, and returns
   * it (null: no change).
   */
  private TableCommit handOver(
      TableId table,
      long batchEnd,
      List<List<TableRow>> appends,
      CopyOnWrite.Result rewrite,
      Set<ArtifactKey> deleted)
      throws IOException {
    List<PendingFile> added = new ArrayList<>();
    long rows = 0;
    List<DataFile> removes = List.of();
    if (rewrite != null) {
      added.addAll(rewrite.added);
      removes = rewrite.removes;
      rows += rewrite.rowsRewritten;
    }
    for (List<TableRow> run : appends) {
      added.addAll(files.append(table, run));
      rows += run.size();
    }
    if (added.isEmpty() && removes.isEmpty()) {
      return null;
    }
    files.record(table, batchEnd, added, removes, deleted);
    return new TableCommit(
        table,
        rows,
        added.stream().map(PendingFile::file).toList(),
        rewrite == null ? null : new Rewrite(rewrite.baseTxnVersion, removes));
  }

  /** A tenant's gold tables will not take the pending batches (quarantine): forget them. */
  public void forget(String prefix) {
    files.forget(prefix);
    workareas.forget(prefix);
  }

  /** At each checkpoint barrier (see {@link KeyedFiles#barrier}). */
  public void barrier() {
    files.barrier();
  }
}
