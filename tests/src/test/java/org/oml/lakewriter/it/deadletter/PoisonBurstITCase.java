package org.oml.lakewriter.it.deadletter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * (d) A burst of 10,000 poison rows in a row, then good rows: the good rows behind the burst land,
 * and every poison row is dead-lettered once, in the lake and in the journal.
 *
 * <p>It also measures, in the same run and on the same job, how long {@value #GOOD} good rows take
 * from their commit to the committed frontier: twice on their own, once right behind the burst, and
 * once right behind as many good rows as the burst had poison rows (the control: what the same
 * volume of valid traffic costs). It prints the times and ratios. That is a measurement, not an
 * assertion: only correctness is asserted. The granularity is the checkpoint interval (200 ms): a
 * Delta commit happens when a checkpoint completes.
 */
class PoisonBurstITCase {
  static final int BURST = 10_000;
  static final int GOOD = 2_000;
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String[] CLASSES = {
    "UNKNOWN_KIND", "INVALID_TENANT", "DIGEST_MISMATCH", "MISSING_FIELD", "UNPARSEABLE_ENVELOPE"
  };

  @RegisterExtension static final MiniClusterExtension FLINK = Flink.miniCluster();

  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void goodRowsBehindTenThousandPoisonRowsLand() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Map<String, String> options = LakeWriterJobs.options(db, lake);
      options.put("checkpoint.interval", "200ms");
      options.put("horizon.tick-period", "100ms");
      LakeWriterConfig cfg = LakeWriterJobs.config(options);
      JobClient job = LakeWriterJobs.start(cfg, tmp.resolve("cp"), null, "poison-burst");
      try (Connection c = db.connect()) {
        Set<Long> good = new TreeSet<>(goodRows(c, "warm", 300));
        awaitFrontier(c, max(good), job);

        // Good rows on their own, twice (the spread is the noise of this measurement).
        List<Long> alone = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
          List<Long> seqs = goodRows(c, "alone" + round, GOOD);
          long committed = System.nanoTime();
          awaitFrontier(c, max(seqs), job);
          alone.add(millisSince(committed));
          good.addAll(seqs);
        }
        // Good rows right behind a burst of poison rows.
        long burstStart = System.nanoTime();
        burst(c);
        List<Long> seqs = goodRows(c, "behind-poison", GOOD);
        long committed = System.nanoTime();
        awaitFrontier(c, max(seqs), job);
        long behindPoison = millisSince(committed);
        long poisonTotal = millisSince(burstStart);
        good.addAll(seqs);
        // Control: good rows right behind as many good rows as the burst had poison rows.
        long controlStart = System.nanoTime();
        good.addAll(goodRows(c, "volume", BURST));
        seqs = goodRows(c, "behind-good", GOOD);
        committed = System.nanoTime();
        awaitFrontier(c, max(seqs), job);
        long behindGood = millisSince(committed);
        long controlTotal = millisSince(controlStart);
        good.addAll(seqs);

        long baseline = median(alone);
        System.out.printf(
            "%nPOISON BURST (issue #5): %,d good rows (1 in 4 a promotion), from their commit to"
                + " the committed frontier; same job, checkpoint interval 200 ms%n"
                + "  alone:                      %s ms%n"
                + "  behind %,d poison rows:    %d ms (from the burst's insert: %d ms)%n"
                + "  behind %,d good rows:      %d ms (from their insert: %d ms) [control]%n"
                + "  ratio behind-poison / alone:        %.2f%n"
                + "  ratio behind-poison / behind-good:  %.2f%n%n",
            GOOD,
            alone,
            BURST,
            behindPoison,
            poisonTotal,
            BURST,
            behindGood,
            controlTotal,
            behindPoison / (double) Math.max(1, baseline),
            behindPoison / (double) Math.max(1, behindGood));

        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        DeadLetterJournal journal = new DeadLetterJournal("public");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (journal.count(c, DeadLetterJournal.Filter.all()) < (long) BURST
            && System.nanoTime() < deadline) {
          Thread.sleep(100);
        }
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        Set<Long> bronze = new TreeSet<>(LakeDeadLetters.bronzeSeqs(reader, "acme"));
        assertThat(bronze).containsExactlyElementsOf(good);
        Map<Long, Integer> times = new HashMap<>();
        Map<String, Integer> lakeByClass = new HashMap<>();
        for (Map<String, Object> row : LakeDeadLetters.rows(reader)) {
          times.merge((Long) row.get("seq"), 1, Integer::sum);
          lakeByClass.merge((String) row.get("error_class"), 1, Integer::sum);
        }
        assertThat(times).hasSize(BURST);
        assertThat(times.values()).containsOnly(1);
        Map<String, Long> journalByClass = journal.countByErrorClass(c);
        for (String errorClass : CLASSES) {
          assertThat(lakeByClass.get(errorClass)).as(errorClass).isEqualTo(BURST / 5);
          assertThat(journalByClass.get(errorClass)).as(errorClass).isEqualTo(BURST / 5L);
        }
        assertThat(journalByClass.keySet()).containsExactlyInAnyOrder(CLASSES);
        LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
        assertThat(result.problems()).isEmpty();
        assertThat(result.outboxRows()).isEqualTo((long) good.size() + BURST);
      } finally {
        LakeWriterJobs.cancel(job, db);
      }
    }
  }

  /**
   * 10,000 poison rows in one transaction, 2,000 of each of five classes, in a fixed rotation:
   * unknown kind, invalid tenant, digest mismatch, missing envelope, unparseable envelope.
   */
  private static void burst(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
                + " ciphertext_digest, body, data_key_id, envelope)"
                + " SELECT CASE WHEN i % 5 = 1 THEN 'Bad Tenant!' ELSE 'acme' END,"
                + "   CASE i % 5 WHEN 0 THEN 'bogus' WHEN 2 THEN 'materialize' ELSE 'journal' END,"
                + "   'p-' || i, 1, 'wa', 'alice', 'alice@acme', 'bob', 'human', 'pd',"
                + "   CASE WHEN i % 5 = 2 THEN 'not-the-digest' END,"
                + "   CASE WHEN i % 5 = 2 THEN convert_to('garbled-' || i, 'UTF8') END, 'dek',"
                + "   CASE i % 5 WHEN 3 THEN NULL WHEN 4 THEN '{\"sig\": ' ELSE '{}' END"
                + " FROM generate_series(1, ?) AS i ORDER BY i")) {
      ps.setInt(1, BURST);
      ps.executeUpdate();
    }
  }

  /** Good rows of tenant acme in one transaction: journal events and promotions. */
  private static List<Long> goodRows(Connection c, String prefix, int count) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    c.setAutoCommit(false);
    for (int i = 0; i < count; i++) {
      String artifact = prefix + "-" + i;
      seqs.add(
          i % 4 == 0
              ? OutboxWriter.materialize(
                  c, "acme", artifact, 1, ("body-" + artifact).getBytes(UTF_8))
              : OutboxWriter.journal(c, "acme", artifact));
    }
    c.commit();
    c.setAutoCommit(true);
    return seqs;
  }

  private static void awaitFrontier(Connection c, long seq, JobClient job) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    try (PreparedStatement ps =
        c.prepareStatement("SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, LakeWriterJobs.WRITER);
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getLong(1) >= seq) {
            return;
          }
        }
        if (job.getJobStatus().get().isGloballyTerminalState()) {
          throw new AssertionError("the job ended: " + job.getJobStatus().get());
        }
        Thread.sleep(20);
      }
    }
    throw new AssertionError("committed frontier never reached " + seq);
  }

  private static long max(java.util.Collection<Long> seqs) {
    return seqs.stream().mapToLong(Long::longValue).max().orElseThrow();
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
