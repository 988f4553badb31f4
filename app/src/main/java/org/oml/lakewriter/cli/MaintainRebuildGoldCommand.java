package org.oml.lakewriter.cli;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.gold.GoldRebuild;
import org.oml.lakewriter.verify.Finding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter maintain rebuild-gold --tenant T [--check]}: rebuilds the tenant's three gold
 * tables from its bronze alone ({@link GoldRebuild}), or with {@code --check} only compares them
 * with that rebuild and names every difference.
 *
 * <p>Exit codes: 0 done (or, with {@code --check}, no difference); 1 {@code --check} found a
 * difference, or a table could not be replaced; 2 a bad argument or no bronze table; 3 {@code
 * MAINTAIN_WRITER_LIVE} (the rebuild commits, so it refuses while a writer may commit; {@code
 * --check} reads only and runs alongside); 4 {@value GoldRebuild#AHEAD} (a gold table records a
 * txn version above bronze's: the lake is mid-commit). See docs/gold.md.
 */
@Command(
    name = "rebuild-gold",
    mixinStandardHelpOptions = true,
    description =
        "Rebuilds a tenant's gold tables (gold/lineage, gold/workarea_memories, gold/workareas)"
            + " from its bronze alone: one Delta commit per table that removes every live file and"
            + " adds the rebuilt ones, under bronze's txn version. Refused while a writer is live"
            + " (exit 3, MAINTAIN_WRITER_LIVE) and when a gold table is ahead of bronze (exit 4, "
            + GoldRebuild.AHEAD
            + "). --check compares without writing and exits 1 on any difference.")
final class MaintainRebuildGoldCommand implements Callable<Integer> {
  /** Exit code of the refusal when gold is ahead of bronze. */
  static final int GOLD_AHEAD = 4;

  @Mixin ConfigMixin config;

  @Option(names = "--tenant", required = true, paramLabel = "T", description = "The tenant.")
  String tenant;

  @Option(
      names = "--check",
      description =
          "Compare the gold tables with the rebuild, each at its own txn version, and print every"
              + " difference (GOLD_LINEAGE_MISMATCH, GOLD_WORKAREA_MISSING, ...); write nothing."
              + " Runs alongside a live writer.")
  boolean check;

  @Override
  public Integer call() throws Exception {
    String prefix = TableSelection.prefix(tenant);
    if (prefix.equals(TableId.INVALID_TENANT_PREFIX)) {
      throw new ConfigException(
          TableId.INVALID_TENANT_PREFIX + " holds only dead letters, it has no gold; give a tenant");
    }
    LakeWriterConfig cfg = config.load();
    if (!check) {
      try (Connection c = Preflight.connect(cfg)) {
        String refusal = MaintainCommand.writerLive(c, cfg);
        if (refusal != null) {
          System.err.println("lakewriter: " + refusal);
          return MaintainCommand.WRITER_LIVE;
        }
      }
    }
    LakeConfig lake = cfg.lake();
    GoldRebuild.Plan plan;
    try {
      plan = GoldRebuild.plan(LakeReader.open(lake), prefix);
    } catch (GoldRebuild.AheadException e) {
      System.err.println("lakewriter: " + e.getMessage());
      return GOLD_AHEAD;
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
    System.out.printf(
        "rebuild-gold %s: %d bronze rows folded, bronze txn version %d%n",
        prefix, plan.bronzeRows(), plan.bronzeTxn());
    for (Map.Entry<TableKind, List<org.oml.lakewriter.delta.TableRow>> e : plan.rows().entrySet()) {
      Optional<TableContents> now = plan.current().get(e.getKey());
      System.out.printf(
          "  %-26s rebuilt rows %6d | now %s%n",
          TableId.of(prefix, e.getKey()).relativePath(),
          e.getValue().size(),
          now.map(t -> t.rows().size() + " rows, txn version " + t.txnVersion()).orElse("missing"));
    }
    if (check) {
      plan.findings().forEach(f -> System.out.println("  " + f));
      System.out.println(
          "rebuild-gold --check: "
              + (plan.findings().isEmpty()
                  ? "OK, gold equals the fold of bronze"
                  : plan.findings().size() + " difference(s) " + counts(plan.findings())));
      return plan.findings().isEmpty() ? 0 : 1;
    }
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (GoldRebuild.Replaced r : GoldRebuild.apply(client, plan)) {
        System.out.printf(
            "rebuild-gold %s: %d rows in %d files, table version %d, txn version %d (%s)%n",
            r.table(), r.rows(), r.files(), r.tableVersion(), r.txnVersion(),
            r.txnAction() ? "txn action" : "no txn action: already at it");
      }
    } catch (TableUnusableException e) {
      System.err.println("lakewriter: rebuild-gold " + prefix + ": " + e.getMessage());
      return 1;
    }
    return 0;
  }

  private static Map<String, Long> counts(List<Finding> findings) {
    Map<String, Long> counts = new java.util.TreeMap<>();
    findings.forEach(f -> counts.merge(f.name(), 1L, Long::sum));
    return counts;
  }
}
