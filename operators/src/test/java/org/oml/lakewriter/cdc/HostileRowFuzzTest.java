package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.cdc.DebeziumRecords.OUTBOX;
import static org.oml.lakewriter.cdc.DebeziumRecords.change;
import static org.oml.lakewriter.cdc.DebeziumRecords.outboxColumns;
import static org.oml.lakewriter.cdc.DebeziumRecords.rowSchema;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.validate.EventValidator;
import org.oml.lakewriter.validate.TinkCiphertext;

/**
 * Issue 16, hostile input: property-based fuzzing of the row parser, the validator and the CDC
 * deserializer. Every row, however malformed, must end as a valid event or as an event carrying a
 * named {@link ErrorClass}; nothing may throw. The tries are explicit so that the case count is
 * the one docs/security.md reports.
 */
class HostileRowFuzzTest {
  static final int MAX_BODY = 4_096;
  private static final EventValidator VALIDATOR = new EventValidator(MAX_BODY);
  private static final OutboxDeserializer DESERIALIZER =
      new OutboxDeserializer(OUTBOX, DebeziumRecords.HORIZON, "w1", VALIDATOR);

  /** Marks a column the row does not have (a schema that is not the contract's). */
  private static final Object ABSENT = new Object();

  @Property(tries = 3000, shrinking = ShrinkingMode.BOUNDED)
  void everyParsedRowIsAValidEventOrANamedDeadLetter(@ForAll("hostileRows") Map<String, Object> row) {
    OutboxEvent event =
        VALIDATOR.validate(
            OutboxRowParser.parse(
                7,
                column -> {
                  Object v = row.getOrDefault(column, ABSENT);
                  if (v == ABSENT) {
                    throw new OutboxRowParser.MissingColumnException(column);
                  }
                  return v;
                }));

    assertValidOrNamedDeadLetter(event);
  }

  @Property(tries = 2000, shrinking = ShrinkingMode.BOUNDED)
  void everyChangeRecordIsOneValidEventOrANamedDeadLetter(
      @ForAll("hostileRecords") SourceRecord record) {
    List<OutboxChange> out = new ArrayList<>();

    DESERIALIZER.deserialize(record, new ListCollector<>(out));

    // A row without a readable seq is the one thing not emitted (logged as UNORDERABLE_ROW).
    assertThat(out).hasSizeLessThanOrEqualTo(1);
    for (OutboxChange change : out) {
      assertValidOrNamedDeadLetter((OutboxEvent) change);
    }
  }

  /** Regression example: a JSON envelope nested 100,000 deep is a dead letter, not a crash. */
  @Example
  void aDeeplyNestedEnvelopeIsANamedDeadLetter() {
    Map<String, Object> row = validRow(EventKind.JOURNAL, Events.sealedBody());
    row.put("envelope", "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000));

    OutboxEvent event = VALIDATOR.validate(OutboxRowParser.parse(7, row::get));

    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.UNPARSEABLE_ENVELOPE);
  }

  static void assertValidOrNamedDeadLetter(OutboxEvent event) {
    if (event.error() != null) {
      assertThat(event.error().errorClass()).isNotNull();
      assertThat(event.error().message()).isNotNull();
      Statistics.label("outcome").collect(event.error().errorClass().name());
      return;
    }
    Statistics.label("outcome").collect("valid " + event.kind());
    assertThat(EventValidator.isValidTenant(event.tenantId())).as(event.tenantId()).isTrue();
    assertThat(event.eventKind()).isPresent();
    assertThat(event.txId()).isNotNull();
    assertThat(event.eventTimeMicros()).isNotNull();
    if (event.eventKind().get() == EventKind.MATERIALIZE) {
      assertThat(event.body()).isNotNull();
      assertThat(event.body().length).isLessThanOrEqualTo(MAX_BODY);
      assertThat(TinkCiphertext.isWellFormed(event.body())).isTrue();
      assertThat(Events.sha256Hex(event.body())).isEqualToIgnoringCase(event.ciphertextDigest());
      assertThat(event.ratifiedBy()).isNotBlank().isNotEqualTo(event.writerIdentity());
    }
  }

  // ---- generators ---------------------------------------------------------------------------

