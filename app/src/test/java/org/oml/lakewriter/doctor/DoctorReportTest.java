package org.oml.lakewriter.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exit codes and the stable document of a doctor run. */
class DoctorReportTest {
  private static final Instant AT = Instant.parse("2026-12-01T00:30:00Z");

  @Test
  void exitCodesFollowTheWorstCheck() {
    DoctorReport ok = report(Check.ok("a", "fine", Map.of()));
    assertThat(ok.exitCode(false)).isZero();
    assertThat(ok.exitCode(true)).isZero();
    DoctorReport warn = report(Check.ok("a", "fine", Map.of()), Check.warn("b", "hm", "do x", Map.of()));
    assertThat(warn.exitCode(false)).isZero();
    assertThat(warn.exitCode(true)).isEqualTo(1);
    DoctorReport fail =
        report(Check.warn("b", "hm", "do x", Map.of()), Check.fail("c", "bad", "do y", Map.of()));
    assertThat(fail.exitCode(false)).isEqualTo(1);
    assertThat(fail.worst()).isEqualTo(CheckStatus.FAIL);
  }

  @Test
  void theJsonDocumentIsSnakeCaseWithIsoTimes() {
    DoctorReport r = report(Check.fail("slot", "gone", "init-db", Map.of("exists", false)));
    Map<String, Object> doc = r.toMap(false);
    assertThat(doc.keySet())
        .containsExactly(
            "format_version", "checked_at", "writer", "status", "exit_code", "counts", "checks");
    assertThat(doc.get("checked_at")).isEqualTo("2026-12-01T00:30:00Z");
    assertThat(doc.get("status")).isEqualTo("FAIL");
    assertThat(doc.get("counts")).isEqualTo(Map.of("ok", 0L, "warn", 0L, "fail", 1L));
    @SuppressWarnings("unchecked")
    Map<String, Object> check = ((List<Map<String, Object>>) doc.get("checks")).get(0);
    assertThat(check.keySet()).containsExactly("name", "status", "finding", "fix", "details");
  }

  @Test
  void theTextNamesEachCheckAndTheFixOfThoseNotOk() {
    DoctorReport r =
        report(Check.ok("wal_level", "logical", Map.of()), Check.fail("slot", "gone", "run init-db", Map.of()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.print(new PrintStream(out, true, StandardCharsets.UTF_8), false);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("OK    wal_level").contains("FAIL  slot").contains("fix: run init-db");
    assertThat(text).doesNotContain("fix: \n");
    assertThat(text).contains("doctor: FAIL (1 FAIL, 0 WARN, 1 OK; exit 1)");
  }

  private static DoctorReport report(Check... checks) {
    return new DoctorReport(AT, Map.of("writer", "w1"), List.of(checks));
  }
}
