package org.oml.lakewriter.deadletter.journal;

import java.util.Objects;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/**
 * One {@code materialize-skipped} record of the PostgreSQL dead-letter journal, as the job writes
 * it: the row's seq, tenant, kind, error class and message, attempts and failure times, and the raw
 * row with every outbox column except the body, which is kept only as its sha256 and its length.
 *
 * <p>The body itself never enters this record, its checkpointed bytes or the journal: a body that
 * failed its digest, a held body and an oversized one are all kept out of every store but the
 * outbox. Times are microseconds since the epoch, UTC.
 */
public record DeadLetterRecord(
    long seq,
    String writerId,
    String tenantId,
    String kind,
    String errorClass,
    String message,
    int attempts,
    long firstFailureMicros,
    long lastFailureMicros,
    Long txId,
    String artifactId,
    Long artifactVersion,
    String workareaId,
    String pathAtWrite,
    String writerIdentity,
    String principal,
    String ratifiedBy,
    String provenanceClass,
    String plaintextDigest,
    String ciphertextDigest,
    String bodySha256,
    Long bodyBytes,
    String dataKeyId,
    String envelope,
    Long eventTimeMicros,
    Long requeueOf) {

  public DeadLetterRecord {
    Objects.requireNonNull(writerId, "writerId");
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(message, "message");
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
    }
  }

  /**
   * The record of a row that left the stream with an error: attempts and failure times are the
   * cut's retries, or one attempt at {@code nowMicros} for a permanent error, as in the lake's
   * {@code dead_letter} row.
   */
  public static DeadLetterRecord of(OutboxEvent row, String writerId, long nowMicros) {
    RowError error = row.error();
    if (error == null) {
      throw new IllegalArgumentException("seq " + row.seq() + " carries no error");
    }
    byte[] body = row.body();
    return new DeadLetterRecord(
        row.seq(),
        writerId,
        row.tenantId(),
        row.kind(),
        error.errorClass().name(),
        error.message(),
        error.attempts(),
        error.firstFailureOr(nowMicros),
        error.lastFailureOr(nowMicros),
        row.txId(),
        row.artifactId(),
        row.artifactVersion(),
        row.workareaId(),
        row.pathAtWrite(),
        row.writerIdentity(),
        row.principal(),
        row.ratifiedBy(),
        row.provenanceClass(),
        row.plaintextDigest(),
        row.ciphertextDigest(),
        body == null ? null : EventValidator.sha256Hex(body),
        body == null ? null : (long) body.length,
        row.dataKeyId(),
        row.envelope(),
        row.eventTimeMicros(),
        row.requeueOf());
  }

  @Override
  public String toString() {
    return "DeadLetterRecord{seq="
        + seq
        + ", tenant="
        + tenantId
        + ", kind="
        + kind
        + ", "
        + errorClass
        + "}";
  }
}
