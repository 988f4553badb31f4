package org.oml.lakewriter.cdc;

import io.debezium.data.Envelope;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.jdbc.PgDriver;
import org.oml.lakewriter.serde.StreamTypes;
import org.oml.lakewriter.validate.EventValidator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Debezium change records of {@code oml_outbox} and {@code oml_lake_horizon} into our
 * immutable types.
 *
 * <p>An outbox row whose columns do not parse is never dropped and never fails the job: it is
 * emitted with an error marker, so that the dead-letter path routes it. Only a row without a
 * readable {@code seq} cannot be placed in the order; it is logged as an error. Deletes of outbox
 * rows are retention and are ignored; updates of outbox rows break the append-only contract and
 * are logged.
 */
public final class OutboxDeserializer implements DebeziumDeserializationSchema<OutboxChange> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(OutboxDeserializer.class);

  static {
    // Debezium and Flink CDC open the source's connections (on the JobManager's enumerator and in
    // the TaskManager's reader) partly through DriverManager, which serves a caller only the
    // driver of its own class loader. This class is loaded, in the job's class loader, before the
    // source connects (it is part of the source's configuration): register that loader's driver
    // now, or the second job on a session cluster finds "No suitable driver" (issue 17).
    PgDriver.ensureRegistered();
  }

  private final String outboxTable;
  private final String horizonTable;
  private final String writerId;
  private final EventValidator validator;

  public OutboxDeserializer(
      String outboxTable, String horizonTable, String writerId, EventValidator validator) {
    this.outboxTable = outboxTable;
    this.horizonTable = horizonTable;
    this.writerId = writerId;
    this.validator = validator;
  }

  @Override
  public void deserialize(SourceRecord record, Collector<OutboxChange> out) {
    if (!(record.value() instanceof Struct)) {
      return; // heartbeats and tombstones carry no change
    }
    Struct value = (Struct) record.value();
    if (value.schema().field(Envelope.FieldName.OPERATION) == null) {
      return;
    }
    Envelope.Operation op = Envelope.operationFor(record);
    String table = value.getStruct(Envelope.FieldName.SOURCE).getString("table");
    if (horizonTable.equals(table)) {
      horizon(value, op).ifPresent(out::collect);
    } else if (outboxTable.equals(table)) {
      outbox(value, op, out);
    }
  }

  private java.util.Optional<HorizonUpdate> horizon(Struct value, Envelope.Operation op) {
    if (op == Envelope.Operation.DELETE) {
      return java.util.Optional.empty();
    }
    Struct after = value.getStruct(Envelope.FieldName.AFTER);
    if (!writerId.equals(after.getString("writer_id"))) {
      return java.util.Optional.empty();
    }
    Long pending = (Long) after.getWithoutDefault("pending_seq");
    return java.util.Optional.of(
        new HorizonUpdate(
            writerId,
            after.getInt64("stable_seq"),
            pending == null ? -1 : pending,
            OutboxRowParser.timestampMicros(after.get("ticked_at")),
            op == Envelope.Operation.READ));
  }

  private void outbox(Struct value, Envelope.Operation op, Collector<OutboxChange> out) {
    if (op == Envelope.Operation.DELETE) {
      return;
    }
    Struct after = value.getStruct(Envelope.FieldName.AFTER);
    if (op == Envelope.Operation.UPDATE) {
      LOG.warn(
          "outbox row seq={} was updated in place; the outbox is append-only, the update is not"
              + " applied",
          safeSeq(after));
      return;
    }
    Long seq = safeSeq(after);
    if (seq == null) {
      // The row's columns are untrusted and may carry attribution: only its shape is logged.
      LOG.error(
          "finding UNORDERABLE_ROW: an outbox row without a readable seq cannot be placed in the"
              + " order and is not applied ({} columns)",
          after.schema().fields().size());
      return;
    }
    out.collect(validator.validate(parse(seq, after)));
  }

  private static Long safeSeq(Struct after) {
    try {
      Object seq = after.get("seq");
      return seq instanceof Number ? ((Number) seq).longValue() : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static OutboxEvent parse(long seq, Struct row) {
    return OutboxRowParser.parse(
        seq,
        column -> {
          Field field = row.schema().field(column);
          if (field == null) {
            throw new OutboxRowParser.MissingColumnException(column);
          }
          // Never Struct.get: for a NULL it returns the column schema's default, and Debezium
          // renders a function default such as event_time's now() as the placeholder
          // 1970-01-01T00:00:00Z. A NULL event_time then reached bronze as 1970 instead of being
          // dead-lettered (MISSING_FIELD).
          return row.getWithoutDefault(field.name());
        });
  }

  @Override
  public TypeInformation<OutboxChange> getProducedType() {
    return StreamTypes.OUTBOX_CHANGE;
  }
}
