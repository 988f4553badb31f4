package org.oml.lakewriter.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.verify.Finding;
import org.oml.lakewriter.verify.LakeVerifier;

/** What landed: one line per table (rows, txn version, files), and the verification result. */
final class LakeReport {
  private LakeReport() {}

  static List<Map<String, Object>> tables(LakeReader lake) throws IOException {
    List<Map<String, Object>> tables = new ArrayList<>();
    for (TableId table : lake.tables()) {
      TableContents contents = lake.contents(table).orElseThrow();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("tenant", table.prefix());
      row.put("table", table.kind().path());
      row.put("rows", contents.rows().size());
      row.put("txn_version", contents.txnVersion());
      row.put("files", contents.fileCount());
      row.put("delta_version", contents.tableVersion());
      tables.add(row);
    }
    return tables;
  }

  static void printTables(List<Map<String, Object>> tables, PrintStream out) {
    out.printf("%-12s %-22s %8s %12s %6s%n", "tenant", "table", "rows", "txn_version", "files");
    for (Map<String, Object> t : tables) {
      out.printf(
          "%-12s %-22s %8s %12s %6s%n",
          t.get("tenant"), t.get("table"), t.get("rows"), t.get("txn_version"), t.get("files"));
    }
  }

  static Map<String, Object> verification(LakeVerifier.Result result) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("ok", result.ok());
    v.put("frontier", result.frontier());
    v.put("outbox_rows", result.outboxRows());
    // snake_case like every other key of the document (the record's components are camelCase).
    Map<String, Object> tenants = new LinkedHashMap<>();
    result
        .tenants()
        .forEach(
            (tenant, t) -> {
              Map<String, Object> counts = new LinkedHashMap<>();
              counts.put("outbox", t.outbox());
              counts.put("bronze", t.bronze());
              counts.put("silver", t.silver());
              counts.put("dead_letters", t.deadLetters());
              counts.put("silver_txn_version", t.silverTxnVersion());
              tenants.put(tenant, counts);
            });
    v.put("tenants", tenants);
    v.put("finding_counts", result.findingCounts());
    List<Map<String, Object>> findings = new ArrayList<>();
    for (Finding f : result.findings()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("finding", f.name());
      one.put("table", f.table());
      one.put("subject", f.subject());
      one.put("detail", f.detail());
      findings.add(one);
    }
    v.put("findings", findings);
    v.put("problems", result.problems());
    return v;
  }

  static void printVerification(LakeVerifier.Result result, PrintStream out) {
    long bronze = 0;
    long dead = 0;
    for (LakeVerifier.TenantCounts t : result.tenants().values()) {
      bronze += t.bronze();
      dead += t.deadLetters();
    }
    out.printf(
        "verify: %s (outbox rows <= frontier %d: %d; bronze %d + dead letters %d)%n",
        result.ok() ? "OK" : "FAILED", result.frontier(), result.outboxRows(), bronze, dead);
    if (!result.ok()) {
      out.println("  findings: " + result.findingCounts());
    }
    result.problems().stream().limit(20).forEach(p -> out.println("  " + p));
    if (result.findings().size() > 20) {
      out.println("  ... " + (result.findings().size() - 20) + " more (--json lists them all)");
    }
  }
}
