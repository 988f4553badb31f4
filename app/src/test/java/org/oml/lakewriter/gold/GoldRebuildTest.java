package org.oml.lakewriter.gold;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.cli.LakeWriterCli;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.lease.LeaderLease;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseSettings;
import org.oml.lakewriter.verify.GoldFold;

/**
 * Issue 15 item 3: {@code lakewriter maintain rebuild-gold} on a real PostgreSQL (for the live
 * writer check) and a real Delta lake whose bronze is committed through Kernel from the outbox's
 * own rows. The streamed-equals-rebuilt proof needs the writer: it is in the tests module
 * ({@code GoldWorkloadITCase}).
 */
class GoldRebuildTest {
  private static final String T = "acme";
  private static final TableId BRONZE = TableId.of(T, TableKind.BRONZE_JOURNAL_EVENTS);
  private static EmbeddedPostgresServer pg;
  private static long last;

  @TempDir Path lake;

  @BeforeAll
  static void outbox() throws SQLException {
    pg = EmbeddedPostgresServer.start();
    try (Connection c = pg.connect()) {
      OutboxContract.apply(c, "oml_lake_pub");
      insert(c, "journal", "a", "wa-1", "/a");
      insert(c, "materialize", "a", "wa-1", "/a");
      insert(c, "materialize", "b", "wa-2", "/b");
      insert(c, "workarea_validated", null, "wa-1", "/teams/1");
      insert(c, "reassign", "b", "wa-1", "/b2");
      insert(c, "materialize", "a", "wa-1", "/a"); // a re-promotion
      insert(c, "demote", "ghost", null, null); // no row
      insert(c, "workarea_invalidated", null, "wa-2", null);
      insert(c, "simulation_end", "a", null, null);
      last = insert(c, "journal", "c", "wa-2", "/c");
    }
  }

  @AfterAll
  static void stop() {
    pg.close();
  }

  @Test
  void aLostGoldIsRebuiltFromBronzeAndCheckedEqual() throws Exception {
    commitBronze();
    Run check = cli("maintain", "rebuild-gold", "--tenant", T, "--check");
    assertThat(check.code).as(check.out).isEqualTo(1);
    assertThat(check.out).contains("GOLD_BEHIND acme/gold/lineage a@1")
        .contains("GOLD_BEHIND acme/gold/workareas wa-1")
        .contains("GOLD_BEHIND acme/gold/workarea_memories");

    Run rebuild = cli("maintain", "rebuild-gold", "--tenant", T);
    assertThat(rebuild.code).as(rebuild.out).isEqualTo(0);
    LakeReader reader = reader();
    GoldFold fold = foldOfBronze(reader);
    for (TableKind kind : GoldFold.goldKinds()) {
      TableContents contents = reader.contents(TableId.of(T, kind)).orElseThrow();
      assertThat(contents.txnVersion()).isEqualTo(last);
      assertThat(contents.rows()).as(kind.path()).containsExactlyInAnyOrderElementsOf(
          fold.rows(kind).stream().map(r -> GoldFold.asReadRow(LakeSchemas.of(kind), r)).toList());
    }
    assertThat(reader.rows(TableId.of(T, TableKind.GOLD_WORKAREA_MEMORIES)))
        .extracting(r -> r.get("artifact_id")).containsExactly("b"); // a ended, wa-2 invalidated
    Run again = cli("maintain", "rebuild-gold", "--tenant", T, "--check");
    assertThat(again.code).as(again.out).isEqualTo(0);
    assertThat(again.out).contains("OK, gold equals the fold of bronze");

    // Rebuilt once more at the same version: no txn action (Kernel refuses one at V), same rows.
    long lineageVersion = reader.tableVersion(TableId.of(T, TableKind.GOLD_LINEAGE));
    Run twice = cli("maintain", "rebuild-gold", "--tenant", T);
    assertThat(twice.code).as(twice.out).isEqualTo(0);
    assertThat(twice.out).contains("no txn action: already at it");
    assertThat(reader.tableVersion(TableId.of(T, TableKind.GOLD_LINEAGE)))
        .isEqualTo(lineageVersion + 1);
    assertThat(reader.txnVersion(TableId.of(T, TableKind.GOLD_LINEAGE))).isEqualTo(last);
    assertThat(cli("maintain", "rebuild-gold", "--tenant", T, "--check").code).isEqualTo(0);
  }

