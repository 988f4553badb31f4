package org.oml.lakewriter.event;

/**
 * Why a row cannot be applied. Permanent classes go to the dead letters at once; transient ones are
 * retried first. Stored by {@link #name()}, never by ordinal.
 */
public enum ErrorClass {
  /** Columns that do not parse into an event (wrong type, unreadable value). */
  MALFORMED_ROW(true),
  /** The envelope of a journal event is not a JSON object. */
  UNPARSEABLE_ENVELOPE(true),
  UNKNOWN_KIND(true),
  MISSING_FIELD(true),
  INVALID_TENANT(true),
  /** sha256(body) differs from ciphertext_digest. */
  DIGEST_MISMATCH(true),
  BODY_TOO_LARGE(true),
  /** A promotion whose ratifier is its own writer: a held body that must never reach the lake. */
  UNRATIFIED_BODY(true),
  SCHEMA_MISMATCH(true),
  /**
   * A promotion whose body does not have the shape of a Tink ciphertext ({@code
   * validate/TinkCiphertext}): most likely plaintext that a producer forgot to seal, which must
   * never reach the lake (ADR-0003 d7). Checked without a key; docs/security.md.
   */
  PLAINTEXT_BODY(true),
  /**
   * A dependency of the row (the data-key registry) did not answer: timeout, lost connection,
   * lock. Retried with back-off within the budget, then dead-lettered.
   */
  DEPENDENCY_UNAVAILABLE(false),
  /**
   * The registry does not know the promotion's data key yet (it may still be replicating).
   * Retried within the budget, then dead-lettered: a body whose key is unknown is unreadable.
   */
  UNKNOWN_DATA_KEY(false);

  private final boolean permanent;

  ErrorClass(boolean permanent) {
    this.permanent = permanent;
  }

  public boolean isPermanent() {
    return permanent;
  }
}
