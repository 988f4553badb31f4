package org.oml.lakewriter.delta.writer;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.StateTransitions;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Builds the row of each table from an outbox event. Only {@link #silver} ever copies a body; the
 * dead-letter row carries the body's sha256 instead, so even a mismatched or held body leaves no
 * trace in the lake but its digest.
 */
final class RowFactory {
  /** The silver state of a freshly promoted version; retractions change it (the MERGE). */
  static final String ACTIVE = StateTransitions.ACTIVE;

  private final Clock clock;

  RowFactory(Clock clock) {
    this.clock = clock;
  }

  TableRow bronze(OutboxEvent e) {
    return TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, e.seq())
        .set("artifact_id", e.artifactId())
        .set("version", e.artifactVersion())
        .set("kind", e.kind())
        .set("tenant_id", e.tenantId())
        .set("tx_id", e.txId())
        .set("workarea_id", e.workareaId())
        .set("path_at_write", e.pathAtWrite())
        .set("writer_identity", e.writerIdentity())
        .set("principal", e.principal())
        .set("ratified_by", e.ratifiedBy())
        .set("provenance_class", e.provenanceClass())
        .set("plaintext_digest", e.plaintextDigest())
        .set("ciphertext_digest", e.ciphertextDigest())
        .set("data_key_id", e.dataKeyId())
        .set("envelope", e.envelope())
        .set("event_time", e.eventTimeMicros())
        .set("requeue_of", e.requeueOf())
        .build();
  }

  /** Only for rows that {@link EventRouter} sent to silver: the body has been checked. */
  TableRow silver(OutboxEvent e) {
    return TableRow.builder(LakeSchemas.SILVER_MEMORIES, e.seq())
        .set("artifact_id", e.artifactId())
        .set("version", e.artifactVersion())
        .set("state", ACTIVE)
        .set("tenant_id", e.tenantId())
        .set("workarea_id", e.workareaId())
        .set("path_at_write", e.pathAtWrite())
        .set("writer_identity", e.writerIdentity())
        .set("principal", e.principal())
        .set("ratified_by", e.ratifiedBy())
        .set("provenance_class", e.provenanceClass())
        .set("event_time", e.eventTimeMicros())
        .set("plaintext_digest", e.plaintextDigest())
        .set("ciphertext_digest", e.ciphertextDigest())
        .set("data_key_id", e.dataKeyId())
        .set("body", e.body())
        .build();
  }

  /**
   * Attempts and failure times come from the cut's retries; a permanent error (one attempt, no
   * recorded times) failed now.
   */
  TableRow deadLetter(OutboxEvent e, RowError error) {
    long now = micros(clock.instant());
    return TableRow.builder(LakeSchemas.DEAD_LETTER, e.seq())
        .set("tenant_id", e.tenantId())
        .set("kind", e.kind())
        .set("error_class", error.errorClass().name())
        .set("message", error.message())
        .set("attempts", error.attempts())
        .set("first_failure_time", error.firstFailureOr(now))
        .set("last_failure_time", error.lastFailureOr(now))
        .set("tx_id", e.txId())
        .set("artifact_id", e.artifactId())
        .set("version", e.artifactVersion())
        .set("workarea_id", e.workareaId())
        .set("path_at_write", e.pathAtWrite())
        .set("writer_identity", e.writerIdentity())
        .set("principal", e.principal())
        .set("ratified_by", e.ratifiedBy())
        .set("provenance_class", e.provenanceClass())
        .set("plaintext_digest", e.plaintextDigest())
        .set("ciphertext_digest", e.ciphertextDigest())
        .set("body_sha256", e.body() == null ? null : EventValidator.sha256Hex(e.body()))
        .set("data_key_id", e.dataKeyId())
        .set("envelope", e.envelope())
        .set("event_time", e.eventTimeMicros())
        .set("requeue_of", e.requeueOf())
        .build();
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }
}
