package org.oml.lakewriter.cut;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The rows this run of the cut put into its buffer, kept in heap as well up to a byte budget
 * ({@code cut.row-cache}), so that the turn that emits them takes them from here instead of
 * reading them back from state: on RocksDB a read is a lookup and a deserialisation of the whole
 * row, body included, which was about a quarter of the cut's thread in a B5 profile.
 *
 * <p>A cached row is either in state as well, or <em>deferred</em>: held here alone until the next
 * checkpoint writes it to state ({@link BatchCutFunction}'s write-behind). A row emitted before
 * that checkpoint never touches state. The checkpoint, not the heap, is what a restore reads, so
 * every deferred row is written before the checkpoint is taken ({@link #takeDeferred}).
 *
 * <p>The cache is this run's own, dropped with the function (a restored cut starts with an empty
 * cache and reads its restored rows from state). A row is only cached when it fits: once the
 * budget is full, new rows go to state alone until emitted rows free it. Rows mostly arrive in seq
 * order, so the cached ones are the first the cut needs. A row counts as {@link
 * OutboxEvent#estimatedBytes()} (its characters and body) plus {@value #ROW_OVERHEAD} bytes for the
 * objects that hold them (the record, a dozen strings and their arrays, the boxed numbers, the map
 * entry), so that the budget is close to the heap the cache takes.
 *
 * <p>Not thread-safe; transient.
 */
final class RowCache {
  /** Heap a cached row takes beyond {@link OutboxEvent#estimatedBytes()}, roughly. */
  static final long ROW_OVERHEAD = 600;

  private final long budget;
  private final Map<Long, Cached> rows = new HashMap<>();
  private long bytes;
  private int deferred;

  private static final class Cached {
    final OutboxEvent row;
    final long bytes;
    boolean inState;

    Cached(OutboxEvent row, long bytes, boolean inState) {
      this.row = row;
      this.bytes = bytes;
      this.inState = inState;
    }
  }

  /** @param budget bytes of rows held at most; 0 holds none */
  RowCache(long budget) {
    if (budget < 0) {
      throw new IllegalArgumentException("the row cache's budget must be >= 0, not " + budget);
    }
    this.budget = budget;
  }

  /**
   * Keeps {@code row} if it fits in the budget and its seq is not held yet.
   *
   * @param inState whether state holds the row too; if not, it is deferred
   * @return whether the row was kept
   */
  boolean offer(OutboxEvent row, boolean inState) {
    long size = sizeOf(row);
    if (bytes + size > budget || rows.putIfAbsent(row.seq(), new Cached(row, size, inState)) != null) {
      return false;
    }
    bytes += size;
    if (!inState) {
      deferred++;
    }
    return true;
  }

  /** The row put under {@code seq} in this run, if it is held; else null. */
  OutboxEvent get(long seq) {
    Cached cached = rows.get(seq);
    return cached == null ? null : cached.row;
  }

  /**
   * Forgets {@code seq} (its row was emitted and leaves the buffer).
   *
   * @return whether state holds the row, so it must be removed there too: false only for a row
   *     this cache held deferred
   */
  boolean remove(long seq) {
    Cached cached = rows.remove(seq);
    if (cached == null) {
      return true;
    }
    bytes -= cached.bytes;
    if (!cached.inState) {
      deferred--;
      return false;
    }
    return true;
  }

  /** Rows held here alone, not yet written to state. */
  int deferred() {
    return deferred;
  }

  /**
   * The deferred rows, in no order, now counted as in state: the caller writes them there (a
   * failed write fails the checkpoint, and the job restarts with a new cache).
   */
  List<OutboxEvent> takeDeferred() {
    if (deferred == 0) {
      return List.of();
    }
    List<OutboxEvent> out = new ArrayList<>(deferred);
    for (Cached c : rows.values()) {
      if (!c.inState) {
        c.inState = true;
        out.add(c.row);
      }
    }
    deferred = 0;
    return out;
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
