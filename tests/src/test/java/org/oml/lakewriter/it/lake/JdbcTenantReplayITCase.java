package org.oml.lakewriter.it.lake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.keys.DataKeyCheck;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.delta.quarantine.JdbcTenantReplay;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * The outbox read that replays a quarantined tenant, on the contract's real table: only that
 * tenant's rows of the range, every page, in seq order, validated like CDC rows; {@code _invalid}
 * gets the rows whose tenant id is no path.
 */
class JdbcTenantReplayITCase {
  private static EmbeddedPostgresServer pg;
  private TestDatabase db;

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
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  @Test
  void readsOneTenantsRowsOfTheRangeAcrossPagesValidated() throws Exception {
    List<Long> beta = new ArrayList<>();
    long invalid;
    try (Connection c = db.connect()) {
      for (int i = 0; i < 7; i++) {
        OutboxWriter.journal(c, "acme", "a-" + i);
        beta.add(
            i % 2 == 0
                ? OutboxWriter.journal(c, "beta", "b-" + i)
                : OutboxWriter.materialize(c, "beta", "b-" + i, 1, ("body-" + i).getBytes(UTF_8)));
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE oml_outbox SET body = ? WHERE seq = ?")) { // a digest that no longer matches
        ps.setBytes(1, "tampered".getBytes(UTF_8));
        ps.setLong(2, beta.get(1));
        ps.executeUpdate();
      }
      invalid = OutboxWriter.journal(c, "Not A Path", "x");
    }
    OutboxSourceOptions options = db.sourceOptions(LakeWriterJobs.WRITER, Duration.ofSeconds(1));
    JdbcTenantReplay replay = new JdbcTenantReplay(options, 2);

    List<OutboxEvent> all = replay.rows("beta", 0, Long.MAX_VALUE);
    assertThat(all).extracting(OutboxEvent::seq).containsExactlyElementsOf(beta);
    assertThat(all).allMatch(e -> e.tenantId().equals("beta"));
    assertThat(all.get(1).error()).isNotNull();
    assertThat(all.get(1).error().errorClass()).isEqualTo(ErrorClass.DIGEST_MISMATCH);
    assertThat(all.get(0).error()).isNull();

    assertThat(replay.rows("beta", beta.get(1), beta.get(4)))
        .extracting(OutboxEvent::seq)
        .containsExactly(beta.get(2), beta.get(3), beta.get(4));
    assertThat(replay.rows("_invalid", 0, Long.MAX_VALUE))
        .extracting(OutboxEvent::seq)
        .containsExactly(invalid);
    replay.close();

    JdbcTenantReplay unreachable =
        new JdbcTenantReplay(
            new OutboxSourceOptions(
                "localhost", 1, "nowhere", "public", "u", null, "s", "p", "w",
                Duration.ofSeconds(1), 1000),
            10);
    assertThatThrownBy(() -> unreachable.rows("beta", 0, 10))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("replay of tenant beta over (0, 10]");
  }

  /**
   * Replayed promotions go through the key registry like the cut's: an unknown data key is a
   * dead letter ({@code UNKNOWN_DATA_KEY}), a known one passes, and a registry that does not answer
   * fails the replay (the tenant stays held and is replayed later) instead of dead-lettering.
   */
  @Test
  void replayedPromotionsAreCheckedAgainstTheKeyRegistry() throws Exception {
    long known;
    long unknown;
    long journal;
    try (Connection c = db.connect()) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE oml_data_key (key_id text PRIMARY KEY)");
        st.execute("INSERT INTO oml_data_key VALUES ('dek-known')");
        st.execute("CREATE TABLE registry_down (down boolean NOT NULL)");
        st.execute("INSERT INTO registry_down VALUES (false)");
        st.execute(
            "CREATE FUNCTION known_keys(ids text[]) RETURNS SETOF text LANGUAGE plpgsql AS $$"
                + " BEGIN IF (SELECT down FROM registry_down) THEN PERFORM pg_sleep(5); END IF;"
                + " RETURN QUERY SELECT key_id FROM oml_data_key WHERE key_id = ANY(ids); END $$");
      }
      known = OutboxWriter.materialize(c, "beta", "known", 1, "k".getBytes(UTF_8));
      unknown = OutboxWriter.materialize(c, "beta", "lost", 1, "u".getBytes(UTF_8));
      journal = OutboxWriter.journal(c, "beta", "j");
    }
    OutboxSourceOptions options = db.sourceOptions(LakeWriterJobs.WRITER, Duration.ofSeconds(1));
    DataKeyCheck registry =
        new DataKeyCheck(options, "SELECT * FROM known_keys(?)", Duration.ofSeconds(1));
    JdbcTenantReplay replay = new JdbcTenantReplay(options, 10, registry);
    try {
      List<OutboxEvent> rows = replay.rows("beta", 0, Long.MAX_VALUE);
      assertThat(rows).extracting(OutboxEvent::seq).containsExactly(known, unknown, journal);
      assertThat(rows.get(0).error()).isNull();
      assertThat(rows.get(1).error().errorClass()).isEqualTo(ErrorClass.UNKNOWN_DATA_KEY);
      assertThat(rows.get(2).error()).isNull();

      db.execute("UPDATE registry_down SET down = true");
      assertThatThrownBy(() -> replay.rows("beta", 0, Long.MAX_VALUE))
          .isInstanceOf(java.io.IOException.class)
          .hasMessageContaining("waits for key-registry");
    } finally {
      replay.close();
    }
  }
}
