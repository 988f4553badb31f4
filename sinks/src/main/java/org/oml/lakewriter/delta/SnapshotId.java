package org.oml.lakewriter.delta;

/**
 * Which state of a table something was read from: the Delta log version of its latest snapshot and
 * that snapshot's txn version for {@code oml-lakewriter}. A table that does not exist is {@link
 * #ABSENT}: version -1, txn version {@link DeltaTableClient#NO_VERSION}.
 *
 * <p>The log version counts every commit, this writer's and any other engine's (an OPTIMIZE, a
 * manual repair); the txn version only moves with this writer's batches. Comparing the two over
 * time is how a reader of the table tells whether someone else committed in between.
 */
public record SnapshotId(long version, long txnVersion) {
  public static final SnapshotId ABSENT = new SnapshotId(-1L, DeltaTableClient.NO_VERSION);

  public boolean exists() {
    return version >= 0;
  }
}
