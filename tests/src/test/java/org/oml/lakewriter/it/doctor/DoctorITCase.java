package org.oml.lakewriter.it.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * {@code lakewriter doctor} on real parts: each condition is created for real (on embedded
 * PostgreSQL, with a lake written by the job or by the sinks' writer) in its own test, and doctor
 * must name it by its check, with a finding and a fix, and exit 1 on a FAIL. The first test shows
 * that a healthy running writer passes every check (no false alarm).
 */
class DoctorITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String WRITER = LakeWriterJobs.WRITER;
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @Test
  void aHealthyRunningWriterPassesEveryCheck() throws Exception {
    Map<String, String> options = options();
    JobClient job = start(options);
    try {
      commitRows(10);
      DoctorRun run = DoctorRun.run(options);
      assertThat(run.doc().get("status").asText()).as(run.printed()).isEqualTo("OK");
      assertThat(run.exitCode()).isZero();
      assertThat(run.doc().get("checks")).hasSize(14);
      assertThat(run.finding("slot")).contains("is active");
      assertThat(run.doc().get("checked_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
  }

  @Test
  void aTableDroppedFromThePublicationFails() throws Exception {
    Map<String, String> options = options();
    db.execute("ALTER PUBLICATION oml_lake_pub DROP TABLE oml_lake_horizon");

    DoctorRun run = DoctorRun.run(options);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.status("publication")).isEqualTo("FAIL");
    assertThat(run.finding("publication")).contains("does not cover public.oml_lake_horizon");
    assertThat(run.fix("publication"))
        .isEqualTo("ALTER PUBLICATION oml_lake_pub ADD TABLE public.oml_lake_horizon");
    assertThat(run.check("publication").get("details").get("missing").get(0).asText())
        .isEqualTo("public.oml_lake_horizon");
  }

  @Test
  void aMissingSlotFailsAndAnInactiveOneWarns() throws Exception {
    Map<String, String> options = options();
    DoctorRun missing = DoctorRun.run(options);
    assertThat(missing.status("slot")).isEqualTo("FAIL");
    assertThat(missing.finding("slot")).contains(db.slot() + " does not exist");
    assertThat(missing.exitCode()).isEqualTo(1);

    CliRun.Result init = CliRun.run(options, "init-db");
    assertThat(init.exitCode()).as(init.out() + init.err()).isZero();
    DoctorRun inactive = DoctorRun.run(options);
    assertThat(inactive.status("slot")).isEqualTo("WARN");
    assertThat(inactive.finding("slot")).contains(db.slot()).contains("is inactive");
    assertThat(inactive.fix("slot")).contains("lakewriter run");
    assertThat(inactive.status("slot_retained_wal")).isEqualTo("OK");
    assertThat(inactive.check("slot_retained_wal").get("details").get("wal_status").asText())
        .isEqualTo("reserved");
  }

  @Test
  void aSlotOfTheSameNameInAnotherDatabaseFails() throws Exception {
    Map<String, String> options = options();
    String other = db.name() + "_other";
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + other);
    }
    String otherUrl = db.jdbcUrl().replace(db.name(), other);
    try (Connection c = java.sql.DriverManager.getConnection(otherUrl, "postgres", "");
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_create_logical_replication_slot('" + db.slot() + "', 'pgoutput')");
    }
    try {
      DoctorRun run = DoctorRun.run(options);
      assertThat(run.status("slot")).isEqualTo("FAIL");
      assertThat(run.finding("slot"))
          .contains("belongs to database " + other + ", not to the writer's " + db.name())
          .contains("SLOT_IN_OTHER_DATABASE");
      assertThat(run.exitCode()).isEqualTo(1);
    } finally {
      db.execute("SELECT pg_drop_replication_slot('" + db.slot() + "')");
    }
  }

  @Test
  void aStoppedTickerFailsHorizonTicking() throws Exception {
    Map<String, String> options = options();
    JobClient job = start(options);
    try {
      commitRows(3);
      assertThat(DoctorRun.run(options, "--max-tick-age", "5s").status("horizon_ticking"))
          .isEqualTo("OK");
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    Thread.sleep(2500);
    DoctorRun run = DoctorRun.run(options, "--max-tick-age", "2s");
    assertThat(run.status("horizon_ticking")).isEqualTo("FAIL");
    assertThat(run.finding("horizon_ticking"))
        .contains("writer " + WRITER + " was last ticked")
        .contains("ticker is not running");
    assertThat(run.exitCode()).isEqualTo(1);
  }

  @Test
  void aPreparedTransactionHoldingTheHorizonIsNamedByItsGid() throws Exception {
    Map<String, String> options = options();
    try (Connection ticker = db.connect()) {
      try (Connection preparer = db.connect()) {
        preparer.setAutoCommit(false);
        OutboxWriter.journal(preparer, "acme", "prepared");
        exec(preparer, "PREPARE TRANSACTION 'doctor-holder'");
      }
      try (Connection other = db.connect()) {
        OutboxWriter.journal(other, "acme", "later");
      }
      OutboxContract.tick(ticker, WRITER);
      OutboxContract.tick(ticker, WRITER);

      DoctorRun young = DoctorRun.run(options);
      assertThat(young.status("horizon_holders")).isEqualTo("WARN");
      assertThat(young.finding("horizon_holders"))
          .contains("prepared transaction 'doctor-holder'")
          .contains("database " + db.name());
      assertThat(young.fix("horizon_holders")).contains("COMMIT PREPARED 'doctor-holder'");
      assertThat(young.check("horizon_holders").get("details").get("holders").get(0).get("gid").asText())
          .isEqualTo("doctor-holder");

      Thread.sleep(2100);
      DoctorRun old = DoctorRun.run(options, "--max-horizon-hold", "1s");
      assertThat(old.status("horizon_holders")).isEqualTo("FAIL");
      assertThat(old.exitCode()).isEqualTo(1);

      exec(ticker, "COMMIT PREPARED 'doctor-holder'");
      OutboxContract.tick(ticker, WRITER);
      assertThat(DoctorRun.run(options).status("horizon_holders")).isEqualTo("OK");
    }
  }

  @Test
  void aStaleFrontierWhileRowsWaitUnderTheHorizonFails() throws Exception {
    Map<String, String> options = options();
    JobClient job = start(options);
    long committed;
    try {
      committed = commitRows(3);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    try (Connection c = db.connect()) {
      for (int i = 0; i < 4; i++) {
        OutboxWriter.journal(c, "acme", "waiting-" + i);
      }
      OutboxContract.tick(c, WRITER); // the ticker vouches for them, nobody commits them
      OutboxContract.tick(c, WRITER);
    }
    Thread.sleep(1500);
    DoctorRun run = DoctorRun.run(options, "--max-frontier-age", "1s");
    assertThat(run.status("frontier_stale")).isEqualTo("FAIL");
    assertThat(run.finding("frontier_stale"))
        .contains("frontier " + committed + " has not moved")
        .contains("4 rows under the horizon")
        .contains("not committing");
    assertThat(run.exitCode()).isEqualTo(1);
    CliRun.Result text = CliRun.run(options, "doctor", "--max-frontier-age", "1s");
    System.out.println(text.out());
    assertThat(text.exitCode()).isEqualTo(1);
    assertThat(text.out())
        .containsPattern("FAIL\\s+frontier_stale\\s+frontier " + committed + " has not moved")
        .contains("fix: start the job")
        .contains("doctor: FAIL (");
    assertThat(DoctorRun.run(options).status("frontier_stale")).isEqualTo("OK");
  }

  @Test
  void aLakeOlderThanTheFrontierCacheFails() throws Exception {
    Path lake = tmp.resolve("lake");
    Path backup = tmp.resolve("lake-backup");
    Map<String, String> options = options();
    JobClient job = start(options);
    long last;
    try {
      commitRows(3);
      copy(lake, backup); // the lake as a backup had it
      last = commitRows(3);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    assertThat(DoctorRun.run(options).status("frontier_cache")).isEqualTo("OK");

    Map<String, String> restored = options();
    restored.put("lake.root", backup.toUri().toString());
    DoctorRun run = DoctorRun.run(restored);
    assertThat(run.status("frontier_cache")).isEqualTo("FAIL");
    assertThat(run.finding("frontier_cache"))
        .contains("seq " + last + " of tenant acme is not in its tables")
        .contains("the lake is older than the cache");
    assertThat(run.exitCode()).isEqualTo(1);
  }

  @Test
  void aQuarantinedTenantBehindTheFrontierCacheIsAWarnNotAFail() throws Exception {
    Map<String, String> options = options();
    foreignTable(tmp.resolve("lake").resolve("beta/bronze/journal_events"));
    JobClient job = start(options);
    long betaSeq;
    try (Connection c = db.connect()) {
      OutboxWriter.journal(c, "acme", "a1");
      betaSeq = OutboxWriter.journal(c, "beta", "b1");
      CommittedFrontier.await(db, WRITER, betaSeq, WAIT); // the frontier moves on without beta
      DoctorRun run = DoctorRun.run(options);
      assertThat(run.status("frontier_cache")).as(run.printed()).isEqualTo("WARN");
      assertThat(run.finding("frontier_cache"))
          .contains("seq " + betaSeq + " of tenant beta")
          .contains("quarantined");
      assertThat(run.fix("frontier_cache")).contains("quarantine list");
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
  }

  @Test
  void aTableWithManyCommitsAndNoCheckpointIsNamed() throws Exception {
    Map<String, String> options = options();
    Path table = tmp.resolve("lake").resolve(BRONZE.relativePath());
    try (KernelDeltaTableClient client = client(options)) {
      client.commit(BRONZE, 1, client.writeDataFiles(BRONZE, rows(1)));
    }
    for (int i = 0; i < 30; i++) {
      externalCommit(table); // another engine's commits: it never writes a checkpoint
    }
    DoctorRun run = DoctorRun.run(options, "--max-commits-without-checkpoint", "20");
    assertThat(run.status("delta_checkpoint")).isEqualTo("WARN");
    assertThat(run.finding("delta_checkpoint"))
        .contains("acme/bronze/journal_events: ")
        .contains("commits since its creation (no checkpoint)");
    assertThat(
            run.check("delta_checkpoint").get("details").get("tables").get(0)
                .get("commits_since_checkpoint").asLong())
        .isGreaterThanOrEqualTo(31);
    assertThat(DoctorRun.run(options).status("delta_checkpoint")).isEqualTo("OK");
  }

  @Test
  void manySmallFilesAreNamed() throws Exception {
    Map<String, String> options = options();
    try (KernelDeltaTableClient client = client(options)) {
      for (long seq = 1; seq <= 12; seq++) {
        List<DataFile> files = client.writeDataFiles(BRONZE, rows(seq));
        client.commit(BRONZE, seq, files);
      }
    }
    DoctorRun run = DoctorRun.run(options, "--max-small-files", "10", "--small-file-size", "1mb");
    assertThat(run.status("small_files")).isEqualTo("WARN");
    assertThat(run.finding("small_files")).contains("acme/bronze/journal_events: 12 files of");
    assertThat(run.fix("small_files")).contains("OPTIMIZE");
    // 12 commits without a checkpoint: within five of the table's intervals (100), no warning.
    assertThat(run.status("delta_checkpoint")).isEqualTo("OK");
  }

  @Test
  void deadLettersWaitingAreNamed() throws Exception {
    Map<String, String> options = options();
    JobClient job = start(options);
    try {
      long poison;
      try (Connection c = db.connect()) {
        OutboxWriter.journal(c, "acme", "fine");
        try (var ps =
            c.prepareStatement(
                "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'bogus', '{}')"
                    + " RETURNING seq")) {
          var rs = ps.executeQuery();
          rs.next();
          poison = rs.getLong(1);
        }
        long last = OutboxWriter.journal(c, "acme", "after");
        CommittedFrontier.await(db, WRITER, last, WAIT);
      }
      awaitJournal(poison);
      DoctorRun run = DoctorRun.run(options);
      assertThat(run.status("dead_letters")).isEqualTo("WARN");
      assertThat(run.finding("dead_letters")).contains("1 dead letter(s)").contains("UNKNOWN_KIND");
      assertThat(run.fix("dead_letters")).contains("dead-letters list");
      assertThat(run.check("dead_letters").get("details").get("by_tenant").get("acme").asLong())
          .isEqualTo(1);
      assertThat(run.exitCode()).isZero(); // a WARN is not a FAIL ...
      assertThat(DoctorRun.run(options, "--fail-on-warn").exitCode()).isEqualTo(1); // ... unless asked
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
  }

  @Test
  void anOutboxPrunedPastTheFrontierFails() throws Exception {
    Map<String, String> options = options();
    JobClient job = start(options);
    long frontier;
    try {
      frontier = commitRows(5);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    long last = 0;
    try (Connection c = db.connect()) {
      for (int i = 0; i < 3; i++) {
        last = OutboxWriter.journal(c, "acme", "never-in-the-lake-" + i);
      }
    }
    db.execute("DELETE FROM oml_outbox WHERE seq <= " + frontier); // pruning as the contract allows
    assertThat(DoctorRun.run(options).status("outbox_retention")).isEqualTo("OK");

    db.execute("DELETE FROM oml_outbox WHERE seq < " + last); // a pruner that ignores the frontier
    DoctorRun run = DoctorRun.run(options);
    assertThat(run.status("outbox_retention")).isEqualTo("FAIL");
    assertThat(run.finding("outbox_retention"))
        .contains("lowest seq is " + last)
        .contains("seqs " + (frontier + 1) + ".." + (last - 1) + " have no row");
    assertThat(run.fix("outbox_retention")).contains("prune only rows with seq <= the frontier");
    assertThat(run.exitCode()).isEqualTo(1);
  }

  @Test
  void beforeInitDbEveryContractCheckSaysToRunInitDb() throws Exception {
    String bare = db.name() + "_bare";
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + bare);
    }
    Map<String, String> options = options();
    options.put("postgres.url", db.jdbcUrl().replace(db.name(), bare));
    options.put("postgres.slot", bare + "_slot");

    DoctorRun run = DoctorRun.run(options);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.status("wal_level")).isEqualTo("OK");
    assertThat(run.status("publication")).isEqualTo("FAIL");
    assertThat(run.fix("publication")).contains("init-db");
    for (String check :
        List.of("horizon_ticking", "horizon_holders", "frontier_stale", "dead_letters")) {
      assertThat(run.finding(check)).as(check).startsWith("not checked: ").contains("does not exist");
      assertThat(run.fix(check)).as(check).contains("run `lakewriter init-db`");
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  private Map<String, String> options() {
    return LakeWriterJobs.options(db, tmp.resolve("lake"));
  }

  private JobClient start(Map<String, String> options) throws Exception {
    return LakeWriterJobs.start(
        LakeWriterJobs.config(options), tmp.resolve("checkpoints"), null, "doctor-it");
  }

  /** Writes n journal rows for acme and waits until the frontier passes the last; returns it. */
  private long commitRows(int n) throws Exception {
    long last = 0;
    try (Connection c = db.connect()) {
      for (int i = 0; i < n; i++) {
        last = OutboxWriter.journal(c, "acme", "a-" + System.nanoTime());
      }
    }
    CommittedFrontier.await(db, WRITER, last, WAIT);
    return last;
  }

  private void awaitJournal(long seq) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (db.scalarLong("SELECT count(*) FROM oml_lake_dead_letter WHERE seq = " + seq) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("seq " + seq + " never reached the dead-letter journal");
      }
      Thread.sleep(200);
    }
  }

  private static KernelDeltaTableClient client(Map<String, String> options) throws IOException {
    return new KernelDeltaTableClient(LakeConfig.of(options.get("lake.root")));
  }

  private static List<TableRow> rows(long seq) {
    return List.of(
        TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, seq)
            .set("artifact_id", "a" + seq)
            .set("version", 1L)
            .set("kind", "journal")
            .set("tenant_id", "acme")
            .set("event_time", 1_700_000_000_000_000L + seq)
            .build());
  }

  /**
   * One commit by another Delta engine that never checkpoints: a commitInfo only, put-if-absent
   * (temp file, then a hard link), as any Delta writer commits on a local filesystem.
   */
  private static void externalCommit(Path table) throws IOException {
    Path log = table.resolve("_delta_log");
    long next;
    try (Stream<Path> files = Files.list(log)) {
      next =
          files
                  .map(p -> p.getFileName().toString())
                  .filter(n -> n.matches("\\d{20}\\.json"))
                  .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
                  .max()
                  .orElseThrow()
              + 1;
    }
    String info =
        "{\"commitInfo\":{\"timestamp\":" + System.currentTimeMillis()
            + ",\"operation\":\"SET TBLPROPERTIES\",\"operationParameters\":{},"
            + "\"isBlindAppend\":true,\"engineInfo\":\"another-engine\"}}\n";
    Path temp = log.resolve(".external-" + next + ".tmp");
    Files.writeString(temp, info, StandardCharsets.UTF_8);
    Files.createLink(log.resolve(String.format("%020d.json", next)), temp);
    Files.delete(temp);
  }

  /** A Delta table of someone else's schema where the writer wants beta's bronze table. */
  private static void foreignTable(Path table) throws IOException {
    Path log = Files.createDirectories(table.resolve("_delta_log"));
    String schema =
        "{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\","
            + "\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}";
    Files.writeString(
        log.resolve(String.format("%020d.json", 0)),
        "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"CREATE TABLE\"}}\n"
            + "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
            + "{\"metaData\":{\"id\":\"f00d\",\"format\":{\"provider\":\"parquet\","
            + "\"options\":{}},\"schemaString\":\""
            + schema
            + "\",\"partitionColumns\":[],\"configuration\":{},"
            + "\"createdTime\":1700000000000}}\n",
        StandardCharsets.UTF_8);
  }

  private static void copy(Path from, Path to) throws IOException {
    List<Path> all = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(from)) {
      walk.forEach(all::add);
    }
    for (Path p : all) {
      Path target = to.resolve(from.relativize(p).toString());
      if (Files.isDirectory(p)) {
        Files.createDirectories(target);
      } else {
        Files.copy(p, target);
      }
    }
  }

  private static void exec(Connection c, String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