  @Provide
  Arbitrary<Map<String, Object>> hostileRows() {
    Arbitrary<Map<String, Object>> base =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(1, Arbitraries.just(EventKind.MATERIALIZE)),
                    net.jqwik.api.Tuple.of(1, Arbitraries.of(EventKind.values()))),
                bodies())
            .as((kind, body) -> validRow(kind, body));
    return Combinators.combine(base, mutation().list().ofMaxSize(4))
        .as(
            (row, mutations) -> {
              for (UnaryOperator<Map<String, Object>> m : mutations) {
                m.apply(row);
              }
              return row;
            });
  }

  @Provide
  Arbitrary<SourceRecord> hostileRecords() {
    return Combinators.combine(hostileRows(), columnTypes())
        .as(HostileRowFuzzTest::record);
  }

  /** A row of every column's contract type with the row's values, each retyped by {@code types}. */
  private static SourceRecord record(Map<String, Object> row, Map<String, Schema> types) {
    Map<String, Schema> columns = outboxColumns();
    Map<String, Object> values = new LinkedHashMap<>();
    for (Map.Entry<String, Schema> type : types.entrySet()) {
      if (type.getValue() == null) {
        columns.remove(type.getKey());
      } else {
        columns.put(type.getKey(), type.getValue());
      }
    }
    for (Map.Entry<String, Schema> column : columns.entrySet()) {
      values.put(column.getKey(), connectValue(column.getValue(), row.get(column.getKey())));
    }
    Schema schema = rowSchema(OUTBOX, columns);
    Struct after = new Struct(schema);
    values.forEach(
        (name, value) -> {
          if (value != null || schema.field(name).schema().isOptional()) {
            after.put(name, value);
          }
        });
    return change(OUTBOX, "c", null, after);
  }

  /** The row's value as the column's Connect type holds it; a wrong type gives a stand-in. */
  private static Object connectValue(Schema schema, Object v) {
    if (v == null || v == ABSENT) {
      return schema.isOptional() ? null : defaultOf(schema);
    }
    switch (schema.type()) {
      case STRING:
        return v instanceof byte[] ? new String((byte[]) v, StandardCharsets.UTF_8) : v.toString();
      case INT64:
        return v instanceof Number ? ((Number) v).longValue() : (long) v.hashCode();
      case INT32:
        return v instanceof Number ? ((Number) v).intValue() : v.hashCode();
      case FLOAT64:
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
      case BOOLEAN:
        return v instanceof Boolean ? v : Boolean.TRUE;
      case BYTES:
        return v instanceof byte[] ? v : v.toString().getBytes(StandardCharsets.UTF_8);
      default:
        throw new AssertionError(schema);
    }
  }

  private static Object defaultOf(Schema schema) {
    switch (schema.type()) {
      case STRING:
        return "";
      case INT64:
        return 0L;
      case INT32:
        return 0;
      case FLOAT64:
        return 0.0;
      case BOOLEAN:
        return false;
      default:
        return new byte[0];
    }
  }

  private static Arbitrary<Map<String, Schema>> columnTypes() {
    Arbitrary<Schema> type =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.OPTIONAL_STRING_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.OPTIONAL_INT64_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.INT32_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.OPTIONAL_FLOAT64_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.OPTIONAL_BOOLEAN_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Schema.OPTIONAL_BYTES_SCHEMA)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just((Schema) null)));
    return Arbitraries.maps(Arbitraries.of(outboxColumns().keySet()), type).ofMaxSize(3);
  }

  /** One change to a column: a hostile value, a wrong type, NULL, or the column gone. */
  private static Arbitrary<UnaryOperator<Map<String, Object>>> mutation() {
    Arbitrary<String> column = Arbitraries.of(outboxColumns().keySet());
    Arbitrary<UnaryOperator<Map<String, Object>>> setColumn =
        Combinators.combine(column, hostileValues())
            .as((c, v) -> row -> {
              row.put(c, v);
              return row;
            });
    Arbitrary<UnaryOperator<Map<String, Object>>> tenant =
        HostileValues.tenantIds().map(t -> row -> {
          row.put("tenant_id", t);
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> kind =
        HostileValues.kinds().map(k -> row -> {
          row.put("kind", k);
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> digest =
        HostileValues.digestVariants().map(f -> row -> {
          Object body = row.get("body");
          row.put("ciphertext_digest", f.apply(body instanceof byte[] ? (byte[]) body : new byte[0]));
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> version =
        HostileValues.versions().map(v -> row -> {
          row.put("artifact_version", v);
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> envelope =
        HostileValues.envelopes().map(e -> row -> {
          row.put("envelope", e);
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> eventTime =
        HostileValues.eventTimes().map(t -> row -> {
          row.put("event_time", t);
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> selfRatified =
        Arbitraries.just(row -> {
          row.put("ratified_by", row.get("writer_identity"));
          return row;
        });
    Arbitrary<UnaryOperator<Map<String, Object>>> absent =
        column.map(c -> row -> {
          row.put(c, ABSENT);
          return row;
        });
    return Arbitraries.oneOf(
        setColumn, tenant, kind, digest, version, envelope, eventTime, selfRatified, absent);
  }

  /** Values of every type a driver or a broken decoder could hand over. */
  private static Arbitrary<Object> hostileValues() {
    return Arbitraries.oneOf(
        Arbitraries.just(null),
        HostileValues.texts().map(s -> (Object) s),
        Arbitraries.longs().map(l -> (Object) l),
        Arbitraries.integers().map(i -> (Object) i),
        Arbitraries.shorts().map(s -> (Object) s),
        Arbitraries.doubles().map(d -> (Object) d),
        Arbitraries.bigDecimals().map(d -> (Object) d),
        Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(b -> (Object) b),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(b -> (Object) b),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(b -> (Object) ByteBuffer.wrap(b)),
        Arbitraries.just((Object) List.of(1, "two", List.of())),
        Arbitraries.just((Object) Map.of("nested", Map.of("deeper", "x"))),
        Arbitraries.just((Object) new BigDecimal("1e400")),
        Arbitraries.just((Object) new Timestamp(Long.MIN_VALUE)),
        Arbitraries.just((Object) OffsetDateTime.MAX));
  }

  private static Arbitrary<byte[]> bodies() {
    Arbitrary<Integer> sizes =
        Arbitraries.oneOf(
            Arbitraries.integers().between(0, 64),
            Arbitraries.integers().between(MAX_BODY - 2, MAX_BODY + 2),
            Arbitraries.integers().between(0, 2 * MAX_BODY));
    Arbitrary<byte[]> sealed =
        sizes.map(
            n -> {
              byte[] b = new byte[Math.max(n, 0)];
              new java.util.Random(n).nextBytes(b);
              if (b.length > 0) {
                b[0] = TinkCiphertext.TINK_START_BYTE;
              }
              return b;
            });
    Arbitrary<byte[]> plaintext =
        HostileValues.texts().map(s -> ("plaintext: " + s).getBytes(StandardCharsets.UTF_8));
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, sealed),
        net.jqwik.api.Tuple.of(2, plaintext),
        net.jqwik.api.Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(100)));
  }

  /** A row the contract admits for {@code kind}, with {@code body} on a materialize. */
  static Map<String, Object> validRow(EventKind kind, byte[] body) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("seq", 42L);
    v.put("tx_id", 9_001L);
    v.put("tenant_id", "acme");
    v.put("kind", kind.wireName());
    v.put("artifact_id", "art-1");
    v.put("artifact_version", 3L);
    v.put("workarea_id", "wa-1");
    v.put("path_at_write", "/notes/a.md");
    v.put("writer_identity", "agent:writer");
    v.put("principal", "user:alice");
    v.put("ratified_by", kind == EventKind.MATERIALIZE ? "user:bob" : null);
    v.put("provenance_class", "human");
    v.put("plaintext_digest", "ab".repeat(32));
    v.put("ciphertext_digest", kind == EventKind.MATERIALIZE ? Events.sha256Hex(body) : null);
    v.put("body", kind == EventKind.MATERIALIZE ? body : null);
    v.put("data_key_id", kind == EventKind.MATERIALIZE ? "dek-1" : null);
    v.put("envelope", kind == EventKind.JOURNAL ? "{\"sig\":\"s\"}" : null);
    v.put(
        "event_time",
        DebeziumRecords.zoned(OffsetDateTime.of(2024, 5, 1, 12, 0, 0, 0, ZoneOffset.UTC)));
    v.put("requeue_of", null);
    return v;
  }

  static String upper(String s) {
    return s.toUpperCase(Locale.ROOT);
  }
}
