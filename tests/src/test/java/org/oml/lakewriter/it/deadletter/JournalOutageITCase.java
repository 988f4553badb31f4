package org.oml.lakewriter.it.deadletter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.JobMetrics;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.OutboxWriter;

/**
 * Issue 11 item 9, the journal half, on real parts: the PostgreSQL dead-letter journal is not the
 * authority (the lake's dead_letter tables are) and must never fail the lake's commits or the job.
 * The journal's table goes away (renamed) while poison rows arrive: the lake commits go on, the job
 * does not fail over, the given-up records are counted, and {@code lakewriter dead-letters sync}
 * brings the journal back in step from the lake. Before, the committer's {@code retryLater}
 * retried ten times within milliseconds and then failed the job.
 */
class JournalOutageITCase extends LakeJobITBase {
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension static final MiniClusterExtension FLINK = cluster(REPORTER);


  @Test
  void anUnavailableJournalNeverStopsTheLakeAndSyncBringsItBackInStep() throws Exception {
    options.put("journal.retry-window", "1s");
    JobClient job = start("journal-outage", tmp.resolve("cp"), null);
    JobMetrics metrics = new JobMetrics(REPORTER, job.getJobID());
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "before");
    }
    awaitFrontier(outboxHead());

    db.execute("ALTER TABLE oml_lake_dead_letter RENAME TO oml_lake_dead_letter_away");
    List<Long> poison = new ArrayList<>();
    try (Connection c = db.connect()) {
      for (int i = 0; i < 3; i++) {
        poison.add(PoisonRows.digestMismatch(c, i % 2 == 0 ? "acme" : "globex", "p-" + i));
        OutboxWriter.materialize(c, "acme", "good-" + i, 1, ("body-" + i).getBytes(UTF_8));
      }
    }
    awaitFrontier(outboxHead());
    await(() -> metrics.counter("journalRecordsBehind") >= poison.size(), "records given up");
    assertThat(metrics.gauge("journalBehind")).isEqualTo(1);

    // The lake goes on committing, and holds the dead letters (it is the authority).
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "globex", "after");
      poison.add(PoisonRows.digestMismatch(c, "globex", "p-late"));
    }
    awaitFrontier(outboxHead());
    await(() -> metrics.counter("journalRecordsBehind") >= poison.size(), "the late one too");
    assertThat(lakeDeadLetterSeqs()).containsExactlyInAnyOrderElementsOf(poison);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(metrics.restarts()).isZero();

    // The journal is back, but behind: sync brings it in step, from the lake.
    db.execute("ALTER TABLE oml_lake_dead_letter_away RENAME TO oml_lake_dead_letter");
    assertThat(journalled()).isZero();
    CliRun.Result sync = CliRun.run(options, "dead-letters", "sync");
    assertThat(sync.exitCode()).as(sync.err()).isZero();
    assertThat(sync.out()).contains(poison.size() + " newly journalled");
    try (Connection c = db.connect()) {
      List<DeadLetterJournal.Entry> entries = journal.list(c, DeadLetterJournal.Filter.all());
      assertThat(entries).extracting(DeadLetterJournal.Entry::seq).containsExactlyElementsOf(new TreeSet<>(poison));
      assertThat(entries).extracting(DeadLetterJournal.Entry::errorClass).containsOnly("DIGEST_MISMATCH");
      assertThat(entries).extracting(DeadLetterJournal.Entry::bodySha256).doesNotContainNull();
    }
    CliRun.Result again = CliRun.run(options, "dead-letters", "sync");
    assertThat(again.out()).contains("0 newly journalled");

    // And the job journals new dead letters again.
    long next;
    try (Connection c = db.connect()) {
      next = PoisonRows.digestMismatch(c, "acme", "p-next");
    }
    awaitFrontier(next);
    await(() -> {
      try {
        return journalled() == poison.size() + 1;
      } catch (Exception e) {
        return false;
      }
    }, "the next dead letter journalled by the job");
    await(() -> metrics.gauge("journalBehind") == 0, "the journal no longer behind");
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  private List<Long> lakeDeadLetterSeqs() throws Exception {
    List<Long> seqs = new ArrayList<>();
    for (Map<String, Object> row : LakeDeadLetters.rows(reader())) {
      seqs.add((Long) row.get("seq"));
    }
    return seqs;
  }
}
