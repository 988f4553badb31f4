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
  RETRACT_WITHOUT_ROW
}
