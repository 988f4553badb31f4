package org.oml.lakewriter.delta.merge;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.TableRow;

/**
 * Folds one batch's silver events per {@code (artifact_id, version)} in seq order, before anything
 * is read from the lake.
 *
 * <ul>
 *   <li>A retraction that follows a promotion of its key in the same batch applies to that new row
 *       (and only to it), so a promotion followed by a demote lands once, already demoted, with no
 *       rewrite.
 *   <li>A retraction with no promotion of its key before it in the batch applies to rows of earlier
 *       batches: those keys, with their retractions in seq order, are what the copy-on-write looks
 *       up in the table. A retraction is therefore never applied before the row it retracts.
 *   <li>A second promotion of a key that the batch already promoted changes nothing (a producer
 *       retry): the first one made the row, and the repeat is returned as such, never appended.
 *       Promotions of keys that silver already holds are taken out before the fold ({@link
 *       SilverKeyIndex}), so that their retractions go to the existing row.
 * </ul>
 */
public final class BatchFold {
  private BatchFold() {}

  /**
   * @param appends the batch's new silver rows, in seq order
   * @param retractions the batch's retractions, in seq order
   */
  public static Folded fold(List<TableRow> appends, List<Retraction> retractions) {
    List<TableRow> rows = new ArrayList<>(appends.size());
    Map<ArtifactKey, Integer> promoted = new HashMap<>();
    List<TableRow> repeated = new ArrayList<>();
    SortedMap<ArtifactKey, List<Retraction>> onEarlierRows = new TreeMap<>();
    int a = 0;
    int r = 0;
    while (a < appends.size() || r < retractions.size()) {
      boolean appendNext =
          r == retractions.size()
              || (a < appends.size() && appends.get(a).seq() < retractions.get(r).seq());
      if (appendNext) {
        TableRow row = appends.get(a++);
        if (promoted.putIfAbsent(ArtifactKey.ofSilverRow(row), rows.size()) == null) {
          rows.add(row);
        } else {
          repeated.add(row);
        }
      } else {
        Retraction retraction = retractions.get(r++);
        Integer inBatch = promoted.get(retraction.key());
        if (inBatch == null) {
          onEarlierRows.computeIfAbsent(retraction.key(), k -> new ArrayList<>()).add(retraction);
        } else {
          rows.set(inBatch, StateTransitions.apply(rows.get(inBatch), retraction));
        }
      }
    }
    return new Folded(rows, onEarlierRows, repeated);
  }

  /**
   * The batch's silver rows with their in-batch retractions applied, per key the retractions (in
   * seq order) that apply to rows already in the table, and the promotions that repeat a key the
   * batch promoted before them (they change nothing).
   */
  public record Folded(
      List<TableRow> appends,
      SortedMap<ArtifactKey, List<Retraction>> onEarlierRows,
      List<TableRow> repeatedPromotions) {
    public Folded {
      appends = List.copyOf(appends);
      repeatedPromotions = List.copyOf(repeatedPromotions);
      SortedMap<ArtifactKey, List<Retraction>> copy = new TreeMap<>();
      onEarlierRows.forEach((k, v) -> copy.put(k, List.copyOf(v)));
      onEarlierRows = Collections.unmodifiableSortedMap(copy);
    }
  }
}
