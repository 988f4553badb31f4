package org.oml.lakewriter.demo;

import org.oml.lakewriter.event.EventKind;

/**
 * One outbox row to insert, in the column order of the outbox; {@code wrappedKey} goes to the key
 * store, not the outbox, and {@code erasedDataKeyId} (an {@code erase} only) is the data key the
 * key store deletes in the erase row's transaction.
 *
 * <p>Invariant: the factories fix which columns each kind fills. Only a promotion carries a body,
 * its digests and a data key; only a journal row carries a signed envelope; only a promotion names
 * a ratifier. {@code seq}, {@code tx_id} and {@code event_time} are the database's.
 */
record OutboxRow(
    String tenant,
    EventKind kind,
    String artifactId,
    Long version,
    String workarea,
    String path,
    String writer,
    String principal,
    String ratifiedBy,
    String provenance,
    String plaintextDigest,
    String ciphertextDigest,
    byte[] body,
    String dataKeyId,
    String envelope,
    byte[] wrappedKey,
    String erasedDataKeyId) {

  /** This erase row, destroying the erased version's data key in its transaction. */
  OutboxRow withErasedKey(String dataKeyId) {
    if (kind != EventKind.ERASE) {
      throw new IllegalStateException(kind + " destroys no data key; only an erase does");
    }
    return new OutboxRow(tenant, kind, artifactId, version, workarea, path, writer, principal,
        ratifiedBy, provenance, plaintextDigest, ciphertextDigest, body, this.dataKeyId, envelope,
        wrappedKey, dataKeyId);
  }

  /** A journal row: digest-only, with the signed envelope and never a body. */
  static OutboxRow journal(
      String tenant,
      TenantLedger.Artifact a,
      long version,
      Identity actor,
      String plaintextDigest,
      String envelope) {
    return new OutboxRow(
        tenant,
        EventKind.JOURNAL,
        a.id(),
        version,
        a.workarea(),
        a.path(),
        actor.identity(),
        actor.principal(),
        null,
        a.provenance(),
        plaintextDigest,
        null,
        null,
        null,
        envelope,
        null,
        null);
  }

  /** A promotion of a written version, attributed to its writer and ratified by another. */
  static OutboxRow materialize(
      String tenant,
      TenantLedger.Written w,
      Identity ratifier,
      BodyEncryption.EncryptedBody sealed) {
    TenantLedger.Artifact a = w.artifact();
    return new OutboxRow(
        tenant,
        EventKind.MATERIALIZE,
        a.id(),
        w.version(),
        a.workarea(),
        a.path(),
        w.writer().identity(),
        w.writer().principal(),
        ratifier.identity(),
        a.provenance(),
        sealed.plaintextDigest(),
        sealed.ciphertextDigest(),
        sealed.ciphertext(),
        sealed.dataKeyId(),
        null,
        sealed.wrappedDataKey(),
        null);
  }

  /** A retraction of a live version; a reassign carries the artifact's new workarea. */
  static OutboxRow retraction(
      String tenant, EventKind kind, TenantLedger.Artifact a, long version, Identity actor) {
    return new OutboxRow(
        tenant,
        kind,
        a.id(),
        version,
        a.workarea(),
        a.path(),
        actor.identity(),
        actor.principal(),
        null,
        a.provenance(),
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A workarea validation ({@code path} non-null: the workarea's path then) or its revocation
   * ({@code path} null), by a reviewer; no artifact, no digest, no body (issue 15).
   */
  static OutboxRow workareaValidation(
      String tenant, String workarea, String path, Identity reviewer) {
    return new OutboxRow(
        tenant,
        path != null ? EventKind.WORKAREA_VALIDATED : EventKind.WORKAREA_INVALIDATED,
        null,
        null,
        workarea,
        path,
        reviewer.identity(),
        reviewer.principal(),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }
}
