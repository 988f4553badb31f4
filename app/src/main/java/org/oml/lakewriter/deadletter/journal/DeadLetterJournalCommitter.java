package org.oml.lakewriter.deadletter.journal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase of the journal, run by Flink once the checkpoint holding the committables has
 * completed: each committable's records are inserted in one PostgreSQL transaction, {@code ON
 * CONFLICT (seq) DO NOTHING}.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Idempotent: a committable committed twice (a restore re-commits what the last checkpoint
 *       held) or a dead letter cut twice (a start without state re-reads the outbox) leaves one
 *       record per seq. Records need no order among themselves, so committables commit
 *       independently.
 *   <li>A failure of PostgreSQL rolls the transaction back and hands the committable back to Flink
 *       ({@code retryLater}); Flink retries a bounded number of times and then fails over, and the
 *       committable, still in the checkpoint, is committed after the restore. Nothing is dropped.
 *   <li>Metrics count records by error class when they are new: {@code deadLetters.<ERROR_CLASS>};
 *       replays count in {@code deadLettersAlreadyJournalled}.
 * </ul>
 */
public final class DeadLetterJournalCommitter implements Committer<JournalCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterJournalCommitter.class);
  static final String GROUP = "deadLetters";
  static final String ALREADY_JOURNALLED = "deadLettersAlreadyJournalled";

  private final LazyConnection connection;
  private final DeadLetterJournal journal;
  private final MetricGroup byClass;
  private final Map<String, Counter> counters = new LinkedHashMap<>();
  private final Counter alreadyJournalled;

  public DeadLetterJournalCommitter(
      String jdbcUrl,
      Properties connectionProperties,
      DeadLetterJournal journal,
      MetricGroup metrics) {
    this.connection =
        new LazyConnection(() -> DriverManager.getConnection(jdbcUrl, connectionProperties), false);
    this.journal = journal;
    this.byClass = metrics.addGroup(GROUP);
    // Registered up front, so that a dashboard shows a zero rather than no series.
    for (ErrorClass errorClass : ErrorClass.values()) {
      counter(errorClass.name());
    }
    this.alreadyJournalled = metrics.counter(ALREADY_JOURNALLED);
  }

  @Override
  public void commit(Collection<CommitRequest<JournalCommittable>> requests) {
    for (CommitRequest<JournalCommittable> request : requests) {
      List<DeadLetterRecord> records = request.getCommittable().records();
      if (records.isEmpty()) {
        continue;
      }
      Set<Long> inserted;
      try {
        inserted = insert(records);
      } catch (SQLException e) {
        connection.discard();
        LOG.warn(
            "{}: could not journal (attempt {}), retrying: {}",
            request.getCommittable(),
            request.getNumberOfRetries() + 1,
            e.toString());
        request.retryLater();
        continue;
      }
      Map<String, Integer> newByClass = new TreeMap<>();
      int replayed = 0;
      for (DeadLetterRecord r : records) {
        if (inserted.remove(r.seq())) {
          counter(r.errorClass()).inc();
          newByClass.merge(r.errorClass(), 1, Integer::sum);
        } else {
          replayed++;
        }
      }
      alreadyJournalled.inc(replayed);
      LOG.info(
          "{}: journalled {} new dead letters {}, {} already journalled",
          request.getCommittable(),
          records.size() - replayed,
          newByClass,
          replayed);
      if (replayed == records.size()) {
        request.signalAlreadyCommitted();
      }
    }
  }

  private Set<Long> insert(List<DeadLetterRecord> records) throws SQLException {
    Connection c = connection.get();
    try {
      Set<Long> inserted = journal.insert(c, records);
      c.commit();
      return inserted;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException ignored) {
        // The connection is dropped right after.
      }
      throw e;
    }
  }

  private Counter counter(String errorClass) {
    return counters.computeIfAbsent(errorClass, byClass::counter);
  }

  @Override
  public void close() {
    connection.close();
  }
}
