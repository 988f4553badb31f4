package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.connect;
import static org.oml.lakewriter.it.config.ConfigFixtures.freshDatabase;
import static org.oml.lakewriter.it.config.ConfigFixtures.scalar;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CliRun;

/**
 * Item 14: the whole command line on an outbox in a schema other than {@code public}, the way an
 * operator runs it. {@code init-db} needs no {@code lake.root}; the contract lands in {@code
 * postgres.schema} (nothing in {@code public}); a producer whose search_path lacks the schema
 * inserts through the seq trigger; {@code run} ticks, cuts and records its frontier there; {@code
 * status} and {@code verify} read it from there. A missing option's message is its description.
 */
@ExtendWith(SharedPostgres.class)
class NonDefaultSchemaITCase {
  private static final String SCHEMA = "lake_s";
  private static final Duration WAIT = Duration.ofSeconds(150);
  @TempDir Path tmp;

  @Test
  void everyCommandHonoursPostgresSchema(EmbeddedPostgresServer pg) throws Exception {
    String url = freshDatabase(pg);
    String database = url.substring(url.lastIndexOf('/') + 1);
    String slot = database + "_slot";
    Map<String, String> db = new LinkedHashMap<>();
    db.put("postgres.url", url);
    db.put("postgres.schema", SCHEMA);

    CliRun.Result init = cli("init-db", db);
    assertThat(init.exitCode()).as(init.err()).isZero();
    assertThat(init.out()).contains("schema " + SCHEMA);
    try (Connection c = connect(url)) {
      assertThat(scalar(c, "SELECT to_regclass('public.oml_outbox')::text")).isNull();
      assertThat(scalar(c, "SELECT to_regclass('" + SCHEMA + ".oml_outbox')::text"))
          .isEqualTo(SCHEMA + ".oml_outbox");
    }

    CliRun.Result noLake = cli("verify", db);
    assertThat(noLake.exitCode()).isEqualTo(2);
    assertThat(noLake.err())
        .startsWith(
            "lakewriter: option lake.root is required: Root of the lake: file:///...,"
                + " s3a://bucket/prefix or abfs://container@account/...")
        .doesNotContain("Description@");

    Map<String, String> all = new LinkedHashMap<>(db);
    all.put("postgres.slot", slot);
    all.put("writer.id", "w1");
    all.put("lake.root", tmp.resolve("lake").toString());
    all.put("state.dir", tmp.resolve("state").toString());
    all.put("checkpoint.interval", "500ms");
    all.put("horizon.tick-period", "200ms");
    List<String> run = new ArrayList<>(List.of("run"));
    run.addAll(CliRun.defines(all));
    Path log = tmp.resolve("run.log");
    Process writer = CliProcess.start(run, log);
    try {
      CliProcess.awaitLog(writer, log, "lake writer running", WAIT);
      long max = 0;
      try (Connection producer = connect(url)) {
        assertThat(scalar(producer, "SHOW search_path")).doesNotContain(SCHEMA);
        for (int i = 0; i < 40; i++) {
          max = insert(producer, i % 2 == 0 ? "acme" : "globex", "a-" + i);
        }
      }
      awaitFrontier(url, max);

      CliRun.Result status = cli("status", all, "--json");
      assertThat(status.exitCode()).as(status.err()).isZero();
      assertThat(status.out()).containsPattern("\"frontier\" : " + max + "\\b");
      assertThat(status.out()).containsPattern("\"outbox_rows\" : 40\\b");

      CliRun.Result verify = cli("verify", all);
      assertThat(verify.exitCode()).as(verify.out() + verify.err()).isZero();
      assertThat(verify.out()).contains("verify: OK (outbox rows <= frontier " + max + ": 40;");
    } finally {
      writer.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      dropSlot(url, slot);
    }
  }

  /** An insert with the producer's own search_path (public): only the trigger assigns seq. */
  private static long insert(Connection c, String tenant, String artifact) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + SCHEMA + ".oml_outbox (tenant_id, kind, artifact_id,"
                + " artifact_version, writer_identity, principal, plaintext_digest, envelope)"
                + " VALUES (?, 'journal', ?, 1, 'alice', 'alice@x', repeat('a', 64),"
                + " '{\"sig\":\"ed25519:abc\"}') RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, artifact);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void awaitFrontier(String url, long seq) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    try (Connection c = connect(url)) {
      while (true) {
        String f =
            scalar(
                c,
                "SELECT frontier_seq::text FROM " + SCHEMA + ".oml_lake_frontier"
                    + " WHERE writer_id = 'w1'");
        if (f != null && Long.parseLong(f) >= seq) {
          return;
        }
        assertThat(System.nanoTime()).as("frontier %s never reached %s", f, seq).isLessThan(deadline);
        Thread.sleep(200);
      }
    }
  }

  private static void dropSlot(String url, String slot) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection c = connect(url)) {
      while (scalar(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ? AND active", slot)
              != null
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      scalar(
          c,
          "SELECT pg_drop_replication_slot(slot_name)::text FROM pg_replication_slots"
              + " WHERE slot_name = ? AND NOT active",
          slot);
    }
  }
}
