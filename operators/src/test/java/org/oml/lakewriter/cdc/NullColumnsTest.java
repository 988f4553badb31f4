package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.cdc.DebeziumRecords.OUTBOX;
import static org.oml.lakewriter.cdc.DebeziumRecords.HORIZON;
import static org.oml.lakewriter.cdc.DebeziumRecords.change;
import static org.oml.lakewriter.cdc.DebeziumRecords.outboxColumns;
import static org.oml.lakewriter.cdc.DebeziumRecords.row;
import static org.oml.lakewriter.cdc.DebeziumRecords.rowSchema;

import io.debezium.time.ZonedTimestamp;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Issue 11 item 4: a NULL outbox column never becomes a default value (0, "", 1970) on its way to
 * the lake. For every nullable column of the contract, and for a journal and a materialize row,
 * the column read as NULL through the CDC path (a Debezium record whose column schema carries a
 * default, as Debezium gives {@code event_time DEFAULT now()} the placeholder 1970-01-01) and
 * through the JDBC path (the completeness check and requeue) is {@code null} in the event, and the
 * row is either valid (NULL is legitimate there) or carries a named error.
 */
class NullColumnsTest {
  private static final OffsetDateTime EVENT_TIME =
      OffsetDateTime.of(2024, 5, 1, 12, 34, 56, 0, ZoneOffset.UTC);

  /** Each nullable outbox column and how the event exposes it. */
  private static final Map<String, Function<OutboxEvent, Object>> COLUMNS = new LinkedHashMap<>();

  static {
    COLUMNS.put("tx_id", OutboxEvent::txId);
    COLUMNS.put("tenant_id", OutboxEvent::tenantId);
    COLUMNS.put("kind", OutboxEvent::kind);
    COLUMNS.put("artifact_id", OutboxEvent::artifactId);
    COLUMNS.put("artifact_version", OutboxEvent::artifactVersion);
    COLUMNS.put("workarea_id", OutboxEvent::workareaId);
    COLUMNS.put("path_at_write", OutboxEvent::pathAtWrite);
    COLUMNS.put("writer_identity", OutboxEvent::writerIdentity);
    COLUMNS.put("principal", OutboxEvent::principal);
    COLUMNS.put("ratified_by", OutboxEvent::ratifiedBy);
    COLUMNS.put("provenance_class", OutboxEvent::provenanceClass);
    COLUMNS.put("plaintext_digest", OutboxEvent::plaintextDigest);
    COLUMNS.put("ciphertext_digest", OutboxEvent::ciphertextDigest);
    COLUMNS.put("body", OutboxEvent::body);
    COLUMNS.put("data_key_id", OutboxEvent::dataKeyId);
    COLUMNS.put("envelope", OutboxEvent::envelope);
    COLUMNS.put("event_time", OutboxEvent::eventTimeMicros);
    COLUMNS.put("requeue_of", OutboxEvent::requeueOf);
  }

  /** Columns a journal row may leave NULL: the lake keeps the NULL. */
  private static final Set<String> JOURNAL_OPTIONAL =
      Set.of(
          "artifact_id", "artifact_version", "workarea_id", "path_at_write", "writer_identity",
          "principal", "ratified_by", "provenance_class", "plaintext_digest", "ciphertext_digest",
          "body", "data_key_id", "requeue_of");

  /** Columns a materialize row may leave NULL. */
  private static final Set<String> MATERIALIZE_OPTIONAL =
      Set.of("path_at_write", "envelope", "requeue_of");

