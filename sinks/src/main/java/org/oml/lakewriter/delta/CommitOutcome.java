package org.oml.lakewriter.delta;

/** What a commit of one batch to one table did. Both outcomes mean the batch is in the table. */
public enum CommitOutcome {
  /** This call wrote the commit that carries {@code txn(oml-lakewriter, batchEnd)}. */
  COMMITTED,
  /**
   * The table already records a txn version at or above {@code batchEnd}: an earlier attempt, or a
   * racing writer with the same application id, got there first. Nothing was written.
   */
  ALREADY_APPLIED
}
