package org.oml.lakewriter.verify;

import java.util.Comparator;
import java.util.Objects;

/**
 * One thing {@code lakewriter verify} found wrong, by name: what ({@link #name}), where (the table,
 * e.g. {@code acme/silver/memories}), about what (a key {@code artifact@version} or {@code seq=N}),
 * and the detail (what the lake holds against what the outbox says).
 *
 * <p>Silver findings, from comparing each key with the fold of the outbox ({@link SilverFold}):
 * {@code MISSING_ROW}, {@code EXTRA_ROW}, {@code DUPLICATE_ROW}, {@code STATE_MISMATCH}, {@code
 * WORKAREA_MISMATCH}, {@code DIGEST_MISMATCH}, {@code SEQ_MISMATCH}, {@code ATTRIBUTION_MISMATCH},
 * {@code UNRATIFIED_BODY}, {@code PLAINTEXT_BODY} (a body not in the shape of a Tink ciphertext,
 * docs/security.md), and {@code SILVER_BEHIND} (the table's txn version is below a seq, at or
 * below the verified frontier, that changes it). Coverage findings, over bronze and the dead
 * letters: {@code MISSING_ROW}, {@code DUPLICATE_ROW}, {@code UNKNOWN_ROW}, {@code WRONG_PREFIX}.
 * Gold findings ({@link GoldCheck}): {@code GOLD_<T>_MISSING}, {@code _EXTRA}, {@code _DUPLICATE},
 * {@code _MISMATCH} for {@code T} in {@code LINEAGE}, {@code MEMBERSHIP}, {@code WORKAREA}, and
 * {@code GOLD_BEHIND}.
 */
public record Finding(String name, String table, String subject, String detail) {
  public Finding {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(detail, "detail");
  }

  /**
   * The order findings are listed in: by name, table, then subject with its numbers compared as
   * numbers ({@code seq=2} before {@code seq=10}, where text order would put {@code seq=10}
   * first), then detail.
   */
  public static final Comparator<Finding> ORDER =
      Comparator.comparing(Finding::name)
          .thenComparing(Finding::table, Finding::compareNatural)
          .thenComparing(Finding::subject, Finding::compareNatural)
          .thenComparing(Finding::detail);

  /** Text order, except that runs of digits compare by their value. */
  static int compareNatural(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char x = a.charAt(i);
      char y = b.charAt(j);
      if (Character.isDigit(x) && Character.isDigit(y)) {
        int si = i;
        int sj = j;
        while (i < a.length() && Character.isDigit(a.charAt(i))) {
          i++;
        }
        while (j < b.length() && Character.isDigit(b.charAt(j))) {
          j++;
        }
        String n = a.substring(si, i).replaceFirst("^0+(?=.)", "");
        String m = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
        int c = n.length() != m.length() ? Integer.compare(n.length(), m.length()) : n.compareTo(m);
        if (c != 0) {
          return c;
        }
      } else {
        if (x != y) {
          return Character.compare(x, y);
        }
        i++;
        j++;
      }
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  @Override
  public String toString() {
    return name + " " + table + " " + subject + (detail.isEmpty() ? "" : ": " + detail);
  }
}
