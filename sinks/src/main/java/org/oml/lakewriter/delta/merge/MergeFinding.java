package org.oml.lakewriter.delta.merge;

/**
 * Named findings of the silver MERGE: conditions that change nothing in the lake but that an
 * operator should see. Each is logged as {@code finding <NAME>: ...} and counted.
 */
public enum MergeFinding {
  /**
   * A retraction whose key has no silver row: its artifact was never promoted (a held claim) or its
   * promotion was dead-lettered. Silver is unchanged; the retraction is in bronze like every event.
   */
  RETRACT_WITHOUT_ROW,
  /**
   * A promotion of a key that silver already holds (in any state), or that the same batch promoted
   * before: a producer retry. Silver is unchanged, so a retried promotion never duplicates a row
   * and never brings a demoted or erased artifact back as active; bronze records the event.
   */
  PROMOTE_EXISTING_KEY
}
