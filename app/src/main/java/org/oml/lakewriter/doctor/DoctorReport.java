package org.oml.lakewriter.doctor;

import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every check of one doctor run, in a fixed order, and the exit code they add up to
 * (docs/doctor.md, "Exit codes"): {@value #EXIT_OK} when no check FAILs, {@value #EXIT_FAIL} when
 * one does (or, with {@code --fail-on-warn}, when one WARNs). Exit 2 stays the command line's
 * configuration error.
 */
public record DoctorReport(Instant checkedAt, Map<String, Object> subject, List<Check> checks) {
  /** The version of the JSON document; bumped when a field changes meaning or goes away. */
  public static final int FORMAT_VERSION = 1;

  public static final int EXIT_OK = 0;
  public static final int EXIT_FAIL = 1;

  public DoctorReport {
    checks = List.copyOf(checks);
    subject = new LinkedHashMap<>(subject);
  }

  public CheckStatus worst() {
    CheckStatus worst = CheckStatus.OK;
    for (Check c : checks) {
      worst = worst.worst(c.status());
    }
    return worst;
  }

  public int exitCode(boolean failOnWarn) {
    CheckStatus worst = worst();
    if (worst == CheckStatus.FAIL || (failOnWarn && worst == CheckStatus.WARN)) {
      return EXIT_FAIL;
    }
    return EXIT_OK;
  }

  public long count(CheckStatus status) {
    return checks.stream().filter(c -> c.status() == status).count();
  }

  /** The check of that name; tests and scripts look checks up by name. */
  public Check check(String name) {
    return checks.stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no check named " + name));
  }

  /** The stable machine-readable document of {@code doctor --json} (snake_case, ISO 8601). */
  public Map<String, Object> toMap(boolean failOnWarn) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("format_version", FORMAT_VERSION);
    m.put("checked_at", checkedAt.toString());
    m.putAll(subject);
    m.put("status", worst().name());
    m.put("exit_code", exitCode(failOnWarn));
    Map<String, Object> counts = new LinkedHashMap<>();
    for (CheckStatus s : CheckStatus.values()) {
      counts.put(s.name().toLowerCase(java.util.Locale.ROOT), count(s));
    }
    m.put("counts", counts);
    m.put("checks", checks.stream().map(Check::toMap).toList());
    return m;
  }

  /** One line per check, the fix under each one that is not OK, and a summary line. */
  public void print(PrintStream out, boolean failOnWarn) {
    for (Check c : checks) {
      out.printf("%-5s %-18s %s%n", c.status(), c.name(), c.finding());
      if (c.status() != CheckStatus.OK && !c.fix().isEmpty()) {
        out.printf("%-5s %-18s fix: %s%n", "", "", c.fix());
      }
    }
    out.printf(
        "doctor: %s (%d FAIL, %d WARN, %d OK; exit %d)%n",
        worst(),
        count(CheckStatus.FAIL),
        count(CheckStatus.WARN),
        count(CheckStatus.OK),
        exitCode(failOnWarn));
  }
}
