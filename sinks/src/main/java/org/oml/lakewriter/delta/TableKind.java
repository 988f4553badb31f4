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
  DEAD_LETTER("dead_letter"),
  /** One row per (artifact_id, version) with a journal event: its chain of custody, no body. */
  GOLD_LINEAGE("gold/lineage"),
  /** The active memories of every validated workarea: attribution and digests, no body. */
  GOLD_WORKAREA_MEMORIES("gold/workarea_memories"),
  /** One row per workarea with a validation event: whether it is validated now, and by whom. */
  GOLD_WORKAREAS("gold/workareas");

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
