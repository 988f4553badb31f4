package org.oml.lakewriter.cut;

import java.util.HashMap;
import java.util.Map;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The rows this run of the cut put into its buffer, kept in heap as well up to a byte budget
 * ({@code cut.row-cache}), so that the turn that emits them takes them from here instead of
 * reading them back from state: on RocksDB a read is a lookup and a deserialisation of the whole
 * row, body included, which was about a quarter of the cut's thread in a B5 profile.
 *
 * <p>State stays the authority. Every row is still put into the buffer, which is what a
 * checkpoint holds; this is a copy of what this run wrote, dropped with the function (a restored
 * cut starts with an empty cache and reads its restored rows from state). A row is only cached
 * when it fits: once the budget is full, new rows go to state alone until emitted rows free it.
 * Rows mostly arrive in seq order, so the cached ones are the first the cut needs. A row counts as
 * {@link OutboxEvent#estimatedBytes()} (its characters and body) plus {@value #ROW_OVERHEAD}
 * bytes for the objects that hold them (the record, a dozen strings and their arrays, the boxed
 * numbers, the map entry), so that the budget is close to the heap the cache takes.
 *
 * <p>Not thread-safe; transient.
 */
final class RowCache {
  /** Heap a cached row takes beyond {@link OutboxEvent#estimatedBytes()}, roughly. */
  static final long ROW_OVERHEAD = 600;

  private final long budget;
  private final Map<Long, Cached> rows = new HashMap<>();
  private long bytes;

  private record Cached(OutboxEvent row, long bytes) {}

  /** @param budget bytes of rows held at most; 0 holds none */
  RowCache(long budget) {
    if (budget < 0) {
      throw new IllegalArgumentException("the row cache's budget must be >= 0, not " + budget);
    }
    this.budget = budget;
  }

  /** Keeps {@code row} if it fits in the budget; a seq already held keeps its row. */
  void offer(OutboxEvent row) {
    long size = sizeOf(row);
    if (bytes + size <= budget && rows.putIfAbsent(row.seq(), new Cached(row, size)) == null) {
      bytes += size;
    }
  }

  /** The row put under {@code seq} in this run, if it is held; else null. */
  OutboxEvent get(long seq) {
    Cached cached = rows.get(seq);
    return cached == null ? null : cached.row();
  }

  /** Forgets {@code seq} (its row was emitted and removed from the buffer). */
  void remove(long seq) {
    Cached cached = rows.remove(seq);
    if (cached != null) {
      bytes -= cached.bytes();
    }
  }

  /** What {@code row} counts against the budget. */
  static long sizeOf(OutboxEvent row) {
    return row.estimatedBytes() + ROW_OVERHEAD;
  }

  int size() {
    return rows.size();
  }

  long bytes() {
    return bytes;
  }
}
