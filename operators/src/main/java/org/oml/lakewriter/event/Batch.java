package org.oml.lakewriter.event;

import java.util.List;
import java.util.Objects;

/**
 * A cut of the outbox over {@code (frontier, batchEnd]}: every row of that range, in seq order.
 * Rows that failed validation are carried with their error. A batch can be empty: the range then
 * held only rolled-back seqs and the frontier steps over them.
 */
public record Batch(long frontier, long batchEnd, List<OutboxEvent> events) {
  public Batch {
    Objects.requireNonNull(events, "events");
    if (batchEnd <= frontier) {
      throw new IllegalArgumentException(
          "batchEnd " + batchEnd + " must be above frontier " + frontier);
    }
    long previous = frontier;
    for (OutboxEvent event : events) {
      if (event.seq() <= previous || event.seq() > batchEnd) {
        throw new IllegalArgumentException(
            "seq " + event.seq() + " out of order or outside (" + frontier + ", " + batchEnd + "]");
      }
      previous = event.seq();
    }
    events = List.copyOf(events);
  }

  @Override
  public String toString() {
    return "Batch(" + frontier + ", " + batchEnd + "] rows=" + events.size();
  }
}
