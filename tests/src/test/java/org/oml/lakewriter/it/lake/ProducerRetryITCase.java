package org.oml.lakewriter.it.lake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.verify.LakeVerifier;

/**
 * Issue 11 item 2 on the production job: producers retry {@code materialize} of keys that silver
 * already holds (active, demoted, erased), in the same batch, in later batches, after a restore
 * from a checkpoint and after a stateless start. Silver must end with exactly one row per key, in
 * the state the retractions left, with the first promotion's body: a retry never adds a row and
 * never brings a body back for an erased key. Bronze records every event, retries included.
 */
class ProducerRetryITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String[] TENANTS = {"acme", "globex"};

  /** What silver must hold per tenant and artifact: the first body and the state. */
  private final Map<String, Expected> expected = new TreeMap<>();

  private record Expected(String body, String state) {}

  @Test
  void retriedPromotionsLeaveOneRowPerKeyInItsStateAcrossBatchesAndRestarts() throws Exception {
    Path lake = tmp.resolve("lake");
    Map<String, String> options = LakeWriterJobs.options(db, lake);
    options.put("batch.max-rows", "4");
    // Every restart below builds its key indexes from the keys the job before it saved.
    Path keyCache = tmp.resolve("key-cache");
    options.put("sink.key-cache.dir", keyCache.toString());
    LakeWriterConfig cfg = LakeWriterJobs.config(options);
    Path checkpoints = tmp.resolve("cp");

    JobClient first = LakeWriterJobs.start(cfg, checkpoints, null, "retry-1");
    try (Connection c = db.connect()) {
      for (String t : TENANTS) {
        for (int i = 1; i <= 6; i++) {
          promote(c, t, "a" + i, "first");
        }
        promote(c, t, "a1", "retry-same-txn"); // likely the same batch as its first promotion
      }
    }
    awaitHead();
    try (Connection c = db.connect()) {
      for (String t : TENANTS) {
        retract(c, t, "demote", "a2");
        retract(c, t, "erase", "a3");
        promote(c, t, "a2", "retry-after-demote");
        promote(c, t, "a3", "retry-after-erase");
        promote(c, t, "a1", "retry-of-active");
        // A new key promoted, erased and retried inside one transaction (one or two batches).
        c.setAutoCommit(false);
        promote(c, t, "a7", "first");
        retract(c, t, "erase", "a7");
        promote(c, t, "a7", "retry-in-txn");
        c.commit();
        c.setAutoCommit(true);
      }
    }
    awaitHead();
    LakeWriterJobs.cancel(first, db);
    for (String t : TENANTS) {
      assertThat(keyCache.resolve(t).resolve("silver/memories.keys")).exists();
    }

    // A restart from the retained checkpoint: retries of every key, and a demote of a4.
    List<Path> done = LakeWriterJobs.completedCheckpoints(checkpoints);
    JobClient restored =
        LakeWriterJobs.start(cfg, tmp.resolve("cp2"), done.get(done.size() - 1), "retry-2");
    try (Connection c = db.connect()) {
      for (String t : TENANTS) {
        for (int i = 1; i <= 7; i++) {
          promote(c, t, "a" + i, "retry-after-restore");
        }
        retract(c, t, "demote", "a4");
        promote(c, t, "a4", "retry-after-restore-demote");
        promote(c, t, "a8", "first");
      }
    }
    awaitHead();
    LakeWriterJobs.cancel(restored, db);

    // A stateless start on the same lake: every row is cut again, retries included.
    JobClient fresh = LakeWriterJobs.start(cfg, tmp.resolve("cp3"), null, "retry-3");
    try (Connection c = db.connect()) {
      for (String t : TENANTS) {
        promote(c, t, "a3", "retry-after-fresh-start");
        promote(c, t, "a9", "first");
      }
    }
    long max = awaitHead();
    LakeWriterJobs.cancel(fresh, db);

    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    try (Connection c = db.connect()) {
      LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
      assertThat(result.problems()).isEmpty();
      assertThat(result.outboxRows()).isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox"));
    }
    Map<String, Expected> actual = new TreeMap<>();
    for (String t : TENANTS) {
      for (Map<String, Object> row : reader.rows(TableId.of(t, TableKind.SILVER_MEMORIES))) {
        String key = t + "/" + row.get("artifact_id") + "@" + row.get("version");
        Expected was =
            actual.put(
                key,
                new Expected(
                    row.get("body") == null
                        ? null
                        : new String((byte[]) row.get("body"), StandardCharsets.UTF_8),
                    (String) row.get("state")));
        assertThat(was).as("a second silver row for %s", key).isNull();
      }
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(expected.values())
        .extracting(Expected::state)
        .contains("active", "demoted", "erased");
  }

  private void promote(Connection c, String tenant, String artifact, String attempt)
      throws SQLException {
    String body = "ciphertext-" + tenant + "-" + artifact + "-" + attempt;
    OutboxWriter.materialize(c, tenant, artifact, 1, body.getBytes(StandardCharsets.UTF_8));
    // The first promotion makes the row; every later one of the same key changes nothing.
    String stored =
        new String(
            OutboxWriter.sealed(body.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    expected.putIfAbsent(tenant + "/" + artifact + "@1", new Expected(stored, "active"));
  }

  private void retract(Connection c, String tenant, String kind, String artifact)
      throws SQLException {
    OutboxWriter.retract(c, tenant, kind, artifact, 1);
    String key = tenant + "/" + artifact + "@1";
    Expected row = expected.get(key);
    if (row != null && !row.state().equals("erased")) {
      // An erase clears the body (docs/erasure.md).
      expected.put(
          key,
          kind.equals("erase") ? new Expected(null, "erased") : new Expected(row.body(), "demoted"));
    }
  }

  private long awaitHead() throws Exception {
    long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
    CommittedFrontier.await(db, LakeWriterJobs.WRITER, max, WAIT);
    return max;
  }
}
