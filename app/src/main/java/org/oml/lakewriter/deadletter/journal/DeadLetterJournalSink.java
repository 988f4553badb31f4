package org.oml.lakewriter.deadletter.journal;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The PostgreSQL dead-letter journal: the sink of the batch cut's dead-letter side output ({@link
 * org.oml.lakewriter.deadletter.DeadLetters#TAG}). Each dead letter becomes one {@code
 * materialize-skipped} record in {@code oml_lake_dead_letter}, inserted idempotently by seq.
 *
 * <p><b>The lake is the authority.</b> Every dead letter is also in its tenant's {@code
 * dead_letter} Delta table (or {@code _invalid/dead_letter}), committed in the same Delta commit as
 * its batch under the batch's txn version; that table is what recovery and the exactly-once
 * argument rest on. This journal is the copy that operators ({@code lakewriter dead-letters list})
 * and the reconciler query, and where a requeue is recorded ({@code lakewriter dead-letters
 * requeue}). A journal that lags or misses a record never changes what the lake holds.
 *
 * <pre>
 *  [batch-cut] --side output: OutboxEvent with error--> DeadLetterJournalWriter
 *        (barrier: one JournalCommittable per checkpoint, in Flink state until it completes)
 *     --> DeadLetterJournalCommitter: INSERT ... ON CONFLICT (seq) DO NOTHING, one transaction
 * </pre>
 *
 * <p>Two-phase like the Delta sink: records are inserted only after the checkpoint that carries
 * them completes, which is when the Delta committer commits the batches they came in. So the
 * journal does not announce a skip whose batch a failover could still discard, and a restore
 * re-commits (idempotently) whatever the last checkpoint held. A replay of the same rows, after a
 * restore or a start without state, inserts nothing: the seq is the primary key.
 *
 * <p>Metrics of the committer (group {@code lakewriter}, docs/metrics.md): a counter {@code
 * deadLetters} per error class, labelled {@code errorClass} (dead letters newly journalled by this
 * run) and {@code deadLettersAlreadyJournalled} (replays that
 * found their record already there).
 *
 * <p>The sink runs at parallelism one, like the rest of the job.
 */
public final class DeadLetterJournalSink
    implements Sink<OutboxEvent>, SupportsCommitter<JournalCommittable> {
  private static final long serialVersionUID = 1L;

  private final String jdbcUrl;
  private final Properties connectionProperties;
  private final String schema;
  private final String writerId;
  private final Duration retryWindow;

  /** With the default retry window of the journal's commits, 10 s. */
  public DeadLetterJournalSink(
      String jdbcUrl, Properties connectionProperties, String schema, String writerId) {
    this(jdbcUrl, connectionProperties, schema, writerId, Duration.ofSeconds(10));
  }

  /**
   * @param connectionProperties JDBC properties ({@code user}, {@code password}); copied, never
   *     printed
   * @param schema the schema of the outbox contract ({@code postgres.schema})
   * @param writerId this writer's id, recorded with each dead letter
   * @param retryWindow how long a commit retries PostgreSQL before it gives its records up
   *     ({@code journal.retry-window}; see {@link DeadLetterJournalCommitter})
   */
  public DeadLetterJournalSink(
      String jdbcUrl,
      Properties connectionProperties,
      String schema,
      String writerId,
      Duration retryWindow) {
    this.retryWindow = Objects.requireNonNull(retryWindow, "retryWindow");
    this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    this.connectionProperties = new Properties();
    this.connectionProperties.putAll(connectionProperties);
    this.schema = OutboxContract.requireIdentifier("schema", schema);
    this.writerId = Objects.requireNonNull(writerId, "writerId");
  }

  @Override
  public DeadLetterJournalWriter createWriter(WriterInitContext context) {
    requireSingleSubtask(context.getTaskInfo().getNumberOfParallelSubtasks());
    return new DeadLetterJournalWriter(writerId, Clock.systemUTC());
  }

  /** Flink 1.20 still declares this; the runtime calls the {@link WriterInitContext} variant. */
  @Override
  @Deprecated
  public SinkWriter<OutboxEvent> createWriter(InitContext context) {
    throw new UnsupportedOperationException(
        "DeadLetterJournalSink needs Flink's WriterInitContext (Flink 1.19+)");
  }

  @Override
  public Committer<JournalCommittable> createCommitter(CommitterInitContext context)
      throws IOException {
    requireSingleSubtask(context.getTaskInfo().getNumberOfParallelSubtasks());
    return new DeadLetterJournalCommitter(
        jdbcUrl,
        connectionProperties,
        new DeadLetterJournal(schema),
        context.metricGroup(),
        retryWindow,
        Thread::sleep);
  }

  @Override
  public SimpleVersionedSerializer<JournalCommittable> getCommittableSerializer() {
    return new JournalCommittableSerializer();
  }

  private static void requireSingleSubtask(int parallelism) {
    if (parallelism != 1) {
      throw new IllegalStateException(
          "DeadLetterJournalSink runs at parallelism 1 like the rest of the lake writer, got "
              + parallelism);
    }
  }

  @Override
  public String toString() {
    // Never print the properties: they hold the password.
    return "DeadLetterJournalSink{writer="
        + writerId
        + ", url="
        + jdbcUrl.replaceAll("\\?.*", "")
        + ", schema="
        + schema
        + "}";
  }
}
