package org.oml.lakewriter.deadletter;

import org.apache.flink.util.OutputTag;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.serde.StreamTypes;

/**
 * The dead-letter side output of the batch cut: every row that carries an error, as it leaves the
 * stream. The row itself still travels in its batch, so that the sink journals it in the lake's
 * {@code dead_letter} table under the batch's txn version; the side output is for operators and
 * for the PostgreSQL dead-letter journal.
 */
public final class DeadLetters {
  public static final OutputTag<OutboxEvent> TAG =
      new OutputTag<>("dead-letters", StreamTypes.OUTBOX_EVENT);

  private DeadLetters() {}
}
