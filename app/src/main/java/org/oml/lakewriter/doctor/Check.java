package org.oml.lakewriter.doctor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one named check: its status, a one-line finding (what was seen, with the numbers),
 * a one-line fix hint (what to do; empty when there is nothing to do), and the facts it was decided
 * on, keyed in snake_case. The name is stable: scripts and alert rules match on it.
 */
public record Check(
    String name, CheckStatus status, String finding, String fix, Map<String, Object> details) {
  public Check {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(finding, "finding");
    fix = fix == null ? "" : fix;
    details =
        details == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
  }

  public static Check ok(String name, String finding, Map<String, Object> details) {
    return new Check(name, CheckStatus.OK, finding, "", details);
  }

  public static Check warn(String name, String finding, String fix, Map<String, Object> details) {
    return new Check(name, CheckStatus.WARN, finding, fix, details);
  }

  public static Check fail(String name, String finding, String fix, Map<String, Object> details) {
    return new Check(name, CheckStatus.FAIL, finding, fix, details);
  }

  /** The check as a JSON-ready map: name, status, finding, fix, details. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("status", status.name());
    m.put("finding", finding);
    m.put("fix", fix);
    m.put("details", details);
    return m;
  }
}
