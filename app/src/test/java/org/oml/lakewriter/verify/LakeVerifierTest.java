package org.oml.lakewriter.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Issue 11 item 5: {@code verify} compares silver per key with a fold of the outbox, and names
 * what differs. Each test commits a lake with the real Kernel client: the correct one (what the
 * silver rules say the writer must produce), or one with a defect, such as a lost retraction, a
 * duplicated row or a flipped state. One outbox, on a real PostgreSQL, serves every test.
 *
 * <pre>
 *   s1 materialize a1      s4 reassign a2 -> wa-2     s7 journal
 *   s2 materialize a2      s5 erase a2                s8 materialize a1 again (producer retry)
 *   s3 demote a1           s6 materialize a3, unratified: dead-lettered
 *                          s9 demote a4 (no row: changes nothing)
 * </pre>
 *
 * Silver must hold a1 (demoted, seq s3, wa-1) and a2 (erased, seq s5, wa-2), nothing else.
 *
 * <p>Issue 15 adds gold: s10 materialize a5 (wa-1), s11 wa-1 validated, s12 wa-2 invalidated.
 * Gold at s12: lineage a1, a2, j1, a5; workareas wa-1 (validated), wa-2 (invalidated); one
 * membership, a5 in wa-1. Every lake below also commits the gold the rules describe up to its
 * version (the fold of its bronze), and the gold tests tamper with it through Kernel.
 */
class LakeVerifierTest {
  private static final String T = "acme";
  private static final TableId SILVER = TableId.of(T, TableKind.SILVER_MEMORIES);
  private static final TableId BRONZE = TableId.of(T, TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId DEAD = TableId.of(T, TableKind.DEAD_LETTER);
  private static EmbeddedPostgresServer pg;
  private static long s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12;

  @TempDir Path lake;

  @BeforeAll
  static void outbox() throws SQLException {
    pg = EmbeddedPostgresServer.start();
    try (Connection c = pg.connect()) {
      OutboxContract.apply(c, "oml_lake_pub");
      s1 = materialize(c, "a1", "bob");
      s2 = materialize(c, "a2", "bob");
      s3 = retract(c, "demote", "a1", null);
      s4 = retract(c, "reassign", "a2", "wa-2");
      s5 = retract(c, "erase", "a2", null);
      s6 = materialize(c, "a3", "alice");
      s7 = retract(c, "journal", "j1", null);
      s8 = materialize(c, "a1", "bob");
      s9 = retract(c, "demote", "a4", null);
      s10 = materialize(c, "a5", "bob");
      s11 = validation(c, "workarea_validated", "wa-1", "/teams/one");
      s12 = validation(c, "workarea_invalidated", "wa-2", null);
    }
  }

  @AfterAll
  static void stop() {
    pg.close();
  }

  @Test
  void theLakeTheSilverRulesDescribeVerifiesOk() throws Exception {
    commitLake(s9, correctSilver());
    LakeVerifier.Result result = verify(s9);
    assertThat(result.problems()).isEmpty();
    assertThat(result.ok()).isTrue();
    assertThat(result.tenants().get(T).silverTxnVersion()).isEqualTo(s9);
  }

  @Test
  void aLostDemoteIsAStateMismatch() throws Exception {
    List<TableRow> silver = correctSilver();
    silver.set(0, silverRow("a1", "active", s1, "wa-1"));
    commitLake(s9, silver);
    assertThat(names(verify(s9))).containsExactlyInAnyOrder("STATE_MISMATCH", "SEQ_MISMATCH");
    assertThat(verify(s9).problems())
        .anySatisfy(p -> assertThat(p).startsWith("STATE_MISMATCH acme/silver/memories a1@1")
            .contains("active in silver").contains("says demoted"));
  }

  /** Issue 16: a plaintext body that an older writer admitted (its digest matches) is named. */
  @Test
  void aPlaintextBodyInSilverIsNamed() throws Exception {
    List<TableRow> silver = correctSilver();
    byte[] plaintext = "my private note, which no one was to read".getBytes(StandardCharsets.UTF_8);
    silver.set(0, with(silver.get(0), b -> b.set("body", plaintext)));
    commitLake(s9, silver);
    assertThat(verify(s9).problems())
        .anySatisfy(p -> assertThat(p).startsWith("PLAINTEXT_BODY acme/silver/memories a1@1")
            .contains("not a Tink ciphertext"));
  }

  @Test
  void anErasedRowThatKeepsItsBodyIsNamed() throws Exception {
    List<TableRow> silver = correctSilver();
    byte[] ciphertext = (byte[]) firstMaterialize("a2").get("body");
    silver.set(1, with(silver.get(1), b -> b.set("body", ciphertext)));
    commitLake(s9, silver);
    assertThat(verify(s9).problems())
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("ERASED_BODY_PRESENT acme/silver/memories a2@1")
            .contains("still holds a body of " + ciphertext.length + " bytes"));
  }

