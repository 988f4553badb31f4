package org.oml.lakewriter.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.cdc.DebeziumRecords.HORIZON;
import static org.oml.lakewriter.cdc.DebeziumRecords.OUTBOX;
import static org.oml.lakewriter.cdc.DebeziumRecords.change;
import static org.oml.lakewriter.cdc.DebeziumRecords.horizonColumns;
import static org.oml.lakewriter.cdc.DebeziumRecords.outboxColumns;
import static org.oml.lakewriter.cdc.DebeziumRecords.row;
import static org.oml.lakewriter.cdc.DebeziumRecords.rowSchema;
import static org.oml.lakewriter.cdc.DebeziumRecords.zoned;

import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.util.InstantiationUtil;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.serde.StreamTypes;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.validate.EventValidator;

class OutboxDeserializerTest {
  private static final OffsetDateTime EVENT_TIME =
      OffsetDateTime.of(2024, 5, 1, 12, 34, 56, 123_456_000, ZoneOffset.UTC);

  /** 2024-05-01T12:34:56.123456Z in microseconds since the epoch. */
  private static final long EVENT_TIME_MICROS = 1_714_566_896_123_456L;

  private static final Schema OUTBOX_ROW = rowSchema(OUTBOX, outboxColumns());
  private static final Schema HORIZON_ROW = rowSchema(HORIZON, horizonColumns());

  private final OutboxDeserializer deserializer =
      new OutboxDeserializer(OUTBOX, HORIZON, "w1", new EventValidator(1 << 20));

  /** The columns of a valid materialize row, body and all. */
  private static Map<String, Object> outboxValues(Object body) {
    Map<String, Object> v = new HashMap<>();
    v.put("seq", 42L);
    v.put("tx_id", 9_001L);
    v.put("tenant_id", "acme");
    v.put("kind", "materialize");
    v.put("artifact_id", "art-1");
    v.put("artifact_version", 3L);
    v.put("workarea_id", "wa-1");
    v.put("path_at_write", "/notes/ä.md");
    v.put("writer_identity", "agent:writer");
    v.put("principal", "user:alice");
    v.put("ratified_by", "user:bob");
    v.put("provenance_class", "human");
    v.put("plaintext_digest", "pd");
    v.put("ciphertext_digest", Events.sha256Hex(Events.sealedBody()));
    v.put("body", body);
    v.put("data_key_id", "dk-1");
    v.put("envelope", "{\"sig\":\"s\"}");
    v.put("event_time", zoned(EVENT_TIME));
    v.put("requeue_of", 17L);
    return v;
  }

  private static final OutboxEvent EXPECTED =
      OutboxEvent.builder()
          .seq(42)
          .txId(9_001)
          .tenantId("acme")
          .kind("materialize")
          .artifactId("art-1")
          .artifactVersion(3L)
          .workareaId("wa-1")
          .pathAtWrite("/notes/ä.md")
          .writerIdentity("agent:writer")
          .principal("user:alice")
          .ratifiedBy("user:bob")
          .provenanceClass("human")
          .plaintextDigest("pd")
          .ciphertextDigest(Events.sha256Hex(Events.sealedBody()))
          .body(Events.sealedBody())
          .dataKeyId("dk-1")
          .envelope("{\"sig\":\"s\"}")
          .eventTimeMicros(EVENT_TIME_MICROS)
          .requeueOf(17L)
          .build();

  @Test
  void anInsertBecomesAnEventWithEveryField() {
    ByteBuffer body = ByteBuffer.wrap(Events.sealedBody());

    List<OutboxChange> out = read(change(OUTBOX, "c", null, row(OUTBOX_ROW, outboxValues(body))));

    assertThat(out).containsExactly(EXPECTED);
    assertThat(zoned(EVENT_TIME)).isEqualTo("2024-05-01T12:34:56.123456Z");
  }

  @Test
  void aBodyAsBytesOrAsAnOffsetBufferIsReadAlike() {
    byte[] body = Events.sealedBody();
    byte[] padded = new byte[body.length + 4];
    System.arraycopy(body, 0, padded, 2, body.length);
    ByteBuffer offset = ByteBuffer.wrap(padded, 2, body.length);

    List<OutboxChange> fromArray =
        read(change(OUTBOX, "c", null, row(OUTBOX_ROW, outboxValues(Events.sealedBody()))));
    List<OutboxChange> fromBuffer =
        read(change(OUTBOX, "c", null, row(OUTBOX_ROW, outboxValues(offset))));

    assertThat(fromArray).containsExactly(EXPECTED);
    assertThat(fromBuffer).containsExactly(EXPECTED);
    assertThat(offset.position()).as("the record's buffer is not consumed").isEqualTo(2);
  }

