package org.oml.lakewriter.deadletter.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.connect;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.digestMismatch;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.record;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.scalar;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.unknownKind;
import static org.oml.lakewriter.deadletter.journal.JournalFixtures.sealedBody;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/** The journal's two phases without Flink: writer hand-over, committer inserts and metrics. */
class DeadLetterJournalCommitterTest {
  private static EmbeddedPostgresServer pg;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void commitsOnceAndCountsByErrorClassThenCountsReplays() throws Exception {
    String url = JournalFixtures.database(pg);
    JournalCommittable committable;
    try (Connection c = connect(url)) {
      long a = digestMismatch(c, "acme", sealedBody("right"), sealedBody("wrong"));
      long b = unknownKind(c, "acme");
      long d = unknownKind(c, "acme");
      committable =
          new JournalCommittable(
              List.of(
                  record(c, a, ErrorClass.DIGEST_MISMATCH, "m"),
                  record(c, b, ErrorClass.UNKNOWN_KIND, "m"),
                  record(c, d, ErrorClass.UNKNOWN_KIND, "m")));
    }
    Recording metrics = new Recording();
    try (DeadLetterJournalCommitter committer = committer(url, metrics)) {
      assertThat(metrics.counters)
          .containsKeys(
              "lakewriter.errorClass.MALFORMED_ROW.deadLetters",
              "lakewriter.errorClass.DEPENDENCY_UNAVAILABLE.deadLetters",
              "lakewriter.deadLettersAlreadyJournalled");
      Request first = new Request(committable);
      committer.commit(List.of(first));
      assertThat(first.outcome).isEqualTo("committed");
      assertThat(metrics.count("lakewriter.errorClass.DIGEST_MISMATCH.deadLetters")).isEqualTo(1);
      assertThat(metrics.count("lakewriter.errorClass.UNKNOWN_KIND.deadLetters")).isEqualTo(2);
      assertThat(metrics.count("lakewriter.errorClass.BODY_TOO_LARGE.deadLetters")).isZero();

      // A restore re-commits what the checkpoint held: nothing is added, the replay is counted.
      Request again = new Request(committable);
      committer.commit(List.of(again));
      assertThat(again.outcome).isEqualTo("alreadyCommitted");
      assertThat(metrics.count("lakewriter.errorClass.UNKNOWN_KIND.deadLetters")).isEqualTo(2);
      assertThat(metrics.count("lakewriter.deadLettersAlreadyJournalled")).isEqualTo(3);
    }
    try (Connection c = connect(url)) {
      assertThat(scalar(c, "SELECT count(*) FROM oml_lake_dead_letter")).isEqualTo(3);
    }
  }

  /**
   * Issue 11 item 9: the journal is not the authority and never fails the job. An unreachable
   * database is retried with back-off within the window, then the records are given up (counted,
   * JOURNAL_BEHIND), never handed back to Flink's immediate retries that end in a failover; while
   * behind, a commit makes one attempt; the first success clears the state.
   */
  @Test
  void anUnreachableDatabaseIsRetriedWithBackOffWithinTheWindowThenGivenUpWithoutFailingTheJob()
      throws Exception {
    String url = JournalFixtures.database(pg);
    JournalCommittable committable;
    try (Connection c = connect(url)) {
      committable =
          new JournalCommittable(
              List.of(record(c, unknownKind(c, "acme"), ErrorClass.UNKNOWN_KIND, "m")));
    }
    Recording metrics = new Recording();
    String wrong = url.replace("/oml_dl_", "/no_such_db_");
    List<Long> sleeps = new java.util.ArrayList<>();
    DeadLetterJournalCommitter.Sleeper sleeper =
        millis -> {
          sleeps.add(millis);
          Thread.sleep(millis);
        };
    try (DeadLetterJournalCommitter committer =
        new DeadLetterJournalCommitter(
            wrong, properties(), new DeadLetterJournal("public"), metrics,
            java.time.Duration.ofMillis(700), sleeper)) {
      Request request = new Request(committable);
      committer.commit(List.of(request));
      assertThat(request.outcome).startsWith("failed: ").contains("JOURNAL_BEHIND");
      assertThat(sleeps).hasSizeGreaterThanOrEqualTo(2);
      assertThat(sleeps.get(0)).isEqualTo(100L);
      assertThat(sleeps.get(1)).isEqualTo(200L);
      assertThat(metrics.count("lakewriter.journalRecordsBehind")).isEqualTo(1);
      assertThat(metrics.count("lakewriter.errorClass.UNKNOWN_KIND.deadLetters")).isZero();

      // Behind: the next commit makes a single attempt, no window.
      sleeps.clear();
      Request next = new Request(committable);
      committer.commit(List.of(next));
      assertThat(next.outcome).contains("JOURNAL_BEHIND");
      assertThat(sleeps).isEmpty();
      assertThat(metrics.count("lakewriter.journalRecordsBehind")).isEqualTo(2);
    }
  }

