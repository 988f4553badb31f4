package org.oml.lakewriter.it.lake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.frontier.JdbcFrontierListener;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.sink.DeltaSink;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.it.support.BatchCollector;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * The whole pipeline on real parts: PostgreSQL with logical WAL, CDC, the batch cut, the Delta
 * sink on a MiniCluster, and Delta tables read back by Kernel's scan ({@link LakeReader}), not by
 * the writer's code.
 */
class LakeWriterEndToEndITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String[] TENANTS = {"acme", "globex", "initech"};

  private BatchCollector start(Path lake, Path checkpoints, int maxRows) throws Exception {
    StreamExecutionEnvironment env = Flink.env(checkpoints, Duration.ofMillis(500), 3);
    BatchCollector collector = new BatchCollector(UUID.randomUUID().toString());
    DataStream<Batch> batches =
        OutboxPipeline.batches(env, db.sourceOptions("w1", Duration.ofMillis(200)), maxRows, 1 << 20);
    batches
        .sinkTo(
            DeltaSink.builder()
                .lakeRoot(lake.toUri().toString())
                .frontierListener(
                    new JdbcFrontierListener(db.jdbcUrl(), credentials(), "w1"))
                .build())
        .uid("delta-sink")
        .setParallelism(1);
    batches.addSink(collector).setParallelism(1);
    startJob(env, "lake-writer-e2e");
    return collector;
  }

  private static java.util.Properties credentials() {
    java.util.Properties p = new java.util.Properties();
    p.setProperty("user", EmbeddedPostgresServer.USER);
    p.setProperty("password", "");
    return p;
  }

  @Test
  void everyRowLandsExactlyOnceUnderItsTenantWithTxnVersionsAtTheLastBatchEnd() throws Exception {
    Path lake = tmp.resolve("lake");
    Map<String, Expected> expected = new HashMap<>();
    try (Connection c = db.connect()) {
      workload(c, 0, 150, expected);
    }
    BatchCollector collector = start(lake, tmp.resolve("cp"), 40);
    try (Connection c = db.connect()) {
      workload(c, 150, 300, expected);
      poison(c);
    }
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    awaitCommittedFrontier(max);
    List<Batch> batches = collector.batches();
    stopJob();

    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    LakeVerifier.Result result;
    try (Connection c = db.connect()) {
      result = LakeVerifier.verify(c, "public", reader, max);
    }
    assertThat(result.problems()).isEmpty();
    assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
    assertThat(result.tenants().keySet()).contains(TENANTS).contains(TableId.INVALID_TENANT_PREFIX);

    // Each table's txn version is the end of the last batch that had a row for it. Silver is
    // committed by promotions and by retractions that change a row (a retraction of an erased row
    // changes nothing), so its version is the end of one of the batches that promoted or
    // retracted, at or after the last promotion.
    Map<TableId, Long> lastEnd = new HashMap<>();
    Map<TableId, java.util.Set<Long>> silverCandidates = new HashMap<>();
    for (Batch b : batches) {
      for (OutboxEvent e : b.events()) {
        for (TableId t : tablesOf(e)) {
          lastEnd.put(t, b.batchEnd());
          if (t.kind() == TableKind.GOLD_LINEAGE) {
            silverCandidates.computeIfAbsent(t, k -> new java.util.HashSet<>()).add(b.batchEnd());
          }
        }
        if (e.isValid() && e.eventKind().orElseThrow().isRetraction()) {
          silverCandidates
              .computeIfAbsent(TableId.of(e.tenantId(), TableKind.SILVER_MEMORIES), k -> new java.util.HashSet<>())
              .add(b.batchEnd());
        }
      }
    }
    assertThat(reader.tables()).containsExactlyInAnyOrderElementsOf(lastEnd.keySet());
    for (Map.Entry<TableId, Long> e : lastEnd.entrySet()) {
      long txn = reader.txnVersion(e.getKey());
      if (e.getKey().kind() == TableKind.GOLD_LINEAGE) {
        // gold/lineage commits when a row changes (a first journal event, a first promotion, a
        // retraction of a key with a row): the end of one of the batches with such an event.
        assertThat(silverCandidates.get(e.getKey())).as("txn version of %s", e.getKey()).contains(txn);
      } else if (e.getKey().kind() == TableKind.SILVER_MEMORIES) {
        assertThat(txn).as("txn version of %s", e.getKey()).isGreaterThanOrEqualTo(e.getValue());
        if (txn != e.getValue()) {
          assertThat(silverCandidates.get(e.getKey())).as("txn version of %s", e.getKey()).contains(txn);
        }
      } else {
        assertThat(txn).as("txn version of %s", e.getKey()).isEqualTo(e.getValue());
      }
    }

    // Silver holds one row per promotion: the ciphertext byte for byte, and the state and
    // workarea that the retractions of earlier and the same batches left (the MERGE).
    Map<String, Map<String, Object>> silver = new HashMap<>();
    for (String tenant : TENANTS) {
      for (Map<String, Object> row : reader.rows(TableId.of(tenant, TableKind.SILVER_MEMORIES))) {
        assertThat(silver.put((String) row.get("artifact_id"), row)).isNull();
        assertThat(row.get("tenant_id")).isEqualTo(tenant);
      }
      for (Map<String, Object> row :
          reader.rows(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS))) {
        assertThat(row).doesNotContainKey("body");
      }
    }
    assertThat(silver.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    assertThat(expected.values().stream().map(Expected::state).distinct())
        .contains("active", "demoted", "erased");
    expected.forEach(
        (artifact, want) -> {
          Map<String, Object> row = silver.get(artifact);
          assertThat((byte[]) row.get("body")).as(artifact).isEqualTo(want.body());
          assertThat(row.get("state")).as(artifact).isEqualTo(want.state());
          assertThat(row.get("workarea_id")).as(artifact).isEqualTo(want.workarea());
          assertThat(row.get("path_at_write")).as(artifact).isEqualTo("/notes/a.md");
        });
  }

  @Test
  void aFreshStartWithoutStateOntoFilledTablesAddsNoDuplicates() throws Exception {
    Path lake = tmp.resolve("lake");
    Map<String, Expected> expected = new HashMap<>();
    try (Connection c = db.connect()) {
      workload(c, 0, 200, expected);
    }
    start(lake, tmp.resolve("cp1"), 30);
    awaitCommittedFrontier(db.scalarLong("SELECT max(seq) FROM oml_outbox"));
    stopJob();
    try (Connection c = db.connect()) {
      workload(c, 200, 260, expected);
    }
    // A new deployment: no Flink state, a new slot, batches cut with another cap, so that the
    // tables' versions fall inside the new batches. Each table drops the rows it already has.
    db.execute("SELECT pg_drop_replication_slot('" + db.slot() + "')");
    start(lake, tmp.resolve("cp2"), 47);
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    awaitCommittedFrontier(max);
    stopJob();

    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
      assertThat(result.problems()).isEmpty();
      assertThat(result.outboxRows()).isEqualTo(260);
    }
  }

  private void awaitCommittedFrontier(long seq) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = db.connect();
          PreparedStatement ps =
              c.prepareStatement("SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = 'w1'");
          var rs = ps.executeQuery()) {
        if (rs.next() && rs.getLong(1) >= seq) {
          return;
        }
      } catch (SQLException e) {
        // the listener creates its row with the first commit
      }
      Thread.sleep(200);
    }
    throw new AssertionError("committed frontier never reached " + seq);
  }

  /** What silver must end up with for one promoted (artifact_id, version). */
  record Expected(String tenant, byte[] body, String state, String workarea) {}

  private static final String[] RETRACTS = {"demote", "erase", "simulation_end", "reassign"};
  private static final Map<String, String> STATE_AFTER =
      Map.of("demote", "demoted", "erase", "erased", "simulation_end", "simulation_ended");

  /**
   * Journal events, promotions and retractions of the same tenant's earlier promotions, of every
   * kind, over three tenants; {@code expected} follows what silver must hold per artifact.
   */
  private static void workload(Connection c, int from, int to, Map<String, Expected> expected)
      throws SQLException {
    Random random = new Random(from);
    c.setAutoCommit(false);
    for (int i = from; i < to; i++) {
      String tenant = TENANTS[i % TENANTS.length];
      int pick = random.nextInt(10);
      List<String> promoted =
          expected.entrySet().stream()
              .filter(e -> e.getValue().tenant().equals(tenant))
              .map(Map.Entry::getKey)
              .sorted()
              .toList();
      if (pick < 6) {
        OutboxWriter.journal(c, tenant, "a-" + i);
      } else if (pick < 8 || promoted.isEmpty()) {
        byte[] ciphertext =
            ("ciphertext-of-" + i + "-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
        OutboxWriter.materialize(c, tenant, "a-" + i, 1, ciphertext);
        expected.put("a-" + i, new Expected(tenant, ciphertext, "active", "wa-1"));
      } else {
        String artifact = promoted.get(random.nextInt(promoted.size()));
        String kind = RETRACTS[random.nextInt(RETRACTS.length)];
        OutboxWriter.retract(c, tenant, kind, artifact, 1);
        Expected before = expected.get(artifact);
        expected.put(artifact, afterRetract(before, kind));
      }
      if (i % 7 == 0) {
        c.commit();
      }
    }
    c.commit();
    c.setAutoCommit(true);
  }

  /**
   * The transition table: erased is terminal and has no body; reassign moves the workarea, keeps
   * the state.
   */
  private static Expected afterRetract(Expected e, String kind) {
    if (e.state().equals("erased")) {
      return e;
    }
    if (kind.equals("reassign")) {
      return new Expected(e.tenant(), e.body(), e.state(), "wa-2");
    }
    // An erase clears the body in the rewritten file (docs/erasure.md).
    byte[] body = kind.equals("erase") ? null : e.body();
    return new Expected(e.tenant(), body, STATE_AFTER.get(kind), e.workarea());
  }

  /** Rows the writer must dead-letter, never skip. */
  private static void poison(Connection c) throws SQLException {
    try (var st = c.createStatement()) {
      st.execute("INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'bogus', '{}')");
      st.execute("INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('Bad Tenant!', 'journal', '{}')");
      st.execute(
          "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
              + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
              + " ciphertext_digest, body, data_key_id) VALUES ('globex', 'materialize', 'x', 1,"
              + " 'wa', 'alice', 'alice@g', 'bob', 'human', 'p', 'not-the-digest', 'abc', 'dek')");
    }
  }

  private static List<TableId> tablesOf(OutboxEvent e) {
    List<TableId> tables = new ArrayList<>();
    if (!TableId.isValidTenant(e.tenantId())) {
      tables.add(TableId.invalidTenantDeadLetter());
    } else if (!e.isValid()) {
      tables.add(TableId.of(e.tenantId(), TableKind.DEAD_LETTER));
    } else {
      tables.add(TableId.of(e.tenantId(), TableKind.BRONZE_JOURNAL_EVENTS));
      if ("materialize".equals(e.kind())) {
        tables.add(TableId.of(e.tenantId(), TableKind.SILVER_MEMORIES));
      }
      // Gold (docs/gold-streaming.md): lineage for every event with an artifact key; no
      // validation event here, so no workarea is validated and the other gold tables stay absent.
      if (e.artifactId() != null
          && e.artifactVersion() != null
          && !e.eventKind().orElseThrow().isWorkareaValidation()) {
        tables.add(TableId.of(e.tenantId(), TableKind.GOLD_LINEAGE));
      }
    }
    return tables;
  }
}
