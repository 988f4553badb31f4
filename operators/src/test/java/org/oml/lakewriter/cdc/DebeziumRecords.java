package org.oml.lakewriter.cdc;

import io.debezium.time.ZonedTimestamp;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Change records shaped like the ones Debezium's PostgreSQL connector emits: an envelope struct
 * with {@code before}, {@code after}, {@code source} (which names the table), {@code op} and {@code
 * ts_ms}. Column schemas follow the outbox contract's SQL types as Debezium maps them (bigint to
 * INT64, text to STRING, bytea to BYTES, timestamptz to a ZonedTimestamp string).
 */
final class DebeziumRecords {
  static final String OUTBOX = "oml_outbox";
  static final String HORIZON = "oml_lake_horizon";

  private static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.postgresql.Source")
          .field("connector", Schema.STRING_SCHEMA)
          .field("db", Schema.STRING_SCHEMA)
          .field("schema", Schema.STRING_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("snapshot", Schema.OPTIONAL_STRING_SCHEMA)
          .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  private DebeziumRecords() {}

  /** The outbox's columns in table order; a test may change or drop one before building. */
  static Map<String, Schema> outboxColumns() {
    Map<String, Schema> c = new LinkedHashMap<>();
    c.put("seq", Schema.INT64_SCHEMA);
    c.put("tx_id", Schema.INT64_SCHEMA);
    for (String text : new String[] {"tenant_id", "kind", "artifact_id"}) {
      c.put(text, Schema.OPTIONAL_STRING_SCHEMA);
    }
    c.put("artifact_version", Schema.OPTIONAL_INT64_SCHEMA);
    for (String text :
        new String[] {
          "workarea_id",
          "path_at_write",
          "writer_identity",
          "principal",
          "ratified_by",
          "provenance_class",
          "plaintext_digest",
          "ciphertext_digest"
        }) {
      c.put(text, Schema.OPTIONAL_STRING_SCHEMA);
    }
    c.put("body", Schema.OPTIONAL_BYTES_SCHEMA);
    c.put("data_key_id", Schema.OPTIONAL_STRING_SCHEMA);
    c.put("envelope", Schema.OPTIONAL_STRING_SCHEMA);
    c.put("event_time", ZonedTimestamp.builder().optional().build());
    c.put("requeue_of", Schema.OPTIONAL_INT64_SCHEMA);
    return c;
  }

  static Map<String, Schema> horizonColumns() {
    Map<String, Schema> c = new LinkedHashMap<>();
    c.put("writer_id", Schema.STRING_SCHEMA);
    c.put("stable_seq", Schema.INT64_SCHEMA);
    c.put("pending_seq", Schema.OPTIONAL_INT64_SCHEMA);
    c.put("ticked_at", ZonedTimestamp.builder().build());
    return c;
  }

  static Schema rowSchema(String table, Map<String, Schema> columns) {
    SchemaBuilder b = SchemaBuilder.struct().name("lake.public." + table + ".Value").optional();
    columns.forEach(b::field);
    return b.build();
  }

  /** A row of {@code schema}; columns not in {@code values} are null. */
  static Struct row(Schema schema, Map<String, Object> values) {
    Struct row = new Struct(schema);
    values.forEach(row::put);
    row.validate();
    return row;
  }

  /** Debezium's rendering of a timestamptz. */
  static String zoned(OffsetDateTime time) {
    return ZonedTimestamp.toIsoString(time, null);
  }

  /** A change record of {@code table}; {@code op} is Debezium's code: r, c, u or d. */
  static SourceRecord change(String table, String op, Struct before, Struct after) {
    Schema rowSchema = (after != null ? after : before).schema();
    Schema envelope =
        SchemaBuilder.struct()
            .name("lake.public." + table + ".Envelope")
            .field("before", rowSchema)
            .field("after", rowSchema)
            .field("source", SOURCE)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    Struct source =
        new Struct(SOURCE)
            .put("connector", "postgresql")
            .put("db", "oml")
            .put("schema", "public")
            .put("table", table)
            .put("snapshot", "r".equals(op) ? "true" : "false")
            .put("lsn", 123_456L);
    Struct value =
        new Struct(envelope)
            .put("before", before)
            .put("after", after)
            .put("source", source)
            .put("op", op)
            .put("ts_ms", 1_714_566_896_000L);
    value.validate();
    return new SourceRecord(
        Map.of("server", "lake"), Map.of("lsn", 123_456L), "lake.public." + table, envelope, value);
  }
}
