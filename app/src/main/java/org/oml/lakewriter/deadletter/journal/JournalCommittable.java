package org.oml.lakewriter.deadletter.journal;

import java.util.List;

/**
 * The dead letters that the journal writer received between two checkpoint barriers. They are
 * inserted only once that checkpoint completes: the same moment the Delta committer commits the
 * batches that carry them to the lake's {@code dead_letter} tables.
 */
public record JournalCommittable(List<DeadLetterRecord> records) {
  public JournalCommittable {
    records = List.copyOf(records);
  }

  @Override
  public String toString() {
    return records.isEmpty()
        ? "JournalCommittable[]"
        : "JournalCommittable["
            + records.size()
            + " dead letters, seq "
            + records.get(0).seq()
            + ".."
            + records.get(records.size() - 1).seq()
            + "]";
  }
}