  @Test
  void aLostReassignIsAWorkareaMismatch() throws Exception {
    List<TableRow> silver = correctSilver();
    silver.set(1, silverRow("a2", "erased", s5, "wa-1"));
    commitLake(s9, silver);
    assertThat(names(verify(s9))).containsExactly("WORKAREA_MISMATCH");
  }

  @Test
  void aRePromotionThatAddedARowIsADuplicate() throws Exception {
    List<TableRow> silver = correctSilver();
    silver.add(silverRow("a1", "active", s8, "wa-1"));
    commitLake(s9, silver);
    assertThat(names(verify(s9))).contains("DUPLICATE_ROW");
    assertThat(verify(s9).problems()).anySatisfy(p -> assertThat(p)
        .startsWith("DUPLICATE_ROW acme/silver/memories a1@1"));
  }

  @Test
  void aMissingRowATombstoneAndADeadLetteredBodyAreNamed() throws Exception {
    List<TableRow> silver = new ArrayList<>(correctSilver().subList(0, 1)); // a2 lost
    silver.add(silverRow("a4", "demoted", s9, "wa-1")); // a tombstone for a retraction
    silver.add(silverRow("a3", "active", s6, "wa-1")); // a dead letter's body
    commitLake(s9, silver);
    LakeVerifier.Result result = verify(s9);
    assertThat(result.problems())
        .anySatisfy(p -> assertThat(p).startsWith("MISSING_ROW acme/silver/memories a2@1"))
        .anySatisfy(p -> assertThat(p).startsWith("EXTRA_ROW acme/silver/memories a4@1"))
        .anySatisfy(p -> assertThat(p).startsWith("EXTRA_ROW acme/silver/memories a3@1"));
    assertThat(result.ok()).isFalse();
  }

  @Test
  void aTamperedDigestIsADigestMismatch() throws Exception {
    List<TableRow> silver = correctSilver();
    silver.set(0, with(silver.get(0), b -> b.set("ciphertext_digest", "00".repeat(32))));
    commitLake(s9, silver);
    assertThat(names(verify(s9))).containsOnly("DIGEST_MISMATCH");
  }

  @Test
  void aTenantBehindTheFrontierIsFoldedToItsOwnVersionAndSilverBehindIsNamed() throws Exception {
    // Silver committed up to s2 only: both rows active. Folded to its own version, that is right.
    commitLake(s9, List.of(silverRow("a1", "active", s1, "wa-1"),
        silverRow("a2", "active", s2, "wa-1")), s2);
    assertThat(verify(s2).problems()).isEmpty();
    // Verified up to s9, the demote at s3 should have reached silver already.
    assertThat(verify(s9).problems()).containsExactly("SILVER_BEHIND acme/silver/memories a1@1: seq "
        + s3 + " (demote) at or below the frontier " + s9
        + " changes silver, whose txn version is " + s2);
  }

  @Test
  void aRewriteDroppedByAnotherCommitIsFound() throws Exception {
    // The correct lake, then a copy-on-write commit through the Kernel client that puts a1 back
    // to the row it had before its demote: the retraction is lost, the counts are unchanged.
    commitLake(s9, correctSilver());
    try (KernelDeltaTableClient client = client()) {
      CandidateFiles files = client.filesThatMayHold(SILVER, List.of(new ArtifactKey("a1", 1)));
      List<TableRow> rows = new ArrayList<>();
      for (DataFile f : files.files()) {
        for (TableRow row : client.readDataFile(SILVER, f)) {
          rows.add("a1".equals(row.value(0)) ? silverRow("a1", "active", s1, "wa-1") : row);
        }
      }
      client.commitRewrite(SILVER, s9 + 1, client.writeDataFiles(SILVER, rows),
          new Rewrite(files.txnVersion(), files.files()));
    }
    LakeVerifier.Result result = verify(s9);
    assertThat(result.tenants().get(T).silver()).isEqualTo(2);
    assertThat(names(result)).contains("STATE_MISMATCH");
  }

