package org.oml.lakewriter.event;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * One row of {@code oml_outbox}, as the writer read it. Fields are nullable because a real outbox
 * may lack our constraints; {@link #error()} is set when the row failed validation, and such a row
 * still travels through the cut so that nothing is dropped.
 *
 * <p>A NULL column stays {@code null} here, in the serializers and in the lake: it never becomes a
 * default value (0, "", 1970). {@code txId} is nullable for that reason only; a row without one
 * carries {@link ErrorClass#MISSING_FIELD}.
 *
 * <p>{@code body} is ciphertext under the artifact's data key and is only ever written to silver,
 * for a valid {@code materialize} row. {@link #toString()} never prints it.
 */
public record OutboxEvent(
    long seq,
    Long txId,
    String tenantId,
    String kind,
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
    byte[] body,
    String dataKeyId,
    String envelope,
    Long eventTimeMicros,
    Long requeueOf,
    RowError error)
    implements OutboxChange {

  public Optional<EventKind> eventKind() {
    return EventKind.fromWireName(kind);
  }

  public boolean isValid() {
    return error == null;
  }

  public OutboxEvent withError(RowError newError) {
    return toBuilder().error(newError).build();
  }

  /** A size estimate for the batch byte cap; deterministic in the row's content. */
  public long estimatedBytes() {
    // Summed field by field: the cut sizes every row, more than once.
    long size =
        64L + length(tenantId) + length(kind) + length(artifactId) + length(workareaId)
            + length(pathAtWrite) + length(writerIdentity) + length(principal)
            + length(ratifiedBy) + length(provenanceClass) + length(plaintextDigest)
            + length(ciphertextDigest) + length(dataKeyId) + length(envelope);
    return size + (body == null ? 0 : body.length);
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }

  public Builder toBuilder() {
    return new Builder()
        .seq(seq)
        .txId(txId)
        .tenantId(tenantId)
        .kind(kind)
        .artifactId(artifactId)
        .artifactVersion(artifactVersion)
        .workareaId(workareaId)
        .pathAtWrite(pathAtWrite)
        .writerIdentity(writerIdentity)
        .principal(principal)
        .ratifiedBy(ratifiedBy)
        .provenanceClass(provenanceClass)
        .plaintextDigest(plaintextDigest)
        .ciphertextDigest(ciphertextDigest)
        .body(body)
        .dataKeyId(dataKeyId)
        .envelope(envelope)
        .eventTimeMicros(eventTimeMicros)
        .requeueOf(requeueOf)
        .error(error);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof OutboxEvent)) {
      return false;
    }
    OutboxEvent e = (OutboxEvent) o;
    return seq == e.seq
        && Objects.equals(txId, e.txId)
        && Objects.equals(tenantId, e.tenantId)
        && Objects.equals(kind, e.kind)
        && Objects.equals(artifactId, e.artifactId)
        && Objects.equals(artifactVersion, e.artifactVersion)
        && Objects.equals(workareaId, e.workareaId)
        && Objects.equals(pathAtWrite, e.pathAtWrite)
        && Objects.equals(writerIdentity, e.writerIdentity)
        && Objects.equals(principal, e.principal)
        && Objects.equals(ratifiedBy, e.ratifiedBy)
        && Objects.equals(provenanceClass, e.provenanceClass)
        && Objects.equals(plaintextDigest, e.plaintextDigest)
        && Objects.equals(ciphertextDigest, e.ciphertextDigest)
        && Arrays.equals(body, e.body)
        && Objects.equals(dataKeyId, e.dataKeyId)
        && Objects.equals(envelope, e.envelope)
        && Objects.equals(eventTimeMicros, e.eventTimeMicros)
        && Objects.equals(requeueOf, e.requeueOf)
        && Objects.equals(error, e.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(seq, txId, tenantId, kind, artifactId, artifactVersion, error)
        + 31 * Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "OutboxEvent{seq="
        + seq
        + ", tenant="
        + tenantId
        + ", kind="
        + kind
        + ", artifact="
        + artifactId
        + "@"
        + artifactVersion
        + (body == null ? "" : ", body=" + body.length + " bytes")
        + (error == null ? "" : ", error=" + error)
        + "}";
  }

  /** Fluent builder; every field is optional except {@code seq}. */
  public static final class Builder {
    private long seq;
    // 0 only as a test convenience: the parser always sets the column's value, NULL included.
    private Long txId = 0L;
    private String tenantId;
    private String kind;
    private String artifactId;
    private Long artifactVersion;
    private String workareaId;
    private String pathAtWrite;
    private String writerIdentity;
    private String principal;
    private String ratifiedBy;
    private String provenanceClass;
    private String plaintextDigest;
    private String ciphertextDigest;
    private byte[] body;
    private String dataKeyId;
    private String envelope;
    private Long eventTimeMicros;
    private Long requeueOf;
    private RowError error;

    private Builder() {}

    public Builder seq(long v) {
      seq = v;
      return this;
    }

    public Builder txId(long v) {
      txId = v;
      return this;
    }

    /** {@code null} when the row's {@code tx_id} is NULL (such a row is dead-lettered). */
    public Builder txId(Long v) {
      txId = v;
      return this;
    }

    public Builder tenantId(String v) {
      tenantId = v;
      return this;
    }

    public Builder kind(String v) {
      kind = v;
      return this;
    }

    public Builder kind(EventKind v) {
      kind = v.wireName();
      return this;
    }

    public Builder artifactId(String v) {
      artifactId = v;
      return this;
    }

    public Builder artifactVersion(Long v) {
      artifactVersion = v;
      return this;
    }

    public Builder workareaId(String v) {
      workareaId = v;
      return this;
    }

    public Builder pathAtWrite(String v) {
      pathAtWrite = v;
      return this;
    }

    public Builder writerIdentity(String v) {
      writerIdentity = v;
      return this;
    }

    public Builder principal(String v) {
      principal = v;
      return this;
    }

    public Builder ratifiedBy(String v) {
      ratifiedBy = v;
      return this;
    }

    public Builder provenanceClass(String v) {
      provenanceClass = v;
      return this;
    }

    public Builder plaintextDigest(String v) {
      plaintextDigest = v;
      return this;
    }

    public Builder ciphertextDigest(String v) {
      ciphertextDigest = v;
      return this;
    }

    public Builder body(byte[] v) {
      body = v;
      return this;
    }

    public Builder dataKeyId(String v) {
      dataKeyId = v;
      return this;
    }

    public Builder envelope(String v) {
      envelope = v;
      return this;
    }

    public Builder eventTimeMicros(Long v) {
      eventTimeMicros = v;
      return this;
    }

    public Builder requeueOf(Long v) {
      requeueOf = v;
      return this;
    }

    public Builder error(RowError v) {
      error = v;
      return this;
    }

    public OutboxEvent build() {
      return new OutboxEvent(
          seq, txId, tenantId, kind, artifactId, artifactVersion, workareaId, pathAtWrite,
          writerIdentity, principal, ratifiedBy, provenanceClass, plaintextDigest,
          ciphertextDigest, body, dataKeyId, envelope, eventTimeMicros, requeueOf, error);
    }
  }
}
