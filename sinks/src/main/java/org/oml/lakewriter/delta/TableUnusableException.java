package org.oml.lakewriter.delta;

/**
 * A table that this writer cannot write and that no retry will fix: its schema is not ours, it
 * needs a protocol feature that Delta Kernel cannot write, it is not a Delta table, it vanished
 * after the writer put data files under it, or it is no longer in the state that a copy-on-write
 * rewrite was planned on. The message names the table and what an operator has to change.
 */
public final class TableUnusableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final TableId table;

  public TableUnusableException(TableId table, String message, Throwable cause) {
    super("table " + table + ": " + message, cause);
    this.table = table;
  }

  public TableId table() {
    return table;
  }
}
