package org.oml.lakewriter.it.deadletter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.JobMetrics;
import org.oml.lakewriter.it.support.LakeDeadLetters;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.validate.EventValidator;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Poison rows on real parts (issue #5): the production job ({@code LakeWriterJob.build}) on
 * embedded PostgreSQL and a MiniCluster without a restart strategy, the lake read back with
 * Kernel's scan ({@link LakeReader}), the journal read from PostgreSQL, metrics from an in-memory
 * reporter. Each poison row must be in the lake's dead-letter tables exactly once and in the
 * PostgreSQL journal exactly once, the frontier must pass it, and the job must never fail over.
 */
class DeadLetterITCase {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String[] TENANTS = {"acme", "globex"};
  private static final AtomicInteger ARTIFACTS = new AtomicInteger();
  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final MiniClusterExtension FLINK = Flink.miniCluster(clusterConfiguration());

  /** Metrics in memory; completed checkpoints kept (the replay restores an older one). */
  private static Configuration clusterConfiguration() {
    Configuration conf = REPORTER.addToConfiguration(new Configuration());
    conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1000);
    return conf;
  }

  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;
  private TestDatabase db;
  private Path lake;
  private Map<String, String> options;
  private LakeWriterConfig cfg;
  private final List<JobClient> jobs = new ArrayList<>();
  private final DeadLetterJournal journal = new DeadLetterJournal("public");

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create(pg);
    lake = tmp.resolve("lake");
    options = LakeWriterJobs.options(db, lake);
    options.put("body.max-bytes", PoisonRows.MAX_BODY + "b");
    options.put("batch.max-rows", "7");
    cfg = LakeWriterJobs.config(options);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        LakeWriterJobs.cancel(job, db);
      }
    }
    db.close();
  }

  /** (a) Every permanent class a contract table can hold, among good rows. */
  @Test
  void everyPoisonRowIsDeadLetteredOnceInTheLakeAndTheJournalAndTheStreamGoesOn() throws Exception {
    List<Long> good = new ArrayList<>();
    Map<Long, ErrorClass> poison = new LinkedHashMap<>();
    try (Connection c = db.connect()) {
      good.addAll(goodRows(c, 0, 10)); // read by the snapshot phase
    }
    JobClient job = start(null);
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int round = 0; round < 2; round++) {
        String tenant = TENANTS[round];
        good.addAll(goodRows(c, 100 * (round + 1), 5));
        c.commit();
        // Each poison row between good rows of the same transaction.
        for (Map.Entry<Long, ErrorClass> e : PoisonRows.everyClass(c, tenant).entrySet()) {
          poison.put(e.getKey(), e.getValue());
          good.addAll(goodRows(c, (int) (1000 + e.getKey()), 2));
        }
        c.commit();
      }
      c.setAutoCommit(true);
    }
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    awaitFrontier(max);
    awaitJournal(poison.size());

    LakeReader reader = reader();
    assertDeadLetteredExactlyOnce(reader, poison);
    for (long seq : poison.keySet()) {
      assertThat(seq).isLessThanOrEqualTo(CommittedFrontier.read(db, LakeWriterJobs.WRITER));
    }
    Set<Long> bronze = new TreeSet<>();
    for (String tenant : TENANTS) {
      bronze.addAll(LakeDeadLetters.bronzeSeqs(reader, tenant));
    }
    assertThat(bronze).containsExactlyInAnyOrderElementsOf(good);
    assertVerifies(reader, max);

    // The lake's dead-letter row keeps the body's digest, never the body.
    Map<String, Object> mismatch =
        LakeDeadLetters.rows(reader).stream()
            .filter(r -> "DIGEST_MISMATCH".equals(r.get("error_class")))
            .findFirst()
            .orElseThrow();
    assertThat(mismatch).doesNotContainKey("body");
    assertThat(mismatch.get("body_sha256")).isEqualTo(EventValidator.sha256Hex(PoisonRows.GARBLED));

    // Never failed over: no restart strategy, so a failure would have ended the job.
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    JobMetrics metrics = new JobMetrics(REPORTER, job.getJobID());
    assertThat(metrics.restarts()).isZero();
    for (ErrorClass errorClass : ErrorClass.values()) {
      long expected = poison.values().stream().filter(errorClass::equals).count();
      assertThat(metrics.deadLetters(errorClass.name()))
          .as("metric deadLetters.%s", errorClass)
          .isEqualTo(expected);
    }
    assertThat(metrics.alreadyJournalled()).isZero();
  }

  /**
   * (b) Replay: restore from a checkpoint taken before the poison rows were cut (the slot has moved
   * on, so the completeness check refetches them and the cut emits their dead letters again), then
   * start a job without any state on the same lake and slot (everything is cut again). Each time
   * every earlier dead letter is re-emitted, and none is duplicated.
   */
  @Test
  void replaysNeverDuplicateADeadLetterInTheLakeOrTheJournal() throws Exception {
    Map<Long, ErrorClass> poison = new LinkedHashMap<>();
    try (Connection c = db.connect()) {
      goodRows(c, 0, 10);
    }
    Path checkpoints = tmp.resolve("cp");
    JobClient first = LakeWriterJobs.start(cfg, checkpoints, null, "dead-letters-first");
    jobs.add(first);
    awaitFrontierAtOutboxHead();
    Path beforePoison = awaitCheckpointAfter(checkpoints, null);

    try (Connection c = db.connect()) {
      poison.putAll(PoisonRows.everyClass(c, "acme"));
      goodRows(c, 100, 5);
    }
    awaitFrontierAtOutboxHead();
    awaitJournal(poison.size());
    JobMetrics firstMetrics = new JobMetrics(REPORTER, first.getJobID());
    assertThat(firstMetrics.alreadyJournalled()).isZero();
    LakeWriterJobs.cancel(first, db); // the crash: the dead letters are journalled and committed

    // 1. Restore from the checkpoint before the poison rows.
    JobClient restored =
        LakeWriterJobs.start(cfg, tmp.resolve("cp2"), beforePoison, "dead-letters-restored");
    jobs.add(restored);
    Map<Long, ErrorClass> later = new LinkedHashMap<>();
    try (Connection c = db.connect()) {
      goodRows(c, 200, 3);
      later.put(PoisonRows.digestMismatch(c, "globex", "a-later"), ErrorClass.DIGEST_MISMATCH);
      goodRows(c, 300, 3);
    }
    awaitFrontierAtOutboxHead();
    JobMetrics restoredMetrics = new JobMetrics(REPORTER, restored.getJobID());
    await(
        () ->
            restoredMetrics.deadLetters("DIGEST_MISMATCH") == 1
                && restoredMetrics.alreadyJournalled() == poison.size(),
        "the restored job to re-journal " + poison.size() + " dead letters and add 1");
    assertThat(restored.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    poison.putAll(later);
    awaitJournal(poison.size());
    assertDeadLetteredExactlyOnce(reader(), poison);
    LakeWriterJobs.cancel(restored, db);

    // 2. A new deployment: no Flink state, same lake and slot; every row is cut again.
    JobClient fresh = LakeWriterJobs.start(cfg, tmp.resolve("cp3"), null, "dead-letters-fresh");
    jobs.add(fresh);
    long lastSeq;
    try (Connection c = db.connect()) {
      goodRows(c, 400, 3);
      lastSeq = PoisonRows.digestMismatch(c, "acme", "a-last");
    }
    poison.put(lastSeq, ErrorClass.DIGEST_MISMATCH);
    JobMetrics freshMetrics = new JobMetrics(REPORTER, fresh.getJobID());
    await(
        () ->
            freshMetrics.deadLetters("DIGEST_MISMATCH") == 1
                && freshMetrics.alreadyJournalled() == poison.size() - 1,
        "the fresh job to re-journal " + (poison.size() - 1) + " dead letters and add 1");
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    awaitFrontier(max);
    awaitJournal(poison.size());
    assertThat(fresh.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

    LakeReader reader = reader();
    assertDeadLetteredExactlyOnce(reader, poison);
    assertVerifies(reader, max);
  }

  /** (c) Repair: a digest mismatch requeued with the right body lands in silver. */
  @Test
  void aRequeuedRowWithARepairedBodyLandsInSilverAndTheDeadLetterShowsRequeued() throws Exception {
    JobClient job = start(null);
    long poisoned;
    try (Connection c = db.connect()) {
      goodRows(c, 0, 5);
      poisoned = PoisonRows.digestMismatch(c, "acme", "a-repair");
      goodRows(c, 10, 5);
    }
    awaitFrontierAtOutboxHead();
    awaitJournal(1);

    Path bodyFile = tmp.resolve("repaired.bin");
    Files.write(bodyFile, PoisonRows.RIGHT);
    CliRun.Result requeue =
        cli(
            "dead-letters",
            "requeue",
            String.valueOf(poisoned),
            "--body-file",
            bodyFile.toString());
    assertThat(requeue.exitCode()).as(requeue.err()).isZero();
    long requeued = db.scalarLong("SELECT seq FROM oml_outbox WHERE requeue_of = " + poisoned);
    assertThat(requeue.out()).contains("requeued seq " + poisoned).contains("as seq " + requeued);
    awaitFrontier(requeued);

    LakeReader reader = reader();
    // The repair: in bronze with requeue_of, and its body in silver, byte for byte.
    Map<String, Object> bronzeRow =
        row(reader, TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS), requeued);
    assertThat(bronzeRow.get("requeue_of")).isEqualTo(poisoned);
    assertThat(bronzeRow.get("kind")).isEqualTo("materialize");
    Map<String, Object> silverRow =
        row(reader, TableId.of("acme", TableKind.SILVER_MEMORIES), requeued);
    assertThat((byte[]) silverRow.get("body")).isEqualTo(PoisonRows.RIGHT);
    assertThat(silverRow.get("artifact_id")).isEqualTo("a-repair");
    assertThat(silverRow.get("ciphertext_digest"))
        .isEqualTo(EventValidator.sha256Hex(PoisonRows.RIGHT));
    // The skip stays: the poison row is in dead_letter (once) and never in bronze or silver.
    assertDeadLetteredExactlyOnce(reader, Map.of(poisoned, ErrorClass.DIGEST_MISMATCH));
    assertThat(LakeDeadLetters.bronzeSeqs(reader, "acme")).doesNotContain(poisoned);
    assertVerifies(reader, requeued);

    try (Connection c = db.connect()) {
      DeadLetterJournal.Entry entry = journal.list(c, DeadLetterJournal.Filter.all()).get(0);
      assertThat(entry.seq()).isEqualTo(poisoned);
      assertThat(entry.status()).isEqualTo("requeued");
      assertThat(entry.requeuedAs()).isEqualTo(requeued);
      assertThat(journal.count(c, DeadLetterJournal.Filter.all())).isEqualTo(1);
    }
    CliRun.Result list = cli("dead-letters", "list", "--status", "requeued");
    assertThat(list.out()).contains("requeued as " + requeued).contains("1 of 1");
    CliRun.Result again = cli("dead-letters", "requeue", String.valueOf(poisoned));
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).contains("already requeued, as seq " + requeued);
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * The lake's dead letters and the journal name the same seqs, even for a promotion whose {@code
   * ciphertext_digest} is upper-case hex: the validator (operators) and the sink's router (sinks)
   * compare digests the same way, ignoring case, so such a row with its right body is no dead
   * letter at all, and with a wrong body it is one in both. (Until sinks commit aec3092 the router
   * compared exactly: the lake dead-lettered the row and the journal never heard of it.)
   */
  @Test
  void anUpperCaseDigestIsJudgedAlikeByTheLakeAndTheJournal() throws Exception {
    JobClient job = start(null);
    String upper = EventValidator.sha256Hex(PoisonRows.RIGHT).toUpperCase(java.util.Locale.ROOT);
    long admitted;
    long garbled;
    try (Connection c = db.connect()) {
      goodRows(c, 0, 3);
      admitted = PoisonRows.materialize(c, "acme", "a-upper", "bob", upper, PoisonRows.RIGHT);
      garbled = PoisonRows.materialize(c, "acme", "a-upper-bad", "bob", upper, PoisonRows.GARBLED);
      goodRows(c, 10, 3);
    }
    awaitFrontierAtOutboxHead();
    awaitJournal(1);
    LakeReader reader = reader();
    assertDeadLetteredExactlyOnce(reader, Map.of(garbled, ErrorClass.DIGEST_MISMATCH));
    assertThat(row(reader, TableId.of("acme", TableKind.SILVER_MEMORIES), admitted).get("body"))
        .isEqualTo(PoisonRows.RIGHT);
    assertVerifies(reader, db.scalarLong("SELECT max(seq) FROM oml_outbox"));
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
  }

  /**
   * (d) The transient classes, with a real dependency: the data-key registry is a table and a
   * function in PostgreSQL, asked by the production lookup under its statement timeout. A key
   * registered late passes on a retry; a key never registered is dead-lettered once the budget (4
   * attempts) is spent, with its attempts and failure times; a registry too slow to answer holds
   * the cut without spending any budget and is never a dead letter (issue 11 item 7); the rows
   * behind them land; the requeue of the first, once its key exists, lands in silver.
   */
  @Test
  void transientFailuresAreRetriedWithinTheBudgetThenDeadLetteredAndTheRowsBehindLand()
      throws Exception {
    try (Connection c = db.connect()) {
      KeyRegistry.create(c, false);
    }
    options.put("keys.lookup-query", KeyRegistry.LOOKUP);
    options.put("keys.lookup-timeout", "300ms");
    options.put("retry.max-attempts", "4");
    options.put("retry.initial-backoff", "100ms");
    options.put("retry.max-backoff", "400ms");
    cfg = LakeWriterJobs.config(options);
    List<Long> landed = new ArrayList<>();
    try (Connection c = db.connect()) {
      landed.addAll(goodRowsWithKeys(c, 0, 6));
    }
    JobClient job = start(null);
    JobMetrics metrics = new JobMetrics(REPORTER, job.getJobID());
    awaitFrontierAtOutboxHead();

    // 1. A key registered after the row committed: retried, then it passes.
    long late;
    try (Connection c = db.connect()) {
      late = promotionUnder(c, "acme", "a-late-key", "dek-late");
      landed.add(late);
      landed.addAll(goodRowsWithKeys(c, 10, 4));
      await(() -> metrics.counter("retryAttempts") >= 1, "a failed attempt on seq " + late);
      assertThat(CommittedFrontier.read(db, LakeWriterJobs.WRITER)).isLessThan(late);
      KeyRegistry.register(c, "dek-late");
    }
    awaitFrontierAtOutboxHead();
    long attemptsBefore = metrics.counter("retryAttempts");

    // 2. A key that never appears.
    Map<Long, ErrorClass> poison = new LinkedHashMap<>();
    try (Connection c = db.connect()) {
      poison.put(promotionUnder(c, "globex", "a-no-key", "dek-never"), ErrorClass.UNKNOWN_DATA_KEY);
      landed.addAll(goodRowsWithKeys(c, 20, 4));
    }
    awaitFrontierAtOutboxHead();
    assertThat(metrics.counter("retryAttempts") - attemptsBefore).isEqualTo(4);

    // 3. A registry slower than the lookup's timeout: the registry's fault, not the row's
    //    (issue 11 item 7). The cut holds without spending the row's budget, the breaker opens,
    //    and the row lands once the registry answers again; it is never dead-lettered.
    long slow;
    try (Connection c = db.connect()) {
      KeyRegistry.create(c, true);
      long before = metrics.counter("retryAttempts");
      long holdsBefore = metrics.counter("dependencyHolds");
      slow = promotionUnder(c, "acme", "a-slow", "dek-slow");
      KeyRegistry.register(c, "dek-slow");
      landed.add(slow);
      landed.addAll(goodRowsWithKeys(c, 30, 4));
      await(() -> metrics.counter("dependencyHolds") - holdsBefore >= 4, "4 holds on " + slow);
      assertThat(metrics.counter("retryAttempts")).isEqualTo(before);
      assertThat(CommittedFrontier.read(db, LakeWriterJobs.WRITER)).isLessThan(slow);
      KeyRegistry.create(c, false);
    }
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    awaitFrontier(max);
    awaitJournal(poison.size());

    LakeReader reader = reader();
    assertDeadLetteredExactlyOnce(reader, poison);
    Set<Long> bronze = new TreeSet<>();
    for (String tenant : TENANTS) {
      bronze.addAll(LakeDeadLetters.bronzeSeqs(reader, tenant));
    }
    assertThat(bronze).containsExactlyInAnyOrderElementsOf(landed);
    assertThat(row(reader, TableId.of("acme", TableKind.SILVER_MEMORIES), late).get("body"))
        .isEqualTo(PoisonRows.RIGHT);
    for (Map<String, Object> dead : LakeDeadLetters.rows(reader)) {
      assertThat(dead.get("attempts")).as("attempts of %s", dead.get("seq")).isEqualTo(4);
      assertThat((java.time.Instant) dead.get("last_failure_time"))
          .isAfter((java.time.Instant) dead.get("first_failure_time"));
      assertThat((String) dead.get("message")).contains("after 4 attempts");
    }
    try (Connection c = db.connect()) {
      for (DeadLetterJournal.Entry e : journal.list(c, DeadLetterJournal.Filter.all())) {
        assertThat(e.attempts()).isEqualTo(4);
        assertThat(e.lastFailureAt()).isAfter(e.firstFailureAt());
      }
    }
    assertThat(metrics.deadLetters("UNKNOWN_DATA_KEY")).isEqualTo(1);
    assertThat(metrics.deadLetters("DEPENDENCY_UNAVAILABLE")).isZero();
    assertThat(metrics.gauge("retryBacklog")).isZero();
    assertVerifies(reader, max);

    // 4. Repair: the key is registered, the row requeued; the requeue passes the check.
    long noKey = poison.keySet().iterator().next();
    try (Connection c = db.connect()) {
      KeyRegistry.register(c, "dek-never");
    }
    CliRun.Result requeue = cli("dead-letters", "requeue", String.valueOf(noKey));
    assertThat(requeue.exitCode()).as(requeue.err()).isZero();
    long requeued = db.scalarLong("SELECT seq FROM oml_outbox WHERE requeue_of = " + noKey);
    awaitFrontier(requeued);
    assertThat(row(reader(), TableId.of("globex", TableKind.SILVER_MEMORIES), requeued).get("body"))
        .isEqualTo(PoisonRows.RIGHT);

    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(metrics.restarts()).isZero();
  }

  /** Good rows committed together with their data keys, as the authority would write them. */
  private static List<Long> goodRowsWithKeys(Connection c, int from, int count) throws Exception {
    c.setAutoCommit(false);
    try {
      List<Long> seqs = KeyRegistry.registerKeysOf(c, goodRows(c, from, count));
      c.commit();
      return seqs;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** A valid, ratified promotion of {@link PoisonRows#RIGHT} under data key {@code keyId}. */
  private static long promotionUnder(Connection c, String tenant, String artifact, String keyId)
      throws Exception {
    return PoisonRows.materialize(
        c, tenant, artifact, "bob", EventValidator.sha256Hex(PoisonRows.RIGHT), PoisonRows.RIGHT, keyId);
  }

  private JobClient start(Path restoreFrom) throws Exception {
    JobClient job = LakeWriterJobs.start(cfg, tmp.resolve("cp"), restoreFrom, "dead-letters");
    jobs.add(job);
    return job;
  }

  private LakeReader reader() throws Exception {
    return LakeReader.open(LakeConfig.of(lake.toUri().toString()));
  }

  /**
   * Good rows of both tenants: journal events and promotions with matching bodies, each of a new
   * artifact ({@code from} only varies the mix).
   */
  private static List<Long> goodRows(Connection c, int from, int count) throws Exception {
    List<Long> seqs = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      int i = from + n;
      String artifact = "g-" + ARTIFACTS.incrementAndGet();
      String tenant = TENANTS[i % TENANTS.length];
      if (i % 3 == 0) {
        seqs.add(
            OutboxWriter.materialize(c, tenant, artifact, 1, ("body-" + artifact).getBytes(UTF_8)));
      } else {
        seqs.add(OutboxWriter.journal(c, tenant, artifact));
      }
    }
    return seqs;
  }

  /**
   * Each poison seq is in exactly one lake dead-letter table, under its tenant's prefix (or {@code
   * _invalid}), with its class; the PostgreSQL journal holds exactly the same seqs, once, with the
   * same class; and no other seq is dead-lettered.
   */
  private void assertDeadLetteredExactlyOnce(LakeReader reader, Map<Long, ErrorClass> poison)
      throws Exception {
    Map<Long, Integer> times = new HashMap<>();
    Map<Long, Map<String, Object>> lakeRows = new HashMap<>();
    for (Map<String, Object> row : LakeDeadLetters.rows(reader)) {
      long seq = (Long) row.get("seq");
      times.merge(seq, 1, Integer::sum);
      lakeRows.put(seq, row);
    }
    assertThat(times.keySet()).containsExactlyInAnyOrderElementsOf(poison.keySet());
    assertThat(times.values()).containsOnly(1);
    Map<Long, DeadLetterJournal.Entry> journalled = new HashMap<>();
    try (Connection c = db.connect()) {
      for (DeadLetterJournal.Entry e : journal.list(c, DeadLetterJournal.Filter.all())) {
        assertThat(journalled.put(e.seq(), e)).as("journal seq %s", e.seq()).isNull();
      }
    }
    assertThat(journalled.keySet()).containsExactlyInAnyOrderElementsOf(poison.keySet());
    for (Map.Entry<Long, ErrorClass> p : poison.entrySet()) {
      Map<String, Object> lakeRow = lakeRows.get(p.getKey());
      DeadLetterJournal.Entry entry = journalled.get(p.getKey());
      assertThat(lakeRow.get("error_class"))
          .as("lake class of %s", p.getKey())
          .isEqualTo(p.getValue().name());
      assertThat(entry.errorClass())
          .as("journal class of %s", p.getKey())
          .isEqualTo(p.getValue().name());
      assertThat(entry.message()).isEqualTo(lakeRow.get("message"));
      assertThat(entry.tenantId()).isEqualTo(lakeRow.get("tenant_id"));
      assertThat(entry.bodySha256()).isEqualTo(lakeRow.get("body_sha256"));
      assertThat(entry.writerId()).isEqualTo(LakeWriterJobs.WRITER);
      assertThat(lakeRow.get("_prefix"))
          .isEqualTo(
              p.getValue() == ErrorClass.INVALID_TENANT
                  ? TableId.INVALID_TENANT_PREFIX
                  : lakeRow.get("tenant_id"));
    }
  }

  private void assertVerifies(LakeReader reader, long upTo) throws Exception {
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, upTo);
      assertThat(result.problems()).isEmpty();
      assertThat(result.outboxRows())
          .isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox WHERE seq <= " + upTo));
    }
  }

  private void awaitJournal(int count) throws Exception {
    await(
        () -> {
          try (Connection c = db.connect()) {
            return journal.count(c, DeadLetterJournal.Filter.all()) >= count;
          } catch (Exception e) {
            return false;
          }
        },
        count + " dead letters in the journal");
  }

  /** Waits for the condition; fails at once, with the cause, if a job of this test failed. */
  private void await(BooleanSupplier condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      failIfAJobFailed();
      Thread.sleep(100);
    }
    throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
  }

  private void awaitFrontier(long seq) throws Exception {
    await(
        () -> CommittedFrontier.read(db, LakeWriterJobs.WRITER) >= seq,
        "committed frontier >= "
            + seq
            + " (it is "
            + CommittedFrontier.read(db, LakeWriterJobs.WRITER)
            + ")");
  }

  private void awaitFrontierAtOutboxHead() throws Exception {
    awaitFrontier(db.scalarLong("SELECT max(seq) FROM oml_outbox"));
  }

  private void failIfAJobFailed() throws Exception {
    for (JobClient job : jobs) {
      if (job.getJobStatus().get() == JobStatus.FAILED) {
        try {
          job.getJobExecutionResult().get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("job " + job.getJobID() + " failed", e);
        }
        throw new AssertionError("job " + job.getJobID() + " failed");
      }
    }
  }

  /** Waits for a completed checkpoint newer than {@code after} (or any), and returns it. */
  private static Path awaitCheckpointAfter(Path checkpoints, Path after) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Path> done = LakeWriterJobs.completedCheckpoints(checkpoints);
      if (!done.isEmpty() && !done.get(done.size() - 1).equals(after)) {
        return done.get(done.size() - 1);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no checkpoint completed under " + checkpoints);
  }

  private static Map<String, Object> row(LakeReader reader, TableId table, long seq)
      throws Exception {
    return reader.rows(table).stream()
        .filter(r -> r.get("seq").equals(seq))
        .findFirst()
        .orElseThrow(() -> new AssertionError("seq " + seq + " is not in " + table));
  }

  /** {@code lakewriter args... -D <this job's options>}, in this JVM, output captured. */
  private CliRun.Result cli(String... args) {
    return CliRun.run(options, args);
  }

}
