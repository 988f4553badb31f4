package org.oml.lakewriter.delta.log;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The versions of one table as reconciliation reads them: for each commit, its time, the {@code
 * oml-lakewriter} txn version the table holds after it, the outbox seqs it covers and what kind of
 * commit it was.
 *
 * <p>A commit that records txn version {@code t} after the table held {@code p} covers the seqs
 * {@code p + 1 .. t}: the writer commits a batch {@code (p, t]} with {@code txn(oml-lakewriter, t)}
 * (docs/architecture.md), and the table holds every row of the tenant with a seq up to {@code t}
 * once it is committed. A commit that records no higher txn version covers no seq.
 */
public final class TableHistory {
  /** A commit's kind, from its actions. */
  public enum Operation {
    /** Only metadata or protocol (the table's creation): no file. */
    METADATA,
    /** Appends only: a batch's new rows. */
    DATA,
    /** Removes (and adds) with {@code dataChange = true}: a retraction's copy-on-write. */
    REWRITE,
    /** Every file action {@code dataChange = false}: compaction, the same rows in other files. */
    COMPACTION;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One version. {@code seqFrom}/{@code seqTo} are the seqs it covers, both {@code -1} if none;
   * {@code txnVersion} is the table's txn version after it ({@code -1} if it has none yet).
   */
  public record Version(
      long version,
      Instant time,
      long txnVersion,
      long seqFrom,
      long seqTo,
      Operation operation,
      int filesAdded,
      int filesRemoved) {
    public boolean covers(long seq) {
      return seqFrom >= 0 && seq >= seqFrom && seq <= seqTo;
    }
  }

  private TableHistory() {}

  /**
   * The versions of the commits, in order. {@code txnBefore} is the table's txn version before the
   * first of them ({@code -1} when the first is version 0 or none is known).
   */
  public static List<Version> of(List<TableLog.Commit> commits, long txnBefore) {
    List<Version> versions = new ArrayList<>(commits.size());
    long txn = txnBefore;
    for (TableLog.Commit c : commits) {
      long from = -1;
      long to = -1;
      if (c.txnVersion() > txn) {
        from = Math.max(txn, 0) + 1;
        to = c.txnVersion();
        txn = c.txnVersion();
      }
      versions.add(
          new Version(
              c.version(), c.time(), txn, from, to, operation(c), c.adds().size(),
              c.removes().size()));
    }
    return versions;
  }

  /**
   * The version the lake shows as of {@code seq}: the first whose txn version is at or above it (it
   * covers the seq, or a later batch does when the seq was not this table's); empty if no version
   * reaches the seq (the table holds everything it has up to its latest version).
   */
  public static Optional<Version> asOfSeq(List<Version> versions, long seq) {
    for (Version v : versions) {
      if (v.txnVersion() >= seq) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  static Operation operation(TableLog.Commit c) {
    if (c.adds().isEmpty() && c.removes().isEmpty()) {
      return Operation.METADATA;
    }
    if (c.rearrangesOnly()) {
      return Operation.COMPACTION;
    }
    return c.removes().isEmpty() ? Operation.DATA : Operation.REWRITE;
  }
}
