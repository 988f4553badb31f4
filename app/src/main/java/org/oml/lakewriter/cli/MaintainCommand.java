package org.oml.lakewriter.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.lease.LeaderLease;
import org.oml.lakewriter.lease.LeaseRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter maintain compact|checkpoint [--tenant T] [--table bronze|silver|dead_letter|gold|gold/lineage|...]}:
 * lake maintenance by an operator, between runs. Each subcommand is a nested class of its own
 * ({@link CompactCommand}, {@link CheckpointCommand}, and {@link MaintainVacuumCommand} in its
 * own file).
 *
 * <p>{@code compact} and {@code checkpoint} commit to (or write into the log of) the writer's
 * tables, so they refuse to run while a writer may still commit: while the lake's leader lease is
 * unexpired (live, or stale: a holder that stopped renewing may still commit until it expires) or
 * the writer's replication slot is active. The refusal is the named error {@code
 * MAINTAIN_WRITER_LIVE}, exit code 3. {@code vacuum} only deletes files that removes named long ago
 * and runs alongside the writer (docs/erasure.md). A table that cannot be rewritten safely (column mapping,
 * append-only, change data feed) is named on stderr and skipped; the exit code is then 1.
 * See docs/compaction.md.
 */
@Command(
    name = "maintain",
    mixinStandardHelpOptions = true,
    description =
        "Lake maintenance: compact small files and write Delta log checkpoints between runs"
            + " (refused, exit 3, MAINTAIN_WRITER_LIVE, while a writer holds the lake's lease or"
            + " the slot); vacuum removed files, safe alongside a running writer; rebuild a"
            + " tenant's gold tables from its bronze (rebuild-gold, --check to compare only).",
    subcommands = {
      MaintainCommand.CompactCommand.class,
      MaintainCommand.CheckpointCommand.class,
      MaintainVacuumCommand.class,
      MaintainRebuildGoldCommand.class
    })
final class MaintainCommand {
  /** Exit code of a refusal because a writer may still commit. */
  static final int WRITER_LIVE = 3;

  private MaintainCommand() {}

  /** Which tables a maintenance command applies to: {@code --tenant}, {@code --table}. */
  static final class Target {
    @Option(names = "--tenant", paramLabel = "T", description = "Only this tenant's tables.")
    String tenant;

    @Option(
        names = "--table",
        paramLabel = "KIND",
        description =
            "Only this table of each tenant: bronze, silver, dead_letter, gold (the three gold"
                + " tables), or one of gold/lineage, gold/workarea_memories, gold/workareas.")
    String table;

    List<TableId> tables(LakeConfig lake) throws java.io.IOException {
      return TableSelection.select(LakeReader.open(lake), tenant, table);
    }
  }

  /**
   * Null if no writer may commit to the lake; else the refusal, naming who holds it and what to
   * do.
   */
  static String writerLive(Connection c, LakeWriterConfig cfg) throws SQLException {
    Optional<LeaseRecord> lease = LeaderLease.read(c, cfg.lakeRoot());
    if (lease.isPresent() && !lease.get().expired()) {
      return "MAINTAIN_WRITER_LIVE: a writer holds the lake's leader lease ("
          + lease.get().describe()
          + "); stop it (`lakewriter run` with a savepoint, or cancel) and run maintain again,"
          + " or let the job compact (maintenance.compact.enabled)";
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, cfg.get(LakeWriterOptions.SLOT));
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getBoolean("active")) {
          return "MAINTAIN_WRITER_LIVE: replication slot "
              + cfg.get(LakeWriterOptions.SLOT)
              + " is active (walsender pid "
              + rs.getInt("active_pid")
              + "): a writer is streaming; stop it and run maintain again";
        }
      }
    }
    return null;
  }

  /** Runs {@code body} on the selected tables unless a writer is live; the exit code. */
  static int run(ConfigMixin config, Target target, String verb, TableAction body)
      throws Exception {
    LakeWriterConfig cfg = config.load();
    try (Connection c = Preflight.connect(cfg)) {
      String refusal = writerLive(c, cfg);
      if (refusal != null) {
        System.err.println("lakewriter: " + refusal);
        return WRITER_LIVE;
      }
    }
    LakeConfig lake = cfg.lake();
    List<TableId> tables = target.tables(lake);
    if (tables.isEmpty()) {
      System.out.println("no table to " + verb);
      return 0;
    }
    int exit = 0;
    try (org.oml.lakewriter.delta.kernel.KernelDeltaTableClient client =
        new org.oml.lakewriter.delta.kernel.KernelDeltaTableClient(lake)) {
      for (TableId table : tables) {
        try {
          System.out.println(body.apply(cfg, client, table));
        } catch (org.oml.lakewriter.delta.TableUnusableException e) {
          // One table this writer cannot rewrite safely does not stop the others.
          System.err.println("lakewriter: " + verb + " " + table + ": " + e.getMessage());
          exit = 1;
        }
      }
    }
    return exit;
  }

  @FunctionalInterface
  interface TableAction {
    String apply(
        LakeWriterConfig cfg,
        org.oml.lakewriter.delta.kernel.KernelDeltaTableClient client,
        TableId table)
        throws Exception;
  }

  @Command(
      name = "compact",
      mixinStandardHelpOptions = true,
      description =
          "Rewrites each table's small files (maintenance.compact.small-file-size) into files of"
              + " about maintenance.compact.target-file-size: one Delta commit per table with"
              + " dataChange=false and no txn action, so no row and no txn version changes."
              + " Compacts a table with at least 2 small files, whatever min-files says, and"
              + " takes every small file (the job leaves out files larger than all the smaller"
              + " ones together).")
  static final class CompactCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin ConfigMixin config;
    @picocli.CommandLine.Mixin Target target;

    @Override
    public Integer call() throws Exception {
      return run(
          config,
          target,
          "compact",
          (cfg, client, table) -> {
            org.oml.lakewriter.delta.compact.CompactionPolicy policy =
                cfg.compactionPolicy().withMinFiles(2);
            return "compact "
                + org.oml.lakewriter.delta.compact.TableCompactor.full(
                        client, policy, org.oml.lakewriter.delta.compact.CompactionGuard.unshared())
                    .compact(table, org.oml.lakewriter.delta.compact.TableCompactor.IoCheck.NONE);
          });
    }
  }

  @Command(
      name = "checkpoint",
      mixinStandardHelpOptions = true,
      description =
          "Writes a Delta log checkpoint of each table's latest version, so that opening the"
              + " table reads one Parquet file instead of replaying every commit since the last"
              + " checkpoint (the job writes one every 10 commits).")
  static final class CheckpointCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin ConfigMixin config;
    @picocli.CommandLine.Mixin Target target;

    @Override
    public Integer call() throws Exception {
      return run(
          config,
          target,
          "checkpoint",
          (cfg, client, table) ->
              "checkpoint " + table + ": log checkpoint at version " + client.checkpoint(table));
    }
  }
}