  @Test
  void theVerifyCommandExitsNonZeroAndNamesTheFinding() throws Exception {
    List<TableRow> silver = correctSilver();
    silver.set(1, silverRow("a2", "active", s2, "wa-1")); // reassign and erase both lost
    commitLake(s9, silver);
    String[] args = {"verify", "--frontier", Long.toString(s9), "-D", "postgres.url=" + pg.jdbcUrl(),
        "-D", "postgres.user=" + EmbeddedPostgresServer.USER, "-D",
        "lake.root=" + lake.toUri()};
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream stdout = System.out;
    int code;
    System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      code = org.oml.lakewriter.cli.LakeWriterCli.execute(args);
    } finally {
      System.setOut(stdout);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(printed).isEqualTo(1);
    assertThat(printed).contains("verify: FAILED")
        .contains("STATE_MISMATCH acme/silver/memories a2@1")
        .contains("WORKAREA_MISMATCH acme/silver/memories a2@1");
  }

  @Test
  void theGoldTheRulesDescribeVerifiesOk() throws Exception {
    commitLake(s12, silverAt12());
    assertThat(verify(s12).problems()).isEmpty();
    LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
    Map<String, Map<String, Object>> lineage = new LinkedHashMap<>();
    reader.rows(TableId.of(T, TableKind.GOLD_LINEAGE))
        .forEach(r -> lineage.put((String) r.get("artifact_id"), r));
    // What the rules say, written out by hand rather than folded.
    assertThat(lineage).containsOnlyKeys("a1", "a2", "j1", "a5");
    assertThat(lineage.get("a1")).containsEntry("state", "demoted").containsEntry("seq", s3)
        .containsEntry("promoted_seq", s1).containsEntry("submitted_seq", null)
        .containsEntry("paths", "[\"/notes/a.md\"]");
    assertThat((String) lineage.get("a1").get("retractions"))
        .startsWith("[{\"seq\":" + s3 + ",\"kind\":\"demote\",\"time\":");
    assertThat(lineage.get("a2")).containsEntry("state", "erased").containsEntry("seq", s5)
        .containsEntry("workarea_id", "wa-2");
    assertThat((String) lineage.get("a2").get("retractions"))
        .contains("\"kind\":\"reassign\"").contains("\"kind\":\"erase\"");
    assertThat(lineage.get("j1")).containsEntry("state", null).containsEntry("submitted_seq", s7)
        .containsEntry("promoted_seq", null).containsEntry("paths", "[]")
        .containsEntry("retractions", "[]");
    assertThat(lineage.get("a5")).containsEntry("state", "active").containsEntry("seq", s10);
    assertThat(reader.rows(TableId.of(T, TableKind.GOLD_WORKAREAS)))
        .extracting(r -> r.get("workarea_id") + " " + r.get("state") + " " + r.get("seq"))
        .containsExactlyInAnyOrder("wa-1 validated " + s11, "wa-2 invalidated " + s12);
    assertThat(reader.rows(TableId.of(T, TableKind.GOLD_WORKAREA_MEMORIES)))
        .extracting(r -> r.get("artifact_id") + " " + r.get("workarea_id") + " " + r.get("seq")
            + " " + r.get("validated_seq"))
        .containsExactly("a5 wa-1 " + s11 + " " + s11);
  }

  @Test
  void goldTamperedThroughKernelIsNamedPerTableAndKind() throws Exception {
    commitLake(s12, silverAt12());
    GoldFold gold = correctGold(s12);
    try (KernelDeltaTableClient client = client()) {
      List<TableRow> lineage = new ArrayList<>();
      for (TableRow r : gold.lineageRows()) {
        lineage.add("a1".equals(r.value(0))
            ? r.toBuilder(LakeSchemas.GOLD_LINEAGE, r.seq()).set("state", "active").build() : r);
      }
      replace(client, TableKind.GOLD_LINEAGE, lineage);
      replace(client, TableKind.GOLD_WORKAREAS,
          gold.workareaRows().stream().filter(r -> !"wa-2".equals(r.value(0))).toList());
      List<TableRow> memories = new ArrayList<>(gold.membershipRows());
      memories.add(memories.get(0).toBuilder(LakeSchemas.GOLD_WORKAREA_MEMORIES, s11)
          .set("artifact_id", "a1").build());
      replace(client, TableKind.GOLD_WORKAREA_MEMORIES, memories);
    }
    assertThat(verify(s12).problems()).containsExactly(
        "GOLD_LINEAGE_MISMATCH acme/gold/lineage a1@1: state (table: active, fold: demoted)",
        "GOLD_MEMBERSHIP_EXTRA acme/gold/workarea_memories a1@1: the table holds 1 row(s) (seq "
            + s11 + ") but the fold has none",
        "GOLD_WORKAREA_MISSING acme/gold/workareas wa-2: the fold has a row (seq " + s12
            + ") but the table has none");
  }

