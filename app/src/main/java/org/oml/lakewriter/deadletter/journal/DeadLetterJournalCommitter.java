package org.oml.lakewriter.deadletter.journal;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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
import org.oml.lakewriter.metrics.LakeWriterMetrics;
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
 *   <li>The journal never fails the lake's commits or the job: it is not the authority (the lake's
 *       {@code dead_letter} tables, committed with each batch, are). A failure of PostgreSQL rolls
 *       the transaction back and is retried here, backing off (100 ms, doubling, at most 2 s),
 *       within {@code retryWindow}. (Flink 1.20's own {@code retryLater} retries at once, ten
 *       times within milliseconds, and then fails the job over: a two-second blip would do it.)
 *       After the window the committable's records are given up: counted in {@code
 *       journalRecordsBehind}, logged as finding {@code JOURNAL_BEHIND} with their seqs, and the
 *       committer turns <em>behind</em>: later commits try once, without the window, until one
 *       succeeds (so an outage costs the task thread one attempt per checkpoint, not a window).
 *       {@code lakewriter dead-letters sync} brings the journal back in step from the lake.
 *   <li>Metrics (group {@code lakewriter}) count records by error class when they are new: counter
 *       {@code deadLetters} in the key-value group {@code errorClass=<ERROR_CLASS>}, a label in
 *       Prometheus ({@code ..._lakewriter_errorClass_deadLetters{errorClass="UNKNOWN_KIND"}});
 *       replays count in {@code deadLettersAlreadyJournalled}.
 * </ul>
 */
public final class DeadLetterJournalCommitter implements Committer<JournalCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterJournalCommitter.class);
  static final String ALREADY_JOURNALLED = LakeWriterMetrics.DEAD_LETTERS_ALREADY_JOURNALLED;

  private final LazyConnection connection;
  private final DeadLetterJournal journal;
  private final MetricGroup metrics;
  private final Map<String, Counter> counters = new LinkedHashMap<>();
  private final Counter alreadyJournalled;
  private final Duration retryWindow;
  private final Sleeper sleeper;
  private final Counter recordsBehind;
  private volatile boolean behind;

  /** Waits between attempts; a test passes one that does not sleep. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  static final String RECORDS_BEHIND = LakeWriterMetrics.JOURNAL_RECORDS_BEHIND;
  static final String BEHIND = LakeWriterMetrics.JOURNAL_BEHIND;

  public DeadLetterJournalCommitter(
      String jdbcUrl,
      Properties connectionProperties,
      DeadLetterJournal journal,
      MetricGroup metrics) {
    this(jdbcUrl, connectionProperties, journal, metrics, Duration.ofSeconds(10), Thread::sleep);
  }

  /** @param retryWindow how long one commit retries before it gives its records up */
  public DeadLetterJournalCommitter(
      String jdbcUrl,
      Properties connectionProperties,
      DeadLetterJournal journal,
      MetricGroup operatorMetrics,
      Duration retryWindow,
      Sleeper sleeper) {
    MetricGroup metrics = LakeWriterMetrics.group(operatorMetrics);
    this.retryWindow = retryWindow;
    this.sleeper = sleeper;
    // The driver itself, not DriverManager: under a child-first user class loader DriverManager
    // may find no suitable driver (STACK-NOTES, session cluster).
    this.connection =
        new LazyConnection(
            () -> org.oml.lakewriter.jdbc.PgDriver.connect(jdbcUrl, connectionProperties), false);
    this.recordsBehind = metrics.counter(RECORDS_BEHIND);
    metrics.gauge(BEHIND, () -> behind ? 1 : 0);
    this.journal = journal;
    this.metrics = metrics;
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
      boolean wasBehind = behind;
      Set<Long> inserted = insertWithinWindow(request.getCommittable());
      if (inserted == null) {
        giveUp(request, wasBehind);
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

  /**
   * Inserts the committable's records, retrying with back-off within the window (a single attempt
   * while behind); null once it gives up.
   */
  private Set<Long> insertWithinWindow(JournalCommittable committable) {
    long deadline = System.nanoTime() + (behind ? 0 : retryWindow.toNanos());
    long backoff = 100;
    for (int attempt = 1; ; attempt++) {
      try {
        Set<Long> inserted = insert(committable.records());
        if (behind) {
          behind = false;
          LOG.warn(
              "dead-letter journal reachable again; records given up before are still missing"
                  + " until `lakewriter dead-letters sync` runs");
        }
        return inserted;
      } catch (SQLException | RuntimeException e) {
        connection.discard();
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          LOG.warn("{}: could not journal (attempt {}): {}", committable, attempt, e.toString());
          return null;
        }
        LOG.warn(
            "{}: could not journal (attempt {}), retrying in {} ms: {}",
            committable, attempt, Math.min(backoff, left), e.toString());
        try {
          sleeper.sleep(Math.min(backoff, left));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return null;
        }
        backoff = Math.min(2_000, backoff * 2);
      }
    }
  }

  /**
   * The journal stays behind for these records; the lake has them. Flink drops the committable
   * ({@code signalFailedWithKnownReason}), which never fails the job.
   */
  private void giveUp(CommitRequest<JournalCommittable> request, boolean wasBehind) {
    List<DeadLetterRecord> records = request.getCommittable().records();
    behind = true;
    recordsBehind.inc(records.size());
    LOG.error(
        "finding JOURNAL_BEHIND: {} dead letter(s) (seqs {}..{}) could not be written to the"
            + " PostgreSQL journal within {}; the lake's dead_letter tables hold them and the job"
            + " goes on. Run `lakewriter dead-letters sync` once PostgreSQL is back to bring the"
            + " journal in step.",
        records.size(),
        records.get(0).seq(),
        records.get(records.size() - 1).seq(),
        wasBehind ? "one attempt (the journal is behind already)" : retryWindow.toString());
    request.signalFailedWithKnownReason(
        new java.io.IOException(
            "JOURNAL_BEHIND: " + records.size() + " dead letters not journalled; run"
                + " `lakewriter dead-letters sync`"));
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
    // One series per class, the class a label: a rule over every class is one expression.
    return counters.computeIfAbsent(
        errorClass,
        c ->
            metrics
                .addGroup(LakeWriterMetrics.ERROR_CLASS, c)
                .counter(LakeWriterMetrics.DEAD_LETTERS));
  }

  @Override
  public void close() {
    connection.close();
  }
}