  private final EventValidator validator = new EventValidator(1 << 20);

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (String kind : new String[] {"journal", "materialize"}) {
      for (String column : COLUMNS.keySet()) {
        cases.add(Arguments.of(kind, column));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} row, {1} NULL, through CDC")
  @MethodSource("cases")
  void aNullThroughCdcStaysNullOrIsDeadLettered(String kind, String column) {
    Map<String, Object> values = validRow(kind, true);
    values.remove(column);
    OutboxDeserializer deserializer =
        new OutboxDeserializer(OUTBOX, HORIZON, "w1", validator);
    List<OutboxChange> out = new ArrayList<>();

    deserializer.deserialize(
        change(OUTBOX, "c", null, row(rowSchema(OUTBOX, columnsWithDefaults()), values)),
        new ListCollector<>(out));

    assertThat(out).hasSize(1);
    check((OutboxEvent) out.get(0), kind, column);
  }

  @ParameterizedTest(name = "{0} row, {1} NULL, through JDBC")
  @MethodSource("cases")
  void aNullThroughJdbcStaysNullOrIsDeadLettered(String kind, String column) {
    Map<String, Object> values = validRow(kind, false);
    values.put(column, null);

    OutboxEvent event =
        validator.validate(
            OutboxRowParser.parse(
                42,
                c -> {
                  if (!values.containsKey(c)) {
                    throw new OutboxRowParser.MissingColumnException(c);
                  }
                  return values.get(c);
                }));

    check(event, kind, column);
  }

  private static void check(OutboxEvent event, String kind, String column) {
    assertThat(COLUMNS.get(column).apply(event)).as(column + " of the event").isNull();
    ErrorClass expected = expectedError(kind, column);
    if (expected == null) {
      assertThat(event.error()).as("a NULL %s is legitimate in a %s row", column, kind).isNull();
    } else {
      assertThat(event.error()).as("%s row with %s NULL", kind, column).isNotNull();
      assertThat(event.error().errorClass()).isEqualTo(expected);
      if (expected == ErrorClass.MISSING_FIELD) {
        assertThat(event.error().message()).contains(column);
      }
    }
  }

  private static ErrorClass expectedError(String kind, String column) {
    switch (column) {
      case "kind":
        return ErrorClass.UNKNOWN_KIND;
      case "tenant_id":
        return ErrorClass.INVALID_TENANT;
      case "tx_id":
      case "event_time":
        return ErrorClass.MISSING_FIELD;
      default:
        Set<String> optional = "journal".equals(kind) ? JOURNAL_OPTIONAL : MATERIALIZE_OPTIONAL;
        return optional.contains(column) ? null : ErrorClass.MISSING_FIELD;
    }
  }

  /**
   * The contract's columns, each with a schema default the way Debezium attaches one for a column
   * with a SQL default: a NULL must not be read as that default.
   */
  private static Map<String, Schema> columnsWithDefaults() {
    Map<String, Schema> c = new LinkedHashMap<>(outboxColumns());
    c.put("tx_id", SchemaBuilder.int64().optional().defaultValue(0L).build());
    c.replaceAll(
        (name, schema) -> {
          if (name.equals("seq") || name.equals("tx_id")) {
            return schema;
          }
          if (name.equals("event_time")) {
            return ZonedTimestamp.builder().optional().defaultValue("1970-01-01T00:00:00Z").build();
          }
          switch (schema.type()) {
            case STRING:
              return SchemaBuilder.string().optional().defaultValue("").build();
            case INT64:
              return SchemaBuilder.int64().optional().defaultValue(0L).build();
            case BYTES:
              return SchemaBuilder.bytes().optional().defaultValue(new byte[0]).build();
            default:
              return schema;
          }
        });
    return c;
  }

  private static Map<String, Object> validRow(String kind, boolean cdc) {
    byte[] body = Events.sealedBody();
    Map<String, Object> v = new HashMap<>();
    v.put("seq", 42L);
    v.put("tx_id", 9_001L);
    v.put("tenant_id", "acme");
    v.put("kind", kind);
    v.put("artifact_id", "art-1");
    v.put("artifact_version", 3L);
    v.put("workarea_id", "wa-1");
    v.put("path_at_write", "/notes/a.md");
    v.put("writer_identity", "agent:writer");
    v.put("principal", "user:alice");
    v.put("ratified_by", "user:bob");
    v.put("provenance_class", "human");
    v.put("plaintext_digest", "pd");
    v.put("ciphertext_digest", Events.sha256Hex(body));
    v.put("body", body);
    v.put("data_key_id", "dk-1");
    v.put("envelope", "{\"sig\":\"s\"}");
    v.put("event_time", cdc ? DebeziumRecords.zoned(EVENT_TIME) : EVENT_TIME);
    v.put("requeue_of", 17L);
    return v;
  }
}
