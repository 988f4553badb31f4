package org.oml.lakewriter.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One thread's counts, merged into the run's {@link DemoTraffic.Summary} at the end.
 *
 * <p>Invariant: it counts a row as committed only after its transaction committed; rows of a
 * transaction that rolled back only count as rolled back. Each thread has its own tally, so no
 * count needs a lock; the run merges them once every thread is done.
 */
final class TrafficTally {
  private final Map<String, Map<String, Long>> counts = new TreeMap<>();
  private long committedRows;
  private long committedTransactions;
  private long rolledBackRows;
  private long rolledBackTransactions;
  private long maxSeq;
  private long longOpenSeq;
  private long committedWhileLongOpen;

  /** A committed transaction's rows with their seqs, in insertion order. */
  void noteCommit(List<OutboxRow> rows, List<Long> seqs, boolean whileLongOpen) {
    for (int i = 0; i < rows.size(); i++) {
      noteRow(rows.get(i), seqs.get(i));
    }
    committedTransactions++;
    if (whileLongOpen) {
      committedWhileLongOpen += rows.size();
    }
  }

  /** The long-open transaction committed; {@code firstSeq} is the lowest seq it held. */
  void noteLongOpenCommit(long firstSeq) {
    committedTransactions++;
    longOpenSeq = firstSeq;
  }

  void noteRollback(int rows) {
    rolledBackRows += rows;
    rolledBackTransactions++;
  }

  /** A row of a transaction that committed (or that will, for the long-open one). */
  void noteRow(OutboxRow row, long seq) {
    count(row.tenant(), row.kind().wireName(), 1L);
    committedRows++;
    maxSeq = Math.max(maxSeq, seq);
  }

  void add(TrafficTally o) {
    o.counts.forEach((tenant, kinds) -> kinds.forEach((kind, n) -> count(tenant, kind, n)));
    committedRows += o.committedRows;
    committedTransactions += o.committedTransactions;
    rolledBackRows += o.rolledBackRows;
    rolledBackTransactions += o.rolledBackTransactions;
    maxSeq = Math.max(maxSeq, o.maxSeq);
    longOpenSeq = Math.max(longOpenSeq, o.longOpenSeq);
    committedWhileLongOpen += o.committedWhileLongOpen;
  }

  private void count(String tenant, String kind, long n) {
    counts.computeIfAbsent(tenant, t -> new TreeMap<>()).merge(kind, n, Long::sum);
  }

  DemoTraffic.Summary toSummary(Duration elapsed) {
    return new DemoTraffic.Summary(
        counts,
        committedRows,
        committedTransactions,
        rolledBackRows,
        rolledBackTransactions,
        maxSeq,
        longOpenSeq,
        committedWhileLongOpen,
        elapsed);
  }
}
