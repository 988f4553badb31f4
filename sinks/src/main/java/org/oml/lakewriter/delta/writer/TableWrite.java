package org.oml.lakewriter.delta.writer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.merge.Retraction;

/**
 * What one batch does to one table, each list in seq order: rows to append and, for {@code
 * silver/memories} only, retractions to MERGE on {@code (artifact_id, version)} (demote, erase,
 * simulation_end and reassign; see {@code ...delta.merge}). For a gold table the "appends" are the
 * tenant's bronze rows that feed it, the input of {@code GoldMerge}, not rows of the table.
 */
public record TableWrite(TableId table, List<TableRow> appends, List<Retraction> retractions) {
  public TableWrite {
    Objects.requireNonNull(table, "table");
    appends = List.copyOf(appends);
    retractions = List.copyOf(retractions);
    if (!retractions.isEmpty() && table.kind() != TableKind.SILVER_MEMORIES) {
      throw new IllegalArgumentException("retractions only merge into silver, not " + table);
    }
  }

  /** Appends only. */
  public TableWrite(TableId table, List<TableRow> appends) {
    this(table, appends, List.of());
  }

  /** This write restricted to events above a table's txn version (those at or below it landed). */
  public TableWrite above(long txnVersion) {
    return new TableWrite(
        table,
        appends.stream().filter(r -> r.seq() > txnVersion).toList(),
        retractions.stream().filter(r -> r.seq() > txnVersion).toList());
  }

  /** This write without the events at {@code seqs} (decided for good by an earlier commit). */
  public TableWrite without(java.util.Set<Long> seqs) {
    return new TableWrite(
        table,
        appends.stream().filter(r -> !seqs.contains(r.seq())).toList(),
        retractions.stream().filter(r -> !seqs.contains(r.seq())).toList());
  }

  /** The lowest seq of this write's events; {@link TableCommit#UNCHECKED} if it has none. */
  public long firstSeq() {
    long first = TableCommit.UNCHECKED;
    for (TableRow row : appends) {
      first = Math.min(first, row.seq());
    }
    for (Retraction retraction : retractions) {
      first = Math.min(first, retraction.seq());
    }
    return first;
  }

  public boolean isEmpty() {
    return appends.isEmpty() && retractions.isEmpty();
  }

  /** How many events this write holds. */
  public int size() {
    return appends.size() + retractions.size();
  }
}