  @Test
  void aLostGoldTableIsGoldBehind() throws Exception {
    commitLake(s12, silverAt12());
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.walk(lake.resolve(T).resolve("gold").resolve("workarea_memories"))) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    assertThat(verify(s12).problems()).containsExactly(
        "GOLD_BEHIND acme/gold/workarea_memories a5@1: the events after its txn version -1 (the"
            + " table is missing) up to " + s12 + " change 1 of its rows");
  }

  private void replace(KernelDeltaTableClient client, TableKind kind, List<TableRow> rows)
      throws Exception {
    TableId table = TableId.of(T, kind);
    client.replaceContent(table, client.readTxnVersion(table), client.writeDataFiles(table, rows));
  }

  private static List<TableRow> silverAt12() throws SQLException {
    List<TableRow> rows = correctSilver();
    rows.add(silverRow("a5", "active", s10, "wa-1"));
    return rows;
  }

  private LakeVerifier.Result verify(long frontier) throws Exception {
    try (Connection c = pg.connect()) {
      return LakeVerifier.verify(c, "public", LakeReader.open(LakeConfig.of(lake.toUri().toString())),
          frontier);
    }
  }

  private static List<String> names(LakeVerifier.Result result) {
    return result.findings().stream().map(Finding::name).toList();
  }

  private KernelDeltaTableClient client() throws Exception {
    return new KernelDeltaTableClient(LakeConfig.of(lake.toUri().toString()));
  }

  private void commitLake(long version, List<TableRow> silver) throws Exception {
    commitLake(version, silver, version);
  }

  /** Bronze holds every seq but s6, the dead letter s6; silver the given rows. */
  private void commitLake(long version, List<TableRow> silver, long silverVersion)
      throws Exception {
    List<TableRow> bronze = new ArrayList<>();
    for (long s : new long[] {s1, s2, s3, s4, s5, s7, s8, s9, s10, s11, s12}) {
      if (s <= version) {
        bronze.add(TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, s).set("tenant_id", T)
            .build());
      }
    }
    TableRow dead = TableRow.builder(LakeSchemas.DEAD_LETTER, s6).set("tenant_id", T)
        .set("error_class", "UNRATIFIED_BODY").set("message", "unratified").build();
    try (KernelDeltaTableClient client = client()) {
      client.commit(BRONZE, version, client.writeDataFiles(BRONZE, bronze));
      client.commit(DEAD, version, client.writeDataFiles(DEAD, List.of(dead)));
      client.commit(SILVER, silverVersion, client.writeDataFiles(SILVER, silver));
      GoldFold gold = correctGold(version);
      for (TableKind kind : GoldFold.goldKinds()) {
        TableId table = TableId.of(T, kind);
        client.commit(table, version, client.writeDataFiles(table, gold.rows(kind)));
      }
    }
  }

  /** The gold fold of the outbox up to {@code version}, the dead letter s6 left out. */
  private static GoldFold correctGold(long version) throws SQLException {
    GoldFold fold = new GoldFold();
    try (Connection c = pg.connect();
        PreparedStatement ps = c.prepareStatement(
            "SELECT * FROM oml_outbox WHERE seq <= ? AND seq <> ? ORDER BY seq")) {
      ps.setLong(1, version);
      ps.setLong(2, s6);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long v = rs.getLong("artifact_version");
          fold.apply(new GoldFold.Event(rs.getLong("seq"), rs.getString("kind"),
              rs.getString("tenant_id"), rs.getString("artifact_id"), rs.wasNull() ? null : v,
              rs.getString("workarea_id"), rs.getString("path_at_write"),
              rs.getString("writer_identity"), rs.getString("principal"),
              rs.getString("ratified_by"), rs.getString("provenance_class"),
              rs.getString("plaintext_digest"), rs.getString("ciphertext_digest"),
              rs.getString("data_key_id"), GoldFold.micros(
                  rs.getObject("event_time", java.time.OffsetDateTime.class).toInstant())));
        }
      }
    }
    return fold;
  }

  private static List<TableRow> correctSilver() throws SQLException {
    List<TableRow> rows = new ArrayList<>();
    rows.add(silverRow("a1", "demoted", s3, "wa-1"));
    rows.add(silverRow("a2", "erased", s5, "wa-2"));
    return rows;
  }

  /** The silver row of the artifact's first materialize, with the given state, seq, workarea. */
  private static TableRow silverRow(String artifact, String state, long seq, String workarea)
      throws SQLException {
    Map<String, Object> m = firstMaterialize(artifact);
    TableRow.Builder b = TableRow.builder(LakeSchemas.SILVER_MEMORIES, seq)
        .set("artifact_id", artifact).set("version", 1L).set("state", state)
        .set("workarea_id", workarea);
    m.forEach(b::set);
    if (state.equals("erased")) {
      b.set("body", null); // an erase clears the body in the rewritten file
    }
    return b.build();
  }

  private static TableRow with(TableRow row, UnaryOperator<TableRow.Builder> change) {
    TableRow.Builder b = TableRow.builder(LakeSchemas.SILVER_MEMORIES, row.seq());
    List<String> names = LakeSchemas.SILVER_MEMORIES.names();
    for (int i = 0; i < names.size(); i++) {
      if (!names.get(i).equals("seq")) {
        b.set(names.get(i), row.value(i));
      }
    }
    return change.apply(b).build();
  }

  private static Map<String, Object> firstMaterialize(String artifact) throws SQLException {
    try (Connection c = pg.connect();
        PreparedStatement ps = c.prepareStatement(
            "SELECT tenant_id, path_at_write, writer_identity, principal, ratified_by,"
                + " provenance_class, plaintext_digest, ciphertext_digest, data_key_id, body,"
                + " (extract(epoch FROM event_time) * 1000000)::bigint AS event_time"
                + " FROM oml_outbox WHERE kind = 'materialize' AND artifact_id = ?"
                + " ORDER BY seq LIMIT 1")) {
      ps.setString(1, artifact);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return firstMaterialize("a1"); // a4 was never promoted: borrow a1's columns
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (String column : List.of("tenant_id", "path_at_write", "writer_identity", "principal",
            "ratified_by", "provenance_class", "plaintext_digest", "ciphertext_digest",
            "data_key_id")) {
          m.put(column, rs.getString(column));
        }
        m.put("body", rs.getBytes("body"));
        m.put("event_time", rs.getLong("event_time"));
        return m;
      }
    }
  }

  private static long materialize(Connection c, String artifact, String ratifier)
      throws SQLException {
    byte[] text = ("ciphertext of " + artifact).getBytes(StandardCharsets.UTF_8);
    byte[] body = new byte[5 + text.length + 28]; // the shape of a Tink ciphertext
    body[0] = 0x01;
    System.arraycopy(text, 0, body, 5, text.length);
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
            + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
            + " plaintext_digest, ciphertext_digest, body, data_key_id)"
            + " VALUES (?, 'materialize', ?, 1, 'wa-1', '/notes/a.md', 'alice', 'alice@acme', ?,"
            + " 'human', ?, ?, ?, ?) RETURNING seq")) {
      ps.setString(1, T);
      ps.setString(2, artifact);
      ps.setString(3, ratifier);
      ps.setString(4, EventValidator.sha256Hex(("plain " + artifact).getBytes(StandardCharsets.UTF_8)));
      ps.setString(5, EventValidator.sha256Hex(body));
      ps.setBytes(6, body);
      ps.setString(7, "dek-" + artifact);
      return seq(ps);
    }
  }

  private static long validation(Connection c, String kind, String workarea, String path)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO oml_outbox (tenant_id, kind, workarea_id, path_at_write, writer_identity)"
            + " VALUES (?, ?, ?, ?, 'reviewer@acme') RETURNING seq")) {
      ps.setString(1, T);
      ps.setString(2, kind);
      ps.setString(3, workarea);
      ps.setString(4, path);
      return seq(ps);
    }
  }

  private static long retract(Connection c, String kind, String artifact, String workarea)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
            + " envelope) VALUES (?, ?, ?, 1, ?, '{}') RETURNING seq")) {
      ps.setString(1, T);
      ps.setString(2, kind);
      ps.setString(3, artifact);
      ps.setString(4, workarea);
      return seq(ps);
    }
  }

  private static long seq(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