  @Test
  void aDeletedGoldTableAndADamagedOneAreRebuilt() throws Exception {
    commitBronze();
    assertThat(cli("maintain", "rebuild-gold", "--tenant", T).code).isEqualTo(0);
    deleteTable(TableKind.GOLD_WORKAREAS);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config())) {
      TableId lineage = TableId.of(T, TableKind.GOLD_LINEAGE);
      client.replaceContent(lineage, last, client.writeDataFiles(lineage, List.of()));
    }
    Run check = cli("maintain", "rebuild-gold", "--tenant", T, "--check");
    assertThat(check.code).isEqualTo(1);
    assertThat(check.out).contains("GOLD_LINEAGE_MISSING acme/gold/lineage a@1")
        .contains("GOLD_BEHIND acme/gold/workareas");
    assertThat(cli("maintain", "rebuild-gold", "--tenant", T).code).isEqualTo(0);
    assertThat(cli("maintain", "rebuild-gold", "--tenant", T, "--check").code).isEqualTo(0);
    assertThat(reader().txnVersion(TableId.of(T, TableKind.GOLD_WORKAREAS))).isEqualTo(last);
  }

  @Test
  void goldAheadOfBronzeIsRefusedByName() throws Exception {
    commitBronze();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config())) {
      TableId lineage = TableId.of(T, TableKind.GOLD_LINEAGE);
      client.commit(lineage, last + 5, client.writeDataFiles(lineage, List.of()));
    }
    for (String[] args : List.of(new String[] {"--check"}, new String[0])) {
      List<String> all = new ArrayList<>(List.of("maintain", "rebuild-gold", "--tenant", T));
      all.addAll(List.of(args));
      Run refused = cli(all.toArray(String[]::new));
      assertThat(refused.code).as(refused.out).isEqualTo(4);
      assertThat(refused.err).contains("GOLD_AHEAD_OF_BRONZE: acme/gold/lineage records txn"
          + " version " + (last + 5) + " but acme/bronze/journal_events only " + last);
    }
  }

  @Test
  void theRebuildIsRefusedWhileAWriterIsLiveButTheCheckRuns() throws Exception {
    commitBronze();
    Properties props = new Properties();
    props.setProperty("user", EmbeddedPostgresServer.USER);
    LeaseSettings lease = new LeaseSettings(pg.jdbcUrl(), props, lake.toUri().toString(), "w1",
        "s1", LeaseHolder.newForThisProcess(), Duration.ofMinutes(5), Duration.ofSeconds(10),
        Duration.ofSeconds(30));
    try (Connection c = pg.connect()) {
      long epoch = LeaderLease.tryAcquire(c, lease, "job-1").epoch();
      try {
        Run refused = cli("maintain", "rebuild-gold", "--tenant", T);
        assertThat(refused.code).isEqualTo(3);
        assertThat(refused.err).contains("MAINTAIN_WRITER_LIVE").contains("leader lease");
        assertThat(reader().contents(TableId.of(T, TableKind.GOLD_LINEAGE))).isEmpty();
        assertThat(cli("maintain", "rebuild-gold", "--tenant", T, "--check").code).isEqualTo(1);
      } finally {
        LeaderLease.release(c, lease, epoch);
      }
    }
  }

  @Test
  void aTenantWithoutBronzeIsNamed() throws Exception {
    commitBronze();
    Run missing = cli("maintain", "rebuild-gold", "--tenant", "nobody", "--check");
    assertThat(missing.code).isEqualTo(2);
    assertThat(missing.err).contains("no table nobody/bronze/journal_events");
  }

  // ---------------------------------------------------------------------------------------------

  private record Run(int code, String out, String err) {}

  private Run cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-D", "postgres.url=" + pg.jdbcUrl(), "-D",
        "postgres.user=" + EmbeddedPostgresServer.USER, "-D", "lake.root=" + lake.toUri()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = LakeWriterCli.execute(all.toArray(String[]::new));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private LakeConfig config() {
    return LakeConfig.of(lake.toUri().toString());
  }

  private LakeReader reader() throws Exception {
    return LakeReader.open(config());
  }

  private void deleteTable(TableKind kind) throws Exception {
    try (Stream<Path> files = Files.walk(lake.resolve(T).resolve(kind.path()))) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  private static GoldFold foldOfBronze(LakeReader reader) throws Exception {
    GoldFold fold = new GoldFold();
    for (Map<String, Object> row : reader.rows(BRONZE)) {
      fold.apply(GoldFold.Event.fromRow(row));
    }
    return fold;
  }

  /** The outbox's rows as bronze rows (every column gold reads), committed at the last seq. */
  private void commitBronze() throws Exception {
    List<TableRow> rows = new ArrayList<>();
    try (Connection c = pg.connect();
        PreparedStatement ps = c.prepareStatement(
            "SELECT *, (extract(epoch FROM event_time) * 1000000)::bigint AS micros"
                + " FROM oml_outbox ORDER BY seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        long v = rs.getLong("artifact_version");
        TableRow.Builder b = TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, rs.getLong("seq"))
            .set("version", rs.wasNull() ? null : v)
            .set("event_time", rs.getLong("micros"));
        for (String column : List.of("artifact_id", "kind", "tenant_id", "workarea_id",
            "path_at_write", "writer_identity", "principal", "ratified_by", "provenance_class",
            "plaintext_digest", "ciphertext_digest", "data_key_id", "envelope")) {
          b.set(column, rs.getString(column));
        }
        rows.add(b.build());
      }
    }
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config())) {
      client.commit(BRONZE, last, client.writeDataFiles(BRONZE, rows));
    }
  }

  private static long insert(Connection c, String kind, String artifact, String workarea,
      String path) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
            + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
            + " plaintext_digest, ciphertext_digest, data_key_id, envelope)"
            + " VALUES ('acme', ?, ?, ?, ?, ?, 'alice', 'alice@acme', 'bob', 'human', 'pd', 'cd',"
            + " 'dek', '{}') RETURNING seq")) {
      ps.setString(1, kind);
      ps.setString(2, artifact);
      ps.setObject(3, artifact == null ? null : 1L);
      ps.setString(4, workarea);
      ps.setString(5, path);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
