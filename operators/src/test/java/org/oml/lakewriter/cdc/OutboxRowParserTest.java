package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The one column mapping that CDC records and the completeness check's JDBC reads share. The JDBC
 * side hands other Java types for the same SQL types; both must give the same event.
 */
class OutboxRowParserTest {
  private static final long MICROS = 1_714_566_896_123_456L;

  /** A JDBC-shaped row: every column present, some null. */
  private static Map<String, Object> jdbcRow() {
    Map<String, Object> row = new HashMap<>();
    for (String column :
        new String[] {
          "tx_id",
          "tenant_id",
          "kind",
          "artifact_id",
          "artifact_version",
          "workarea_id",
          "path_at_write",
          "writer_identity",
          "principal",
          "ratified_by",
          "provenance_class",
          "plaintext_digest",
          "ciphertext_digest",
          "body",
          "data_key_id",
          "envelope",
          "event_time",
          "requeue_of"
        }) {
      row.put(column, null);
    }
    row.put("tx_id", 9_001L);
    row.put("tenant_id", "acme");
    row.put("kind", "demote");
    row.put("artifact_id", "art-1");
    row.put("artifact_version", 3L);
    return row;
  }

  private static OutboxEvent parse(Map<String, Object> row) {
    return OutboxRowParser.parse(
        42,
        column -> {
          if (!row.containsKey(column)) {
            throw new OutboxRowParser.MissingColumnException(column);
          }
          return row.get(column);
        });
  }

  @Test
  void readsJdbcTimestampsAndNarrowIntegersLikeCdcValues() {
    Map<String, Object> asTimestamp = jdbcRow();
    asTimestamp.put("event_time", Timestamp.from(Instant.ofEpochSecond(0, MICROS * 1_000)));
    asTimestamp.put("artifact_version", 3);
    Map<String, Object> asOffset = jdbcRow();
    asOffset.put(
        "event_time",
        OffsetDateTime.of(2024, 5, 1, 14, 34, 56, 123_456_000, ZoneOffset.ofHours(2)));
    asOffset.put("artifact_version", (short) 3);
    Map<String, Object> asCdc = jdbcRow();
    asCdc.put("event_time", "2024-05-01T12:34:56.123456Z");

    OutboxEvent expected =
        OutboxEvent.builder()
            .seq(42)
            .txId(9_001)
            .tenantId("acme")
            .kind("demote")
            .artifactId("art-1")
            .artifactVersion(3L)
            .eventTimeMicros(MICROS)
            .build();
    assertThat(parse(asTimestamp)).isEqualTo(expected);
    assertThat(parse(asOffset)).isEqualTo(expected);
    assertThat(parse(asCdc)).isEqualTo(expected);
  }

  @Test
  void aNullTxIdIsAMissingFieldNeverZero() {
    Map<String, Object> row = jdbcRow();
    row.put("tx_id", null);

    OutboxEvent event = parse(row);

    // Issue 11 item 4: it once read as 0 and went to the lake as tx_id 0.
    assertThat(event.txId()).isNull();
    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.MISSING_FIELD);
    assertThat(event.error().message()).contains("tx_id");
  }

  @Test
  void aTimestampOfAnotherTypeIsMalformed() {
    Map<String, Object> row = jdbcRow();
    row.put("event_time", 1_714_566_896L);

    assertThat(parse(row).error().errorClass()).isEqualTo(ErrorClass.MALFORMED_ROW);
  }

  @Test
  void aBodyOfAnotherTypeIsMalformed() {
    Map<String, Object> row = jdbcRow();
    row.put("body", "not bytes");

    OutboxEvent event = parse(row);

    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.MALFORMED_ROW);
    assertThat(event.error().message()).contains("body");
  }

  @Test
  void aMissingColumnIsASchemaMismatchEvenAfterOthersParsed() {
    Map<String, Object> row = jdbcRow();
    row.remove("requeue_of");

    OutboxEvent event = parse(row);

    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.SCHEMA_MISMATCH);
    assertThat(event.error().message()).contains("requeue_of");
    assertThat(event.seq()).isEqualTo(42);
  }
}
