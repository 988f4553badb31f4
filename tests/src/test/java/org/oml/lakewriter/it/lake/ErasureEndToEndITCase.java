package org.oml.lakewriter.it.lake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.log.TableHistory;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.demo.BodyEncryption;
import org.oml.lakewriter.demo.DemoTraffic;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * Issue 14, erasure end to end on the real writer (PostgreSQL, MiniCluster, Delta tables read by
 * Kernel): an artifact is promoted with a Tink-sealed body, then erased in a transaction that also
 * destroys its data key; the copy-on-write clears its body; {@code lakewriter maintain vacuum}
 * with a short test retention deletes the older file version. Then no 16-byte window of the
 * ciphertext is in any file under the lake (data, log, checkpoints, .crc), decryption fails with
 * the key gone, every version inside the retention still reads, and {@code history} and {@code
 * verify --as-of-seq} reconcile the versions with the outbox.
 */
class ErasureEndToEndITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);

  @Test
  void anErasedBodyLeavesEveryFileOfTheLakeAfterVacuum() throws Exception {
    Path lakeDir = tmp.resolve("lake");
    Map<String, String> options = LakeWriterJobs.options(db, lakeDir);
    // Log checkpoints within the test's few commits: the ciphertext must be gone from them too.
    options.put("lake.log-checkpoint-interval", "10");
    Path keyDir = tmp.resolve("keys");
    BodyEncryption keys = BodyEncryption.open(keyDir);
    JobClient job =
        LakeWriterJobs.start(LakeWriterJobs.config(options), tmp.resolve("cp"), null, "erase-it");
    byte[] erasedCiphertext;
    long beforeErase;
    long erase;
    long last;
    Instant eraseCommitted;
    try (Connection c = db.connect()) {
      createKeyStore(c);
      erasedCiphertext = promote(c, keys, "a1");
      // Enough separate commits that the silver log gets a Parquet checkpoint (every 10).
      for (int i = 2; i <= 12; i++) {
        promote(c, keys, "a" + i);
        CommittedFrontier.await(db, LakeWriterJobs.WRITER, OutboxWriter.journal(c, TENANT, "w"),
            WAIT);
      }
      beforeErase = OutboxWriter.journal(c, TENANT, "j1");
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, beforeErase, WAIT);
      assertThat(bytesFoundIn(lakeDir, erasedCiphertext))
          .as("the scan finds the ciphertext while it is on disk")
          .isNotEmpty();
      erase = eraseWithKey(c, "a1");
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, erase, WAIT);
      eraseCommitted = Instant.now();
      Thread.sleep(3000);
      // Later versions, inside the retention: another rewrite and an append.
      OutboxWriter.retract(c, TENANT, "demote", "a2", 1);
      promote(c, keys, "a13");
      last = OutboxWriter.journal(c, TENANT, "j2");
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, last, WAIT);
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    LakeReader lake = LakeReader.open(LakeConfig.of(options.get("lake.root")));
    Map<String, Object> erasedRow =
        lake.rows(SILVER).stream().filter(r -> "a1".equals(r.get("artifact_id"))).findFirst()
            .orElseThrow();
    assertThat(erasedRow).containsEntry("state", "erased");
    assertThat(erasedRow.get("body")).as("the rewrite cleared the body").isNull();
    assertThat(bytesFoundIn(lakeDir.resolve(SILVER.relativePath()).resolve("_delta_log"),
        erasedCiphertext)).as("no body statistics in the log").isEmpty();
    assertThat(Files.list(lakeDir.resolve(SILVER.relativePath()).resolve("_delta_log")))
        .as("a checkpoint was written")
        .anySatisfy(p -> assertThat(p.getFileName().toString()).endsWith(".checkpoint.parquet"));

    // verify: OK; the sample opens every live body and finds a1 unreadable, as expected.
    CliRun.Result verified =
        CliRun.run(options, "verify", "--decrypt-sample", "100", "--key-dir", keyDir.toString());
    assertThat(verified.exitCode()).as(verified.out() + verified.err()).isZero();
    assertThat(verified.out())
        .contains("verify: OK")
        .contains("decrypt-sample: OK, 13 rows sampled, 12 decrypted to their plaintext digest,"
            + " 1 erased (unreadable, as expected), 0 findings");

    // history: versions with their txn version, seq range and operation.
    CliRun.Result history = CliRun.run(options, "history", "--tenant", TENANT, "--table", "silver");
    assertThat(history.exitCode()).as(history.out() + history.err()).isZero();
    assertThat(history.out()).contains("acme/silver/memories").contains("rewrite").contains("data");
    List<TableHistory.Version> versions = lake.history(SILVER);
    TableHistory.Version eraseVersion = TableHistory.asOfSeq(versions, erase).orElseThrow();
    assertThat(eraseVersion.operation()).isEqualTo(TableHistory.Operation.REWRITE);
    assertThat(eraseVersion.covers(erase)).isTrue();
    assertThat(history.out()).containsPattern(
        "\\s" + eraseVersion.version() + "\\s.*\\s" + eraseVersion.txnVersion() + "\\s+"
            + eraseVersion.seqFrom() + " \\.\\. " + eraseVersion.seqTo() + "\\s+rewrite");

    // verify --as-of-seq: the lake before the erase, and at it, against the outbox fold.
    for (long seq : List.of(beforeErase, erase)) {
      CliRun.Result asOf = CliRun.run(options, "verify", "--as-of-seq", Long.toString(seq));
      assertThat(asOf.exitCode()).as(asOf.out() + asOf.err()).isZero();
      assertThat(asOf.out()).contains("as of seq " + seq).contains("verify: OK");
    }

    // VACUUM refuses a retention below the minimum, by name.
    CliRun.Result refused = CliRun.run(options, "maintain", "vacuum", "--retain", "1h");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err()).contains("RETENTION_BELOW_MINIMUM")
        .contains("maintain.vacuum.min-retention = 7 d");

    // VACUUM with a short test retention: the horizon falls after the erase's commit and before
    // the later versions, which must all still read afterwards.
    Duration retain = Duration.between(eraseCommitted.plusMillis(700), Instant.now());
    options.put("maintain.vacuum.min-retention", "1 ms");
    CliRun.Result vacuum = CliRun.run(options, "maintain", "vacuum", "--retain",
        retain.toMillis() + " ms");
    assertThat(vacuum.exitCode()).as(vacuum.out() + vacuum.err()).isZero();
    assertThat(vacuum.out()).containsPattern("acme/silver/memories: .* deleted [1-9]");
    assertThat(bytesFoundIn(lakeDir, erasedCiphertext)).as("the ciphertext anywhere").isEmpty();
    Instant horizon = Instant.now().minus(retain);
    List<TableHistory.Version> inside = new ArrayList<>();
    long h = -1;
    for (TableHistory.Version v : lake.history(SILVER)) {
      if (v.time().isAfter(horizon)) {
        inside.add(v);
      } else {
        h = v.version();
      }
    }
    assertThat(inside).as("versions committed inside the retention").isNotEmpty();
    for (long v = Math.max(h, 0); v <= lake.tableVersion(SILVER); v++) {
      assertThat(lake.contentsAt(SILVER, v)).as("version %d reads after VACUUM", v).isPresent();
    }
    assertThat(CliRun.run(options, "verify").exitCode()).isZero();

    // Decryption of the erased artifact fails: its key is gone, and no other key opens it.
    assertThat(wrappedKeys()).doesNotContainKey("a1").containsKey("a2");
    assertThatThrownBy(() -> keys.decrypt("a1", wrappedKeys().get("a2"), erasedCiphertext))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void vacuumAlongsideARunningWriterLosesNothing() throws Exception {
    Map<String, String> options = LakeWriterJobs.options(db, tmp.resolve("lake"));
    options.put("maintain.vacuum.min-retention", "1 ms");
    BodyEncryption keys = BodyEncryption.open(tmp.resolve("keys"));
    JobClient job =
        LakeWriterJobs.start(LakeWriterJobs.config(options), tmp.resolve("cp"), null, "vac-it");
    List<CliRun.Result> runs = new ArrayList<>();
    long last;
    try (Connection c = db.connect()) {
      createKeyStore(c);
      Random random = new Random(7);
      for (int i = 1; i <= 40; i++) {
        promote(c, keys, "v" + i);
        if (i > 3) {
          String kind = List.of("demote", "reassign", "simulation_end").get(random.nextInt(3));
          int target = 1 + random.nextInt(i - 1);
          if (i % 5 == 0) {
            eraseWithKey(c, "v" + target);
          } else {
            OutboxWriter.retract(c, TENANT, kind, "v" + target, 1);
          }
        }
        // The writer commits in its own task meanwhile; VACUUM runs between its commits.
        runs.add(CliRun.run(options, "maintain", "vacuum", "--retain", "200 ms"));
        Thread.sleep(100);
      }
      last = OutboxWriter.journal(c, TENANT, "end");
      CommittedFrontier.await(db, LakeWriterJobs.WRITER, last, WAIT);
      runs.add(CliRun.run(options, "maintain", "vacuum", "--retain", "200 ms"));
    } finally {
      LakeWriterJobs.cancel(job, db);
    }
    assertThat(runs).isNotEmpty().allSatisfy(r -> assertThat(r.exitCode()).as(r.err()).isZero());
    assertThat(runs.stream().mapToInt(r -> r.out().split("deleted [1-9]", -1).length - 1).sum())
        .as("VACUUM deleted files while the writer ran: %s", runs.get(runs.size() - 1))
        .isPositive();
    CliRun.Result verified =
        CliRun.run(options, "verify", "--decrypt-sample", "1000", "--key-dir",
            tmp.resolve("keys").toString());
    assertThat(verified.exitCode()).as(verified.out() + verified.err()).isZero();
    assertThat(verified.out()).contains("verify: OK").contains("decrypt-sample: OK, 40 rows");
  }

  private static void createKeyStore(Connection c) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS " + DemoTraffic.DATA_KEY_TABLE
          + " (data_key_id text PRIMARY KEY, artifact_id text NOT NULL, wrapped bytea NOT NULL)");
    }
  }

  /** Promotes the artifact with a sealed ~1 KiB body and stores its wrapped key, in one tx. */
  private static byte[] promote(Connection c, BodyEncryption keys, String artifact)
      throws Exception {
    byte[] plaintext = new byte[1024];
    new Random(artifact.hashCode()).nextBytes(plaintext);
    BodyEncryption.EncryptedBody sealed = keys.encrypt(artifact, plaintext);
    c.setAutoCommit(false);
    try {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + DemoTraffic.DATA_KEY_TABLE
          + " (data_key_id, artifact_id, wrapped) VALUES (?, ?, ?)")) {
        ps.setString(1, sealed.dataKeyId());
        ps.setString(2, artifact);
        ps.setBytes(3, sealed.wrappedDataKey());
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
              + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
              + " plaintext_digest, ciphertext_digest, body, data_key_id)"
              + " VALUES (?, 'materialize', ?, 1, 'wa-1', '/notes/a.md', 'alice',"
              + " 'alice@acme', 'bob', 'human', ?, ?, ?, ?)")) {
        ps.setString(1, TENANT);
        ps.setString(2, artifact);
        ps.setString(3, sealed.plaintextDigest());
        ps.setString(4, sealed.ciphertextDigest());
        ps.setBytes(5, sealed.ciphertext());
        ps.setString(6, sealed.dataKeyId());
        ps.executeUpdate();
      }
      c.commit();
    } finally {
      c.setAutoCommit(true);
    }
    return sealed.ciphertext();
  }

  /** The erase row and the deletion of the version's data key, in one transaction. */
  private static long eraseWithKey(Connection c, String artifact) throws SQLException {
    c.setAutoCommit(false);
    try {
      long seq = OutboxWriter.retract(c, TENANT, "erase", artifact, 1);
      try (PreparedStatement ps = c.prepareStatement(
          "DELETE FROM " + DemoTraffic.DATA_KEY_TABLE + " WHERE artifact_id = ?")) {
        ps.setString(1, artifact);
        ps.executeUpdate();
      }
      c.commit();
      return seq;
    } finally {
      c.setAutoCommit(true);
    }
  }

  private Map<String, byte[]> wrappedKeys() throws SQLException {
    Map<String, byte[]> keys = new java.util.HashMap<>();
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(
            "SELECT artifact_id, wrapped FROM " + DemoTraffic.DATA_KEY_TABLE)) {
      while (rs.next()) {
        keys.put(rs.getString(1), rs.getBytes(2));
      }
    }
    return keys;
  }

  /**
   * Every regular file under {@code root} that holds any 16-byte window of {@code secret} (at 16
   * offsets spread over it), so that a split or partly copied ciphertext is found too.
   */
  static List<Path> bytesFoundIn(Path root, byte[] secret) throws Exception {
    List<byte[]> needles = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      int from = (int) ((long) i * (secret.length - 16) / 15);
      needles.add(java.util.Arrays.copyOfRange(secret, from, from + 16));
    }
    List<Path> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        byte[] bytes = Files.readAllBytes(file);
        if (needles.stream().anyMatch(n -> indexOf(bytes, n) >= 0)) {
          found.add(file);
        }
      }
    }
    return found;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
