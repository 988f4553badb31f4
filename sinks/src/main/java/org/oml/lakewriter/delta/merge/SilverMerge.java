package org.oml.lakewriter.delta.merge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Function;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.merge.PendingFiles.PendingFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The silver MERGE of one writer: turns one batch's promotions and retractions for a {@code
 * silver/memories} table into the files of a single commit, its appends and its copy-on-write
 * rewrite together, so that they land with the batch's {@code txn(oml-lakewriter, batchEnd)} or not
 * at all.
 *
 * <pre>
 *   appends + retractions (seq order, above the table's txn version)
 *     └─ SilverKeyIndex: promotions of keys silver holds (table or pending) change nothing
 *     └─ BatchFold: per key in seq order; in-batch promotions take their own retractions
 *          └─ retractions of earlier rows ─▶ CopyOnWrite: only the files SilverKeyIndex
 *                                             names for their keys (table or pending),
 *                                             checked live, read, rewritten, replaced
 *   ─▶ TableCommit(files = rewritten + appended, Rewrite(base txn, replaced files))
 * </pre>
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Retractions apply in seq order and never before the row they retract ({@link BatchFold}),
 *       with the transitions of {@link StateTransitions}.
 *   <li>A batch's rewrite is planned on the table as it will be once every earlier batch of this
 *       writer has committed ({@link PendingFiles}), and its commit is refused unless the table is
 *       then exactly in that state ({@link Rewrite}).
 *   <li>A retraction without a row changes nothing and is reported as {@link
 *       MergeFinding#RETRACT_WITHOUT_ROW}.
 *   <li>Silver holds one row per promoted key: a promotion of a key that the table, a pending batch
 *       or the same batch already holds changes nothing, whatever the row's state, and is reported
 *       as {@link MergeFinding#PROMOTE_EXISTING_KEY} ({@link SilverKeyIndex}, {@link BatchFold}).
 * </ul>
 *
 * <p>Not thread-safe: one per writer.
 */
public final class SilverMerge {
  private static final Logger LOG = LoggerFactory.getLogger(SilverMerge.class);

  private final KeyedFiles files;

  public SilverMerge(DeltaTableClient client) {
    this(client, KeyCache.NONE);
  }

  /** With the keys of the silver tables' files saved in {@code cache} between runs. */
  public SilverMerge(DeltaTableClient client, KeyCache cache) {
    this.files = new KeyedFiles(client, cache);
  }

  /** Saves the key indexes that changed since their last save (the writer is closing). */
  public void saveKeys() {
    files.saveKeys();
  }

  /**
   * Writes one batch's files for one silver table.
   *
   * @param appends the batch's promoted rows above the table's txn version, in seq order
   * @param retractions the batch's retractions above the table's txn version, in seq order
   */
  public Outcome write(
      String batchName,
      long batchEnd,
      TableId table,
      List<TableRow> appends,
      List<Retraction> retractions)
      throws IOException {
    List<TableRow> newKeys = withoutExistingKeys(batchName, table, appends);
    BatchFold.Folded folded = BatchFold.fold(newKeys, retractions);
    reportExisting(batchName, table, folded.repeatedPromotions(), "promoted earlier in the batch");
    int existing = appends.size() - folded.appends().size();
    SortedMap<ArtifactKey, List<Retraction>> onEarlier = folded.onEarlierRows();
    CopyOnWrite.Result rewrite =
        onEarlier.isEmpty() ? null : files.rewrite(table, onEarlier, CopyOnWrite.RETRACTIONS);
    int withoutRow = rewrite == null ? 0 : reportWithoutRow(batchName, table, onEarlier, rewrite);
    List<PendingFile> added = new ArrayList<>();
    long rows = folded.appends().size();
    if (rewrite != null) {
      added.addAll(rewrite.added);
      rows += rewrite.rowsRewritten;
      LOG.info(
          "batch {} table {}: {} retracted keys of earlier batches: read {} files, replaced {}"
              + " ({} rows rewritten), {} retractions without a row",
          batchName,
          table,
          onEarlier.size(),
          rewrite.filesRead,
          rewrite.removes.size(),
          rewrite.rowsRewritten,
          withoutRow);
    }
    added.addAll(files.append(table, folded.appends()));
    int filesRead = rewrite == null ? 0 : rewrite.filesRead;
    if (added.isEmpty()) {
      // Nothing changes in this table: no commit, and its txn version stays where it is.
      return new Outcome(null, withoutRow, filesRead, 0, existing);
    }
    List<DataFile> removes = rewrite == null ? List.of() : rewrite.removes;
    files.record(table, batchEnd, added, removes, Set.of());
    List<DataFile> files = added.stream().map(PendingFile::file).toList();
    Rewrite plan = rewrite == null ? null : new Rewrite(rewrite.baseTxnVersion, removes);
    return new Outcome(
        new TableCommit(table, rows, files, plan),
        withoutRow,
        filesRead,
        removes.size(),
        existing);
  }

  /**
   * The appends whose key silver does not hold yet, neither in the table nor in a pending batch of
   * this writer. The others change nothing (silver rule 2), and they are taken out before the
   * fold, so that a retraction later in the batch applies to the row that exists.
   */
  private List<TableRow> withoutExistingKeys(
      String batchName, TableId table, List<TableRow> appends) throws IOException {
    if (appends.isEmpty()) {
      return appends;
    }
    Set<ArtifactKey> existing = files.existing(table, KeyedFiles.keysOf(table, appends));
    if (existing.isEmpty()) {
      return appends;
    }
    List<TableRow> fresh = new ArrayList<>(appends.size());
    List<TableRow> dropped = new ArrayList<>();
    for (TableRow row : appends) {
      (existing.contains(ArtifactKey.ofSilverRow(row)) ? dropped : fresh).add(row);
    }
    reportExisting(batchName, table, dropped, "already in silver");
    return fresh;
  }

  private static void reportExisting(
      String batchName, TableId table, List<TableRow> promotions, String where) {
    warnFinding(
        MergeFinding.PROMOTE_EXISTING_KEY,
        batchName,
        table,
        promotions,
        row -> "promotion at seq " + row.seq() + " of " + ArtifactKey.ofSilverRow(row),
        "promotions of a key " + where + ": silver is unchanged (producer retries), bronze holds"
            + " the events");
  }

  /** At most this many of a finding's rows are named at WARN, per batch and table. */
  static final int FINDING_EXAMPLES = 3;

  /**
   * One WARN line for a finding's rows of one batch and table: their number and the first {@link
   * #FINDING_EXAMPLES}; every row at DEBUG. A line per row made a producer that retries, or
   * retractions of held claims, most of the log (stop 53's outside check: 5,600 lines for 49,000
   * outbox rows).
   */
  private static <T> void warnFinding(
      MergeFinding finding,
      String batchName,
      TableId table,
      List<T> rows,
      Function<T, String> describe,
      String what) {
    if (rows.isEmpty()) {
      return;
    }
    StringBuilder named = new StringBuilder();
    for (T row : rows.subList(0, Math.min(FINDING_EXAMPLES, rows.size()))) {
      named.append(named.length() == 0 ? "" : "; ").append(describe.apply(row));
    }
    int more = rows.size() - FINDING_EXAMPLES;
    LOG.warn(
        "finding {}: batch {} table {}: {} {}: {}{}",
        finding,
        batchName,
        table,
        rows.size(),
        what,
        named,
        more > 0 ? "; and " + more + " more (each at DEBUG)" : "");
    if (LOG.isDebugEnabled()) {
      for (T row : rows) {
        LOG.debug(
            "finding {}: batch {} table {}: {}", finding, batchName, table, describe.apply(row));
      }
    }
  }

  /**
   * Forgets the pending files of a tenant's silver table: the batches that wrote them will not
   * commit to it (the tenant is in quarantine), so the next rewrite is planned against the table's
   * current snapshot alone.
   */
  public void forget(String prefix) {
    files.forget(prefix);
  }

  /**
   * At each checkpoint barrier: forgets the pending files of batches handed over at an earlier
   * barrier that their tables now hold (their checkpoint has usually completed and committed them
   * by now), so that the writer's memory of pending files stays about one checkpoint deep.
   */
  public void barrier() {
    files.barrier();
  }

  /** How many times a table's key index was rebuilt because the table changed under the writer. */
  long keyIndexRebuilds() {
    return files.rebuilds();
  }

  /** How many live files' keys the key indexes took from the {@link KeyCache}, unread. */
  long filesFromKeyCache() {
    return files.filesFromKeyCache();
  }

  /** How many times a table's key index followed a compaction from the log instead. */
  long keyIndexCatchUps() {
    return files.catchUps();
  }

  private static int reportWithoutRow(
      String batchName,
      TableId table,
      SortedMap<ArtifactKey, List<Retraction>> onEarlier,
      CopyOnWrite.Result rewrite) {
    List<Retraction> withoutRow = new ArrayList<>();
    for (Map.Entry<ArtifactKey, List<Retraction>> entry : onEarlier.entrySet()) {
      if (!rewrite.found.contains(entry.getKey())) {
        withoutRow.addAll(entry.getValue());
      }
    }
    warnFinding(
        MergeFinding.RETRACT_WITHOUT_ROW,
        batchName,
        table,
        withoutRow,
        Retraction::toString,
        "retractions found no silver row (never promoted: a held claim or a dead-lettered"
            + " promotion); silver is unchanged, bronze holds them");
    return withoutRow.size();
  }

  /**
   * What one batch does to one silver table: its commit (null when nothing changes), how many of
   * its retractions found no row, how many files the copy-on-write read and replaced, and how many
   * of its promotions were of a key silver already held (finding {@code PROMOTE_EXISTING_KEY}).
   */
  public record Outcome(
      TableCommit commit,
      int retractsWithoutRow,
      int filesRead,
      int filesReplaced,
      int promotionsOfExistingKeys) {}
}
