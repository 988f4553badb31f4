package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.quarantine.QuarantineStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter quarantine list | release --tenant T}: the tenants whose tables could not take
 * a batch. Their rows wait in the outbox; other tenants go on. See docs/quarantine.md.
 */
@Command(
    name = "quarantine",
    mixinStandardHelpOptions = true,
    description =
        "Tenants held in quarantine (their rows wait in the outbox while other tenants go on):"
            + " list them, or release one after its table was fixed.",
    subcommands = {QuarantineCommand.ListCommand.class, QuarantineCommand.ReleaseCommand.class})
final class QuarantineCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Override
  public Integer call() throws Exception {
    return ListCommand.print(config.load(), false);
  }

  static QuarantineStore open(LakeWriterConfig cfg) throws IOException {
    return new LakeQuarantineStore(cfg.lake());
  }

  /** The records as plain maps, for {@code status} and {@code --json}. */
  static List<Map<String, Object>> report(LakeWriterConfig cfg) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (QuarantineStore store = open(cfg)) {
      for (Quarantine q : store.list().values()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("tenant", q.tenant());
        row.put("table", q.table());
        row.put(
            "state",
            q.replay() != null
                ? "replaying"
                : q.released()
                    ? "released"
                    : q.action() == Quarantine.Action.REPLAN ? "re-planning" : "needs-operator");
        row.put("reason", q.reason());
        row.put("since", q.since().toString());
        row.put("batch", q.batch());
        row.put("resume_after_seq", q.resumeAfter());
        row.put("txn_versions", q.txnVersions());
        row.put("replans", q.replans());
        rows.add(row);
      }
    }
    return rows;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Each quarantined tenant: its table, reason, since, and its own frontier.")
  static final class ListCommand implements Callable<Integer> {
    @Mixin ConfigMixin config;

    @Option(names = "--json", description = "One JSON document, for scripts.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      return print(config.load(), json);
    }

    static int print(LakeWriterConfig cfg, boolean json) throws IOException {
      List<Map<String, Object>> rows = report(cfg);
      if (json) {
        System.out.println(
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(rows));
      } else if (rows.isEmpty()) {
        System.out.println("no tenant is in quarantine");
      } else {
        for (Map<String, Object> row : rows) {
          System.out.println(row.get("tenant") + ":");
          row.forEach(
              (k, v) -> {
                if (!k.equals("tenant")) {
                  System.out.printf("  %-18s %s%n", k, v);
                }
              });
        }
      }
      return 0;
    }
  }

  @Command(
      name = "release",
      mixinStandardHelpOptions = true,
      description =
          "Releases a tenant after its table was fixed: at its next batch the writer replays the"
              + " tenant's waiting rows from the outbox and commits them; the record goes away"
              + " once that commit succeeded. Exit 1 if the tenant is not in quarantine.")
  static final class ReleaseCommand implements Callable<Integer> {
    @Mixin ConfigMixin config;

    @Option(names = "--tenant", required = true, description = "The tenant id to release.")
    String tenant;

    @Override
    public Integer call() throws Exception {
      try (QuarantineStore store = open(config.load())) {
        Quarantine record = store.list().get(tenant);
        if (record == null) {
          System.err.println(
              "lakewriter: tenant " + tenant + " is not in quarantine (see `quarantine list`)");
          return 1;
        }
        store.put(record.releasedByOperator());
        System.out.println(
            "released "
                + tenant
                + ": the writer replays its rows after seq "
                + record.resumeAfter()
                + " at its next batch");
        return 0;
      }
    }
  }
}
