package org.oml.lakewriter.delta.writer;

import java.util.List;
import java.util.Objects;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;

/**
 * What one batch does to one table, in seq order. Today that is appending rows. The silver MERGE of
 * retractions (demote, erase, simulation_end, reassign set {@code state} on {@code (artifact_id,
 * version)}) is a later issue: its merge plan joins this record beside {@code appends}, and the
 * committable grows the matching remove actions.
 */
public record TableWrite(TableId table, List<TableRow> appends) {
  public TableWrite {
    Objects.requireNonNull(table, "table");
    appends = List.copyOf(appends);
  }

  /** This write restricted to rows above a table's txn version (rows at or below it landed). */
  public TableWrite above(long txnVersion) {
    return new TableWrite(table, appends.stream().filter(r -> r.seq() > txnVersion).toList());
  }

  public boolean isEmpty() {
    return appends.isEmpty();
  }
}
