package org.oml.lakewriter.verify;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.validate.EventValidator;
import org.oml.lakewriter.validate.TinkCiphertext;

/**
 * Compares one tenant's {@code silver/memories}, key by key, with what the outbox fold says it
 * must hold ({@link SilverFold}), and names every difference as a {@link Finding}. One key can
 * carry several findings (a flipped state and a moved workarea are two).
 */
final class SilverCheck {
  private static final List<String> DIGESTS = List.of("plaintext_digest", "ciphertext_digest");
  private static final List<String> ATTRIBUTION =
      List.of("tenant_id", "path_at_write", "writer_identity", "principal", "ratified_by",
          "provenance_class", "event_time", "data_key_id");

  private SilverCheck() {}

  static List<Finding> compare(String table, Map<String, Map<String, Object>> expected,
      List<Map<String, Object>> silver) {
    Map<String, List<Map<String, Object>>> actual = new TreeMap<>();
    for (Map<String, Object> row : silver) {
      actual.computeIfAbsent(SilverFold.key(row.get("artifact_id"), row.get("version")),
          k -> new ArrayList<>()).add(row);
    }
    TreeSet<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    List<Finding> findings = new ArrayList<>();
    for (String key : keys) {
      Map<String, Object> want = expected.get(key);
      List<Map<String, Object>> got = actual.getOrDefault(key, List.of());
      if (got.isEmpty()) {
        findings.add(new Finding("MISSING_ROW", table, key,
            "the outbox promotes it (state " + want.get("state") + ", seq " + want.get("seq")
                + ") but silver has no row"));
        continue;
      }
      if (want == null) {
        findings.add(new Finding("EXTRA_ROW", table, key,
            "silver holds " + describe(got) + " but no promotion routed to silver creates it"));
        continue;
      }
      if (got.size() > 1) {
        findings.add(new Finding("DUPLICATE_ROW", table, key,
            got.size() + " rows " + describe(got) + " for one key"));
      }
      for (Map<String, Object> row : got) {
        compareRow(table, key, want, row, findings);
      }
    }
    return findings;
  }

  private static void compareRow(String table, String key, Map<String, Object> want,
      Map<String, Object> row, List<Finding> findings) {
    differs("STATE_MISMATCH", "state", table, key, want, row, findings);
    differs("WORKAREA_MISMATCH", "workarea_id", table, key, want, row, findings);
    for (String column : DIGESTS) {
      differs("DIGEST_MISMATCH", column, table, key, want, row, findings);
    }
    Object body = row.get("body");
    String bodyDigest = body instanceof byte[] b ? EventValidator.sha256Hex(b) : null;
    if (SilverFold.ERASED.equals(want.get("state"))) {
      // An erase clears the body in the rewritten file (docs/erasure.md): a body left is a leak.
      if (body != null) {
        findings.add(new Finding("ERASED_BODY_PRESENT", table, key,
            "the row is erased but still holds a body of " + ((byte[]) body).length
                + " bytes (sha256 " + bodyDigest + ")"));
      }
    } else if (!Objects.equals(bodyDigest, lower(want.get("ciphertext_digest")))) {
      findings.add(new Finding("DIGEST_MISMATCH", table, key,
          "sha256(body) " + bodyDigest + " != outbox ciphertext_digest "
              + want.get("ciphertext_digest")));
    }
    if (body instanceof byte[] b && !TinkCiphertext.isWellFormed(b)) {
      // A writer before PLAINTEXT_BODY (issue 16) admitted any body whose digest matched.
      findings.add(new Finding("PLAINTEXT_BODY", table, key,
          TinkCiphertext.problem(b).orElseThrow() + " (sha256 " + bodyDigest + ")"));
    }
    differs("SEQ_MISMATCH", "seq", table, key, want, row, findings);
    for (String column : ATTRIBUTION) {
      differs("ATTRIBUTION_MISMATCH", column, table, key, want, row, findings);
    }
    Object ratifier = row.get("ratified_by");
    if (ratifier == null || ratifier.equals(row.get("writer_identity"))) {
      findings.add(new Finding("UNRATIFIED_BODY", table, key,
          "a body in silver not ratified by an identity other than its writer ("
              + row.get("writer_identity") + ")"));
    }
  }

  private static void differs(String name, String column, String table, String key,
      Map<String, Object> want, Map<String, Object> row, List<Finding> findings) {
    Object expected = want.get(column);
    Object actual = row.get(column);
    if (!Objects.equals(expected, actual)) {
      findings.add(new Finding(name, table, key,
          column + " is " + actual + " in silver, the outbox fold says " + expected));
    }
  }

  private static Object lower(Object digest) {
    return digest instanceof String s ? s.toLowerCase(Locale.ROOT) : digest;
  }

  private static String describe(List<Map<String, Object>> rows) {
    return Arrays.toString(
        rows.stream().map(r -> "(" + r.get("state") + ", seq " + r.get("seq") + ")").toArray());
  }
}
