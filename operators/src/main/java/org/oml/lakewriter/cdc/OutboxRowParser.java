package org.oml.lakewriter.cdc;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.Set;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * Maps the columns of one outbox row to an {@link OutboxEvent}, whether they come from a CDC
 * change record or from a JDBC read of the outbox (the completeness check). Both paths must give
 * the same event for the same row, so there is one mapping.
 *
 * <p>A column that is absent gives {@link ErrorClass#SCHEMA_MISMATCH}; a value of the wrong type
 * gives {@link ErrorClass#MALFORMED_ROW}. Neither throws: the row is carried with its error.
 *
 * <p>A NULL column is mapped to {@code null}, never to a default value (0, "", 1970): either the
 * lake keeps the NULL, or the validator dead-letters the row ({@link ErrorClass#MISSING_FIELD}).
 * A {@link Columns} source must therefore hand NULL as {@code null}; Kafka Connect's {@code
 * Struct.get} does not (it substitutes the schema's default, see {@code OutboxDeserializer}).
 */
public final class OutboxRowParser {
  /** Reads a column by name; throws {@link MissingColumnException} if the row has none. */
  @FunctionalInterface
  public interface Columns {
    Object get(String column) throws MissingColumnException;
  }

  /** The row has no such column: the outbox's schema is not the contract's. */
  public static final class MissingColumnException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MissingColumnException(String column) {
      super("outbox has no column " + column);
    }
  }

  private OutboxRowParser() {}

  /** The columns of the current row of a JDBC result, e.g. {@code SELECT * FROM oml_outbox}. */
  public static Columns columns(ResultSet rs) throws SQLException {
    ResultSetMetaData meta = rs.getMetaData();
    Set<String> names = new HashSet<>();
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      names.add(meta.getColumnName(i));
    }
    return column -> {
      if (!names.contains(column)) {
        throw new MissingColumnException(column);
      }
      try {
        return rs.getObject(column);
      } catch (SQLException e) {
        throw new IllegalArgumentException(column + ": " + e.getMessage(), e);
      }
    };
  }

  public static OutboxEvent parse(long seq, Columns row) {
    OutboxEvent.Builder b = OutboxEvent.builder().seq(seq);
    try {
      Long txId = integer(row, "tx_id");
      b.txId(txId)
          .tenantId(text(row, "tenant_id"))
          .kind(text(row, "kind"))
          .artifactId(text(row, "artifact_id"))
          .artifactVersion(integer(row, "artifact_version"))
          .workareaId(text(row, "workarea_id"))
          .pathAtWrite(text(row, "path_at_write"))
          .writerIdentity(text(row, "writer_identity"))
          .principal(text(row, "principal"))
          .ratifiedBy(text(row, "ratified_by"))
          .provenanceClass(text(row, "provenance_class"))
          .plaintextDigest(text(row, "plaintext_digest"))
          .ciphertextDigest(text(row, "ciphertext_digest"))
          .body(bytes(row, "body"))
          .dataKeyId(text(row, "data_key_id"))
          .envelope(text(row, "envelope"))
          .eventTimeMicros(timestampMicros(row.get("event_time")))
          .requeueOf(integer(row, "requeue_of"));
      if (txId == null) {
        // The contract's trigger always sets it; without it the horizon cannot vouch for the row.
        return b.error(new RowError(ErrorClass.MISSING_FIELD, "row lacks tx_id (NULL)")).build();
      }
      return b.build();
    } catch (MissingColumnException e) {
      return b.error(new RowError(ErrorClass.SCHEMA_MISMATCH, e.getMessage())).build();
    } catch (RuntimeException e) {
      return b.error(new RowError(ErrorClass.MALFORMED_ROW, String.valueOf(e.getMessage())))
          .build();
    }
  }

  private static String text(Columns row, String name) {
    Object v = row.get(name);
    if (v == null || v instanceof String) {
      return (String) v;
    }
    throw new IllegalArgumentException(name + " is " + v.getClass().getSimpleName() + ", not text");
  }

  private static Long integer(Columns row, String name) {
    Object v = row.get(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short) {
      return ((Number) v).longValue();
    }
    throw new IllegalArgumentException(
        name + " is " + v.getClass().getSimpleName() + ", not an integer");
  }

  private static byte[] bytes(Columns row, String name) {
    Object v = row.get(name);
    if (v == null || v instanceof byte[]) {
      return (byte[]) v;
    }
    if (v instanceof java.nio.ByteBuffer) {
      java.nio.ByteBuffer buffer = ((java.nio.ByteBuffer) v).duplicate();
      byte[] copy = new byte[buffer.remaining()];
      buffer.get(copy);
      return copy;
    }
    throw new IllegalArgumentException(name + " is " + v.getClass().getSimpleName() + ", not bytea");
  }

  /**
   * Debezium renders timestamptz as an ISO-8601 string (io.debezium.time.ZonedTimestamp); JDBC
   * gives a {@link Timestamp} or an {@link OffsetDateTime}.
   */
  public static Long timestampMicros(Object v) {
    if (v == null) {
      return null;
    }
    Instant instant;
    if (v instanceof String) {
      instant = IsoTimestamps.parse((String) v);
    } else if (v instanceof OffsetDateTime) {
      instant = ((OffsetDateTime) v).toInstant();
    } else if (v instanceof Timestamp) {
      instant = ((Timestamp) v).toInstant();
    } else {
      throw new IllegalArgumentException("timestamp is " + v.getClass().getSimpleName());
    }
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }
}
