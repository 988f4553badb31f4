package org.oml.lakewriter.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.demo.BodyEncryption;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Issue 16, end to end on real parts (PostgreSQL with logical WAL, the whole job on a MiniCluster,
 * Delta tables read back by Kernel through {@link LakeReader}):
 *
 * <ul>
 *   <li><b>Tenant isolation.</b> Hostile tenant ids ({@code ../x}, {@code a/b}, {@code %2e%2e},
 *       look-alikes, "", 64 characters, a trailing dot, {@code _invalid}) beside tenants that share
 *       artifact ids. After the run no file lies outside {@code <lake>/<valid tenant>/} or {@code
 *       <lake>/_invalid/}, and no row under a tenant's prefix carries another tenant's id.
 *   <li><b>No plaintext, no held body.</b> Unique canary plaintexts go into real Tink-sealed
 *       promotion bodies (before encryption), into self-ratified promotions, into plaintext
 *       promotions (PLAINTEXT_BODY) and into the body column of non-promotion rows. Every byte of
 *       every lake file is then scanned, and every decoded row value too (a compressed Parquet page
 *       could hide a plaintext from the byte scan): no canary.
 * </ul>
 */
class TenantIsolationAndCanaryITCase extends PipelineITCaseBase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String[] GOOD = {"acme", "globex", "a".repeat(63)};
  private static final String[] HOSTILE = {
    "../x", "a/b", "%2e%2e", "ａｃｍｅ", "аcme", "", "a".repeat(64), "a".repeat(65), "acme.",
    "_invalid", "ACME", "acme/../globex", ".."
  };

  private final List<String> canaries = new ArrayList<>();

  private String canary(String where) {
    String c = "CANARY-" + where + "-" + UUID.randomUUID();
    canaries.add(c);
    return c;
  }

  @Test
  void hostileTenantsStayOutOfEveryPrefixAndNoCanaryReachesALakeFile() throws Exception {
    Path lakeDir = tmp.resolve("lake");
    BodyEncryption keys = BodyEncryption.open(tmp.resolve("keys"));
    Map<String, String> options = LakeWriterJobs.options(db, lakeDir);
    // Log checkpoints within the test's commits: they are lake files the canaries must miss too.
    options.put("lake.log-checkpoint-interval", "10");
    JobClient job =
        LakeWriterJobs.start(
            LakeWriterJobs.config(options),
            tmp.resolve("cp"),
            null,
            "security-it");
    long last;
    int sealedPromotions = 0;
    try (Connection c = db.connect()) {
      for (String tenant : GOOD) {
        for (int i = 0; i < 3; i++) {
          String artifact = "shared-" + i; // every tenant uses the same artifact ids
          OutboxWriter.journal(c, tenant, artifact);
          promoteSealed(c, keys, tenant, artifact, canary("sealed"));
          sealedPromotions++;
        }
        promote(c, tenant, "held", "alice", canary("held").getBytes(StandardCharsets.UTF_8));
        promote(c, tenant, "plain", "bob", canary("plaintext").getBytes(StandardCharsets.UTF_8));
        journalWithBody(c, tenant, canary("journal-body"));
      }
      for (String tenant : HOSTILE) {
        OutboxWriter.journal(c, tenant, "shared-0");
        promote(c, tenant, "shared-1", "bob", canary("hostile-tenant").getBytes(StandardCharsets.UTF_8));
      }
      // More commits, one wave at a time, so the Delta logs get Parquet checkpoints (every 10)
      // and the scan covers them too.
      for (int wave = 0; wave < 11; wave++) {
        promoteSealed(c, keys, "acme", "wave-" + wave, canary("wave"));
        sealedPromotions++;
        promote(c, "acme", "wave-held-" + wave, "alice", canary("wave-held").getBytes(StandardCharsets.UTF_8));
        CommittedFrontier.await(db, LakeWriterJobs.WRITER, OutboxWriter.journal(c, "acme", "w"), WAIT);
      }
      last = OutboxWriter.journal(c, "acme", "end");
    }
    CommittedFrontier.await(db, LakeWriterJobs.WRITER, last, WAIT);
    LakeWriterJobs.cancel(job, db);

    // Isolation: every file under a valid tenant's prefix or the lake-level dead-letter prefix.
    List<Path> files;
    try (Stream<Path> walk = Files.walk(lakeDir)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    Set<String> prefixes = new LinkedHashSet<>();
    for (Path f : files) {
      String top = lakeDir.relativize(f).getName(0).toString();
      prefixes.add(top);
      assertThat(top.equals(TableId.INVALID_TENANT_PREFIX) || TableId.isValidTenant(top))
          .as("file %s is outside every valid prefix", lakeDir.relativize(f))
          .isTrue();
      if (top.equals(TableId.INVALID_TENANT_PREFIX)) {
        assertThat(lakeDir.relativize(f).startsWith(TableId.invalidTenantDeadLetter().relativePath()))
            .as("under _invalid only its dead letters: %s", lakeDir.relativize(f))
            .isTrue();
      }
    }
    assertThat(prefixes).contains(GOOD).contains(TableId.INVALID_TENANT_PREFIX);
    LakeReader reader = LakeReader.open(LakeConfig.of(lakeDir.toUri().toString()));
    long rowsChecked = 0;
    long nonGoldRows = 0;
    List<Map<String, Object>> allRows = new ArrayList<>();
    for (TableId table : reader.tables()) {
      boolean gold = table.kind().path().startsWith("gold/");
      for (Map<String, Object> row : reader.rows(table)) {
        allRows.add(row);
        rowsChecked++;
        nonGoldRows += gold ? 0 : 1;
        if (table.prefix().equals(TableId.INVALID_TENANT_PREFIX)) {
          assertThat(TableId.isValidTenant((String) row.get("tenant_id"))).isFalse();
        } else {
          assertThat(row.get("tenant_id")).as("row %s of %s", row.get("seq"), table)
              .isEqualTo(table.prefix());
        }
      }
    }

    // No canary: every byte of every file, and every decoded value.
    long bytes = 0;
    List<String> hits = new ArrayList<>();
    for (Path f : files) {
      byte[] content = Files.readAllBytes(f);
      bytes += content.length;
      for (String canary : canaries) {
        if (indexOf(content, canary.getBytes(StandardCharsets.UTF_8)) >= 0) {
          hits.add(canary + " in " + lakeDir.relativize(f));
        }
      }
    }
    for (Map<String, Object> row : allRows) {
      for (Object value : row.values()) {
        String text =
            value instanceof byte[]
                ? new String((byte[]) value, StandardCharsets.ISO_8859_1)
                : String.valueOf(value);
        for (String canary : canaries) {
          if (text.contains(canary)) {
            hits.add(canary + " in a decoded row " + row.get("seq"));
          }
        }
      }
    }
    System.out.printf(
        "canary scan: %d files, %d bytes, %d rows, %d canaries, %d hits%n",
        files.size(), bytes, rowsChecked, canaries.size(), hits.size());
    assertThat(hits).isEmpty();
    // Bronze plus dead letters hold every outbox row once; silver only the sealed promotions
    // (gold's rows, derived from bronze, are checked for their tenant and canaries above).
    assertThat(nonGoldRows)
        .isEqualTo(db.scalarLong("SELECT count(*) FROM oml_outbox") + sealedPromotions);
    assertThat(files.stream().map(Path::toString))
        .anyMatch(p -> p.endsWith(".parquet"))
        .anyMatch(p -> p.endsWith(".json"))
        .anyMatch(p -> p.contains("dead_letter"))
        .anyMatch(p -> p.endsWith(".checkpoint.parquet"))
        .anyMatch(p -> p.endsWith(".crc"));
  }

  /** A promotion sealed by the producer's real Tink envelope encryption, canary in the plaintext. */
  private static void promoteSealed(
      Connection c, BodyEncryption keys, String tenant, String artifact, String canary)
      throws Exception {
    BodyEncryption.EncryptedBody sealed =
        keys.encrypt(artifact, (canary + " is the memory text").getBytes(StandardCharsets.UTF_8));
    insertPromotion(c, tenant, artifact, "bob", sealed.ciphertext(), sealed.dataKeyId());
  }

  /** A promotion whose body is {@code body} as given, with its digest. */
  private static void promote(
      Connection c, String tenant, String artifact, String ratifiedBy, byte[] body)
      throws SQLException {
    insertPromotion(c, tenant, artifact, ratifiedBy, body, "dek-" + artifact);
  }

  private static void insertPromotion(
      Connection c, String tenant, String artifact, String ratifiedBy, byte[] body, String keyId)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, body, data_key_id)"
                + " VALUES (?, 'materialize', ?, 1, 'wa-1', '/notes/a.md', 'alice', 'alice@x', ?,"
                + " 'human', 'pd', ?, ?, ?)")) {
      ps.setString(1, tenant);
      ps.setString(2, artifact);
      ps.setString(3, ratifiedBy);
      ps.setString(4, EventValidator.sha256Hex(body));
      ps.setBytes(5, body);
      ps.setString(6, keyId);
      ps.executeUpdate();
    }
  }

  /** A journal row that (against the contract) carries a body: bronze never copies one. */
  private static void journalWithBody(Connection c, String tenant, String canary)
      throws SQLException {
    byte[] body = canary.getBytes(StandardCharsets.UTF_8);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
                + " writer_identity, principal, plaintext_digest, envelope, body,"
                + " ciphertext_digest) VALUES (?, 'journal', 'jb', 1, 'alice', 'alice@x', 'pd',"
                + " '{}', ?, ?) RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setBytes(2, body);
      ps.setString(3, EventValidator.sha256Hex(body));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
      }
    }
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
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
