package org.oml.lakewriter.delta.read;

import java.util.List;
import java.util.Map;

/**
 * What one snapshot of a lake table holds: its Delta version, the txn version recorded for {@code
 * oml-lakewriter} ({@code -1} if none), its live data files, and its rows as column name to value
 * ({@code String}, {@code Long}, {@code Integer}, {@code byte[]}, or {@code Instant} for
 * timestamps), in seq order.
 */
public record TableContents(
    long tableVersion, long txnVersion, int fileCount, List<Map<String, Object>> rows) {
  public TableContents {
    rows = List.copyOf(rows);
  }

  /** The seq of every row, in order. */
  public List<Long> seqs() {
    return rows.stream().map(r -> (Long) r.get("seq")).toList();
  }

  @Override
  public String toString() {
    return "TableContents{version="
        + tableVersion
        + ", txn="
        + txnVersion
        + ", files="
        + fileCount
        + ", rows="
        + rows.size()
        + "}";
  }
}
