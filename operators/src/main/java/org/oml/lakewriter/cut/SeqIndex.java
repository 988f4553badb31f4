package org.oml.lakewriter.cut;

import java.util.Arrays;

/**
 * The seqs the cut holds in its buffer, in heap, ascending: 8 bytes a row (a {@code long[]}, at
 * most twice that while it grows), so that the buffer itself, which spills to disk with RocksDB,
 * is never probed for seqs it does not hold.
 *
 * <p>Rows mostly arrive in seq order (commit order, with concurrent transactions interleaved near
 * the tail), so a seq above every indexed one is appended. A seq below (a long-open transaction
 * committing late, snapshot chunks) goes to a small unsorted side array that is sorted and merged
 * in once it fills or before the index is read, so that a late transaction of {@code k} rows over
 * {@code n} held rows costs {@code O(n * k / SIDE)} moves, not {@code O(n * k)}.
 *
 * <p>Not thread-safe; transient: rebuilt from the buffer's keys after a restore.
 */
final class SeqIndex {
  /** Out-of-order seqs held unsorted before a merge; bounds the linear scan of a membership test. */
  static final int SIDE = 1024;

  /** {@code seqs[head, tail)} ascending, no duplicates. */
  private long[] seqs = new long[64];

  private int head;
  private int tail;
  private final long[] side = new long[SIDE];
  private int sideSize;

  /** Adds {@code seq}; false if it was already held (a redelivery). */
  boolean add(long seq) {
    if (sideSize == 0 && (tail == head || seq > seqs[tail - 1])) {
      append(seq);
      return true;
    }
    if (Arrays.binarySearch(seqs, head, tail, seq) >= 0) {
      return false;
    }
    for (int i = 0; i < sideSize; i++) {
      if (side[i] == seq) {
        return false;
      }
    }
    side[sideSize++] = seq;
    if (sideSize == SIDE) {
      merge();
    }
    return true;
  }

  /** Rows held. */
  int size() {
    return tail - head + sideSize;
  }

  /**
   * The held seqs in {@code (after, upTo]}, ascending, at most {@code limit} of them. The cut never
   * holds a seq at or below its frontier, so {@code after} is where the index starts anyway.
   */
  long[] range(long after, long upTo, int limit) {
    merge();
    int from = after == Long.MAX_VALUE ? tail : lowerBound(after + 1);
    int to = upTo == Long.MAX_VALUE ? tail : lowerBound(upTo + 1);
    if (to <= from) {
      return new long[0];
    }
    return Arrays.copyOfRange(seqs, from, (int) Math.min(to, (long) from + limit));
  }

  /** Whether {@code seq} is held. */
  boolean contains(long seq) {
    merge();
    return Arrays.binarySearch(seqs, head, tail, seq) >= 0;
  }

  /** Drops every seq at or below {@code frontier} (the rows a cut emitted and removed). */
  void removeUpTo(long frontier) {
    merge();
    head = frontier == Long.MAX_VALUE ? tail : lowerBound(frontier + 1);
    if (head == tail) {
      head = 0;
      tail = 0;
    }
  }

  /** The first position in {@code [head, tail)} whose seq is {@code >= seq}. */
  private int lowerBound(long seq) {
    int i = Arrays.binarySearch(seqs, head, tail, seq);
    return i >= 0 ? i : -i - 1;
  }

  private void append(long seq) {
    if (tail == seqs.length) {
      int live = tail - head;
      if (live * 2 <= seqs.length && head > 0) {
        // Mostly a consumed prefix: slide down instead of growing.
        System.arraycopy(seqs, head, seqs, 0, live);
      } else {
        long[] grown = new long[Math.max(64, live * 2)];
        System.arraycopy(seqs, head, grown, 0, live);
        seqs = grown;
      }
      head = 0;
      tail = live;
    }
    seqs[tail++] = seq;
  }

  /**
   * Sorts the side array into the main one, in place from the back (side seqs are distinct and
   * not in the main one).
   */
  private void merge() {
    if (sideSize == 0) {
      return;
    }
    Arrays.sort(side, 0, sideSize);
    int live = tail - head;
    int total = live + sideSize;
    if (head + total > seqs.length) {
      long[] grown = total > seqs.length ? new long[total * 3 / 2] : seqs;
      System.arraycopy(seqs, head, grown, 0, live);
      seqs = grown;
      head = 0;
      tail = live;
    }
    int i = tail - 1;
    int j = sideSize - 1;
    int k = head + total - 1;
    while (j >= 0) {
      seqs[k--] = i >= head && seqs[i] > side[j] ? seqs[i--] : side[j--];
    }
    tail = head + total;
    sideSize = 0;
  }
}
