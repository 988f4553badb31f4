package org.oml.lakewriter.delta;

/**
 * A table that this writer cannot write and that no retry will fix: its schema is not ours, it
 * needs a protocol feature that Delta Kernel cannot write, it is not a Delta table, it vanished
 * after the writer put data files under it, or it is no longer in the state that a copy-on-write
 * rewrite was planned on. The message names the table and what an operator has to change.
 *
 * <p>{@link #replannable()} marks the one family that heals without an operator: the batch's plan
 * no longer matches the table (a copy-on-write rewrite whose base moved, e.g. an OPTIMIZE by another
 * engine, or a data file of the batch that vanished). Re-reading the batch from the outbox and
 * planning it again against the current snapshot fixes it; see {@code ...delta.quarantine}.
 */
public final class TableUnusableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final TableId table;
  private final boolean replannable;

  public TableUnusableException(TableId table, String message, Throwable cause) {
    this(table, message, cause, false);
  }

  /**
   * @param replannable true if planning the batch again against the table's current snapshot (from
   *     the outbox) makes the commit possible; false if an operator must change the table
   */
  public TableUnusableException(
      TableId table, String message, Throwable cause, boolean replannable) {
    super("table " + table + ": " + message, cause);
    this.table = table;
    this.replannable = replannable;
  }

  /** Whether re-planning the batch against the current snapshot heals this (no operator needed). */
  public boolean replannable() {
    return replannable;
  }

  public TableId table() {
    return table;
  }
}
