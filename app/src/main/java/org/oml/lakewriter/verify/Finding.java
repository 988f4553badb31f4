package org.oml.lakewriter.verify;

import java.util.Objects;

/**
 * One thing {@code lakewriter verify} found wrong, by name: what ({@link #name}), where (the table,
 * e.g. {@code acme/silver/memories}), about what (a key {@code artifact@version} or {@code seq=N}),
 * and the detail (what the lake holds against what the outbox says).
 *
 * <p>Silver findings, from comparing each key with the fold of the outbox ({@link SilverFold}):
 * {@code MISSING_ROW}, {@code EXTRA_ROW}, {@code DUPLICATE_ROW}, {@code STATE_MISMATCH}, {@code
 * WORKAREA_MISMATCH}, {@code DIGEST_MISMATCH}, {@code SEQ_MISMATCH}, {@code ATTRIBUTION_MISMATCH},
 * {@code UNRATIFIED_BODY}, and {@code SILVER_BEHIND} (the table's txn version is below a seq, at or
 * below the verified frontier, that changes it). Coverage findings, over bronze and the dead
 * letters: {@code MISSING_ROW}, {@code DUPLICATE_ROW}, {@code UNKNOWN_ROW}, {@code WRONG_PREFIX}.
 */
public record Finding(String name, String table, String subject, String detail) {
  public Finding {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(detail, "detail");
  }

  @Override
  public String toString() {
    return name + " " + table + " " + subject + (detail.isEmpty() ? "" : ": " + detail);
  }
}