  @Test
  void theWriterHandsOverRecordsAtTheBarrierWithoutTheBody() {
    Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05.000006Z"), ZoneOffset.UTC);
    DeadLetterJournalWriter writer = new DeadLetterJournalWriter("w9", clock);
    assertThat(writer.prepareCommit()).isEmpty();
    writer.write(
        OutboxEvent.builder()
            .seq(7)
            .tenantId("acme")
            .kind("materialize")
            .body(new byte[5000])
            .error(new RowError(ErrorClass.BODY_TOO_LARGE, "body of 5000 bytes"))
            .build(),
        null);
    writer.write(OutboxEvent.builder().seq(8).tenantId("acme").kind("journal").build(), null);

    List<JournalCommittable> handed = new ArrayList<>(writer.prepareCommit());
    assertThat(handed).hasSize(1);
    assertThat(handed.get(0).records()).hasSize(1);
    DeadLetterRecord r = handed.get(0).records().get(0);
    assertThat(r.seq()).isEqualTo(7);
    assertThat(r.writerId()).isEqualTo("w9");
    assertThat(r.errorClass()).isEqualTo("BODY_TOO_LARGE");
    assertThat(r.bodyBytes()).isEqualTo(5000L);
    assertThat(r.bodySha256()).hasSize(64);
    assertThat(r.firstFailureMicros()).isEqualTo(1_767_323_045_000_006L);
    assertThat(writer.prepareCommit()).isEmpty();
  }

  private static DeadLetterJournalCommitter committer(String url, MetricGroup metrics) {
    return new DeadLetterJournalCommitter(url, properties(), new DeadLetterJournal("public"), metrics);
  }

  private static Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", EmbeddedPostgresServer.USER);
    p.setProperty("password", "");
    return p;
  }

  /** Records counters by their dotted name. */
  static final class Recording extends UnregisteredMetricsGroup {
    final Map<String, Counter> counters;
    private final String prefix;

    Recording() {
      this(new ConcurrentHashMap<>(), "");
    }

    private Recording(Map<String, Counter> counters, String prefix) {
      this.counters = counters;
      this.prefix = prefix;
    }

    @Override
    public Counter counter(String name) {
      return counter(name, new SimpleCounter());
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
      counters.put(prefix + name, counter);
      return counter;
    }

    @Override
    public MetricGroup addGroup(String name) {
      return new Recording(counters, prefix + name + ".");
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
      return new Recording(counters, prefix + key + "." + value + ".");
    }

    long count(String name) {
      return counters.get(name).getCount();
    }
  }

  static final class Request implements CommitRequest<JournalCommittable> {
    private final JournalCommittable committable;
    String outcome = "committed";

    Request(JournalCommittable committable) {
      this.committable = committable;
    }

    @Override
    public JournalCommittable getCommittable() {
      return committable;
    }

    @Override
    public int getNumberOfRetries() {
      return 0;
    }

    @Override
    public void signalFailedWithKnownReason(Throwable t) {
      outcome = "failed: " + t;
    }

    @Override
    public void signalFailedWithUnknownReason(Throwable t) {
      outcome = "failed: " + t;
    }

    @Override
    public void retryLater() {
      outcome = "retryLater";
    }

    @Override
    public void updateAndRetryLater(JournalCommittable committable) {
      outcome = "updateAndRetryLater";
    }

    @Override
    public void signalAlreadyCommitted() {
      outcome = "alreadyCommitted";
    }
  }
}
