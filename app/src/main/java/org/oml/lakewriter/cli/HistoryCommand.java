package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.log.TableHistory;
import org.oml.lakewriter.delta.read.LakeReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter history --tenant T --table silver}: the table's versions for reconciliation,
 * each with its commit time, the txn version the table holds after it, the outbox seqs it covers
 * (the previous txn version + 1 to its own) and its operation. Reads the Delta log only.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description =
        "Lists a table's versions: commit time, txn version, the outbox seq range each covers"
            + " (previous txn version + 1 .. txn version) and the operation (metadata, data,"
            + " rewrite, or compaction when every action has dataChange=false). Versions whose log"
            + " files Delta's log cleanup removed are not listed. Use with"
            + " `lakewriter verify --as-of-seq S`.")
final class HistoryCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--tenant", required = true, description = "The tenant (or _invalid).")
  String tenant;

  @Option(
      names = "--table",
      defaultValue = "silver",
      description =
          "bronze, silver, dead_letter, gold/lineage, gold/workarea_memories or gold/workareas"
              + " (default: ${DEFAULT-VALUE}).")
  String table;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    TableId id = TableSelection.one(tenant, table);
    LakeWriterConfig cfg = config.load();
    LakeReader lake = LakeReader.open(cfg.lake());
    List<TableHistory.Version> versions = lake.history(id);
    if (versions.isEmpty()) {
      throw new ConfigException(
          "no table " + id.relativePath() + " under lake.root = " + cfg.lakeRoot()
              + " (no Delta log): check --tenant, --table and lake.root");
    }
    if (json) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (TableHistory.Version v : versions) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("version", v.version());
        row.put("commit_time", v.time().toString());
        row.put("txn_version", v.txnVersion());
        row.put("seq_from", v.seqFrom() < 0 ? null : v.seqFrom());
        row.put("seq_to", v.seqTo() < 0 ? null : v.seqTo());
        row.put("operation", v.operation().wireName());
        row.put("files_added", v.filesAdded());
        row.put("files_removed", v.filesRemoved());
        rows.add(row);
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("table", id.relativePath());
      doc.put("versions", rows);
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
      return 0;
    }
    System.out.printf("%s%n", id.relativePath());
    System.out.printf(
        "%8s  %-24s  %12s  %-25s  %-10s  %s%n",
        "version", "commit time", "txn version", "seq range", "operation", "files +/-");
    for (TableHistory.Version v : versions) {
      String range = v.seqFrom() < 0 ? "-" : v.seqFrom() + " .. " + v.seqTo();
      System.out.printf(
          "%8d  %-24s  %12d  %-25s  %-10s  +%d/-%d%n",
          v.version(), v.time(), v.txnVersion(), range, v.operation().wireName(), v.filesAdded(),
          v.filesRemoved());
    }
    return 0;
  }
}
