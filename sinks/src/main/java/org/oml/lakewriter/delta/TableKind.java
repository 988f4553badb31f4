package org.oml.lakewriter.delta;

import java.util.Optional;

/**
 * The tables a tenant prefix holds. Each kind is stored (in committables, in logs) by its path
 * under the tenant prefix, never by ordinal, so that adding a kind cannot reinterpret old bytes.
 */
public enum TableKind {
  /** Every valid event of every kind: digests, envelope and attribution, never a body. */
  BRONZE_JOURNAL_EVENTS("bronze/journal_events"),
  /** One row per promoted (artifact_id, version), with the ciphertext body. */
  SILVER_MEMORIES("silver/memories"),
  /** Rows that could not be applied, with the body replaced by its digest. */
  DEAD_LETTER("dead_letter");

  private final String path;

  TableKind(String path) {
    this.path = path;
  }

  /** The table's directory below its tenant prefix, e.g. {@code bronze/journal_events}. */
  public String path() {
    return path;
  }

  public static Optional<TableKind> fromPath(String path) {
    for (TableKind kind : values()) {
      if (kind.path.equals(path)) {
        return Optional.of(kind);
      }
    }
    return Optional.empty();
  }
}