  @Test
  void anOffsetOtherThanUtcGivesTheSameInstant() {
    Map<String, Object> values = outboxValues(Events.sealedBody());
    values.put("event_time", zoned(EVENT_TIME.withOffsetSameInstant(ZoneOffset.ofHours(2))));

    assertThat(read(change(OUTBOX, "c", null, row(OUTBOX_ROW, values)))).containsExactly(EXPECTED);
  }

  @Test
  void aSnapshotRowIsReadLikeAnInsert() {
    Struct after = row(OUTBOX_ROW, outboxValues(Events.sealedBody()));

    assertThat(read(change(OUTBOX, "r", null, after))).containsExactly(EXPECTED);
  }

  @Test
  void aColumnOfTheWrongTypeIsCarriedAsMalformed() {
    Map<String, Schema> columns = outboxColumns();
    columns.put("artifact_version", Schema.OPTIONAL_STRING_SCHEMA);
    Map<String, Object> values = outboxValues(Events.sealedBody());
    values.put("artifact_version", "3");

    OutboxEvent event =
        onlyEvent(change(OUTBOX, "c", null, row(rowSchema(OUTBOX, columns), values)));

    assertThat(event.seq()).isEqualTo(42);
    assertThat(event.tenantId()).isEqualTo("acme");
    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.MALFORMED_ROW);
    assertThat(event.error().message()).contains("artifact_version");
  }

  @Test
  void anUnreadableTimestampIsCarriedAsMalformed() {
    Map<String, Object> values = outboxValues(Events.sealedBody());
    values.put("event_time", "yesterday");

    OutboxEvent event = onlyEvent(change(OUTBOX, "c", null, row(OUTBOX_ROW, values)));

    assertThat(event.seq()).isEqualTo(42);
    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.MALFORMED_ROW);
  }

  @Test
  void aMissingColumnIsASchemaMismatch() {
    Map<String, Schema> columns = outboxColumns();
    columns.remove("principal");
    Map<String, Object> values = outboxValues(Events.sealedBody());
    values.remove("principal");

    OutboxEvent event =
        onlyEvent(change(OUTBOX, "c", null, row(rowSchema(OUTBOX, columns), values)));

    assertThat(event.seq()).isEqualTo(42);
    assertThat(event.error().errorClass()).isEqualTo(ErrorClass.SCHEMA_MISMATCH);
    assertThat(event.error().message()).contains("principal");
  }

  @Test
  void aRowWithoutAReadableSeqIsNotEmitted() {
    Map<String, Schema> noSeq = outboxColumns();
    noSeq.remove("seq");
    Map<String, Object> values = outboxValues(Events.sealedBody());
    values.remove("seq");
    Map<String, Schema> nullableSeq = outboxColumns();
    nullableSeq.put("seq", Schema.OPTIONAL_INT64_SCHEMA);
    Map<String, Schema> textSeq = outboxColumns();
    textSeq.put("seq", Schema.OPTIONAL_STRING_SCHEMA);
    Map<String, Object> textValues = outboxValues(Events.sealedBody());
    textValues.put("seq", "42");

    assertThat(read(change(OUTBOX, "c", null, row(rowSchema(OUTBOX, noSeq), values)))).isEmpty();
    assertThat(read(change(OUTBOX, "c", null, row(rowSchema(OUTBOX, nullableSeq), values))))
        .isEmpty();
    assertThat(read(change(OUTBOX, "c", null, row(rowSchema(OUTBOX, textSeq), textValues))))
        .isEmpty();
  }

  @Test
  void deletesAndUpdatesOfOutboxRowsAreNotApplied() {
    Struct row = row(OUTBOX_ROW, outboxValues(Events.sealedBody()));
    Map<String, Object> changed = outboxValues(Events.sealedBody());
    changed.put("tenant_id", "other");

    assertThat(read(change(OUTBOX, "d", row, null))).isEmpty();
    assertThat(read(change(OUTBOX, "u", row, row(OUTBOX_ROW, changed)))).isEmpty();
  }

  @Test
  void validationIsApplied() {
    Map<String, Object> unknownKind = outboxValues(Events.sealedBody());
    unknownKind.put("kind", "promote");
    Map<String, Object> badTenant = outboxValues(Events.sealedBody());
    badTenant.put("tenant_id", "../etc");

    assertThat(
            onlyEvent(change(OUTBOX, "c", null, row(OUTBOX_ROW, unknownKind))).error().errorClass())
        .isEqualTo(ErrorClass.UNKNOWN_KIND);
    assertThat(
            onlyEvent(change(OUTBOX, "c", null, row(OUTBOX_ROW, badTenant))).error().errorClass())
        .isEqualTo(ErrorClass.INVALID_TENANT);
  }

  @Test
  void aHorizonRowReadInTheSnapshotIsMarkedSo() {
    Struct after = horizonRow("w1", 100L, 105L);

    assertThat(read(change(HORIZON, "r", null, after)))
        .containsExactly(new HorizonUpdate("w1", 100, 105, EVENT_TIME_MICROS, true));
  }

  @ParameterizedTest
  @ValueSource(strings = {"u", "c"})
  void aStreamedHorizonChangeIsNotFromTheSnapshot(String op) {
    Struct before = horizonRow("w1", 90L, 100L);
    Struct after = horizonRow("w1", 100L, null);

    assertThat(read(change(HORIZON, op, "u".equals(op) ? before : null, after)))
        .containsExactly(new HorizonUpdate("w1", 100, -1, EVENT_TIME_MICROS, false));
  }

  @Test
  void theHorizonOfAnotherWriterIsIgnored() {
    assertThat(read(change(HORIZON, "u", null, horizonRow("w2", 500L, 510L)))).isEmpty();
    assertThat(read(change(HORIZON, "r", null, horizonRow("w2", 500L, 510L)))).isEmpty();
  }

  @Test
  void aDeletedHorizonRowIsIgnored() {
    assertThat(read(change(HORIZON, "d", horizonRow("w1", 500L, 510L), null))).isEmpty();
  }

  @Test
  void recordsWithoutAChangeAreIgnored() {
    Schema heartbeatSchema =
        SchemaBuilder.struct()
            .name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA)
            .build();
    Struct heartbeat = new Struct(heartbeatSchema).put("ts_ms", 1L);

    assertThat(read(record(heartbeatSchema, heartbeat))).isEmpty();
    assertThat(read(record(null, null))).as("tombstone").isEmpty();
    assertThat(read(record(Schema.STRING_SCHEMA, "not a struct"))).isEmpty();
  }

  @Test
  void changesOfOtherTablesAreIgnored() {
    Struct row = row(OUTBOX_ROW, outboxValues(Events.sealedBody()));

    assertThat(read(change("oml_lake_frontier", "c", null, row))).isEmpty();
  }

  @Test
  void producesTheVersionedTypeAndShipsToTheSource() throws Exception {
    OutboxDeserializer shipped =
        InstantiationUtil.clone(deserializer, OutboxDeserializerTest.class.getClassLoader());
    List<OutboxChange> out = new ArrayList<>();
    Struct after = row(OUTBOX_ROW, outboxValues(Events.sealedBody()));

    shipped.deserialize(change(OUTBOX, "c", null, after), new ListCollector<>(out));

    assertThat(deserializer.getProducedType()).isEqualTo(StreamTypes.OUTBOX_CHANGE);
    assertThat(out).containsExactly(EXPECTED);
  }

  private static Struct horizonRow(String writer, Long stable, Long pending) {
    Map<String, Object> v = new HashMap<>();
    v.put("writer_id", writer);
    v.put("stable_seq", stable);
    v.put("pending_seq", pending);
    v.put("ticked_at", zoned(EVENT_TIME));
    return row(HORIZON_ROW, v);
  }

  private static SourceRecord record(Schema schema, Object value) {
    return new SourceRecord(Map.of(), Map.of(), "__debezium-heartbeat.lake", schema, value);
  }

  private List<OutboxChange> read(SourceRecord record) {
    List<OutboxChange> out = new ArrayList<>();
    deserializer.deserialize(record, new ListCollector<>(out));
    return out;
  }

  private OutboxEvent onlyEvent(SourceRecord record) {
    List<OutboxChange> out = read(record);
    assertThat(out).hasSize(1).first().isInstanceOf(OutboxEvent.class);
    return (OutboxEvent) out.get(0);
  }
}
