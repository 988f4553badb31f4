package org.oml.lakewriter.deadletter.journal;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.oml.lakewriter.event.OutboxEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first phase of the journal: turns each dead letter into its record (the body replaced by its
 * sha256 at once, so no body reaches Flink state) and hands them over at each checkpoint barrier as
 * one {@link JournalCommittable}. Keeps no state of its own: what it received before a barrier is
 * in that barrier's committable, and what it received after is replayed by the cut on a restore.
 */
public final class DeadLetterJournalWriter
    implements CommittingSinkWriter<OutboxEvent, JournalCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger("org.oml.lakewriter.deadletters");

  private final String writerId;
  private final Clock clock;
  private List<DeadLetterRecord> pending = new ArrayList<>();

  public DeadLetterJournalWriter(String writerId, Clock clock) {
    this.writerId = writerId;
    this.clock = clock;
  }

  @Override
  public void write(OutboxEvent row, Context context) {
    if (row.error() == null) {
      // The cut sends only rows with an error to the side output; a valid row is not a skip.
      LOG.error(
          "seq {} reached the dead-letter journal without an error; not journalled", row.seq());
      return;
    }
    LOG.debug(
        "dead letter seq={} tenant={} kind={} {}: {}",
        row.seq(),
        row.tenantId(),
        row.kind(),
        row.error().errorClass(),
        row.error().message());
    pending.add(DeadLetterRecord.of(row, writerId, micros(clock.instant())));
  }

  @Override
  public void flush(boolean endOfInput) {
    // Records wait for the barrier in memory; they are inserted once the checkpoint completes.
  }

  @Override
  public Collection<JournalCommittable> prepareCommit() {
    if (pending.isEmpty()) {
      return List.of();
    }
    JournalCommittable committable = new JournalCommittable(pending);
    pending = new ArrayList<>();
    return List.of(committable);
  }

  @Override
  public void close() {
    pending.clear();
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }
}
