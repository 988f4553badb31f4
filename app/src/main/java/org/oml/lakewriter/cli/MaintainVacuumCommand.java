package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.kernel.KernelTableReader;
import org.oml.lakewriter.delta.log.Vacuum;
import org.oml.lakewriter.delta.read.LakeReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lakewriter maintain vacuum --retain D}: deletes the data files the selected tables removed
 * longer ago than {@code D} ({@link Vacuum}). It takes no slot and no lease: it is safe while the
 * writer runs, because it deletes only files that the committed log removed before the horizon,
 * never a staged file, and nothing a version inside the retention reads (docs/erasure.md).
 */
@Command(
    name = "vacuum",
    mixinStandardHelpOptions = true,
    description =
        "Deletes data files removed from the table longer ago than --retain (their remove"
            + " action's deletionTimestamp), keeping every file that a version committed inside"
            + " the retention, or the latest version, reads. Safe alongside a running writer. The"
            + " log is left to Delta's own cleanup (delta.logRetentionDuration). Refuses a"
            + " retention below maintain.vacuum.min-retention (default 7 d).")
final class MaintainVacuumCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(
      names = "--retain",
      required = true,
      paramLabel = "DURATION",
      description = "Keep every version committed within this long (7d, 168h, 30min).")
  String retain;

  @Option(names = "--tenant", description = "Only this tenant's tables (or _invalid).")
  String tenant;

  @Option(
      names = "--table",
      description =
          "Only this table: bronze, silver, dead_letter, gold (the three gold tables) or a table"
              + " path such as gold/lineage.")
  String table;

  @Option(names = "--dry-run", description = "List what would be deleted; delete nothing.")
  boolean dryRun;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    Duration retention = retention(retain, cfg.get(LakeWriterOptions.VACUUM_MIN_RETENTION));
    LakeConfig lakeConfig = cfg.lake();
    LakeReader lake = LakeReader.open(lakeConfig);
    List<TableId> tables = TableSelection.select(lake, tenant, table);
    Vacuum vacuum = new Vacuum(new KernelTableReader(lakeConfig), Clock.systemUTC());
    List<Vacuum.Result> results = new ArrayList<>();
    for (TableId t : tables) {
      results.add(vacuum.run(t, retention, dryRun));
    }
    print(results, retention);
    return 0;
  }

  /**
   * The retention {@code --retain} gives, refused below the minimum: a shorter one could delete a
   * file a reader of a version inside the minimum still needs.
   */
  static Duration retention(String retain, Duration minimum) {
    Duration retention;
    try {
      retention = TimeUtils.parseDuration(retain);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "--retain is " + retain + ", not a duration; give one such as 7d, 168h or 30min");
    }
    if (retention.compareTo(minimum) < 0) {
      throw new ConfigException(
          "RETENTION_BELOW_MINIMUM: --retain " + TimeUtils.formatWithHighestUnit(retention)
              + " is below " + LakeWriterOptions.VACUUM_MIN_RETENTION.key() + " = "
              + TimeUtils.formatWithHighestUnit(minimum) + ": VACUUM could delete files that a"
              + " reader of a version inside that minimum still needs. Give --retain "
              + TimeUtils.formatWithHighestUnit(minimum) + " or more (lower the option only in"
              + " tests).");
    }
    return retention;
  }

  private void print(List<Vacuum.Result> results, Duration retention) throws Exception {
    if (json) {
      List<Map<String, Object>> tables = new ArrayList<>();
      for (Vacuum.Result r : results) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("table", r.table().relativePath());
        t.put("horizon", r.horizon().toString());
        t.put("horizon_version", r.horizonVersion());
        t.put("latest_version", r.latestVersion());
        t.put("removed_before_horizon", r.removedBeforeHorizon());
        t.put("deleted", r.deleted());
        t.put("bytes_deleted", r.bytesDeleted());
        t.put("kept_for_retention", r.keptForRetention());
        t.put("already_gone", r.alreadyGone());
        t.put("skipped_not_of_the_table", r.skippedNotOfTheTable());
        tables.add(t);
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("retention", TimeUtils.formatWithHighestUnit(retention));
      doc.put("dry_run", dryRun);
      doc.put("tables", tables);
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
      return;
    }
    long files = 0;
    long bytes = 0;
    for (Vacuum.Result r : results) {
      System.out.printf(
          "%s: horizon %s (version %d of %d): %s %d files (%d bytes), kept %d for the retention,"
              + " %d already gone%n",
          r.table().relativePath(), r.horizon(), r.horizonVersion(), r.latestVersion(),
          dryRun ? "would delete" : "deleted", r.deleted().size(), r.bytesDeleted(),
          r.keptForRetention(), r.alreadyGone());
      for (String path : r.skippedNotOfTheTable()) {
        System.out.printf(
            "  VACUUM_SKIPPED_FOREIGN_PATH %s: a remove action names it, but it is not a data file"
                + " of the table; left alone%n", path);
      }
      files += r.deleted().size();
      bytes += r.bytesDeleted();
    }
    System.out.printf(
        "vacuum%s: %d tables, %d files (%d bytes) %s, retention %s%n", dryRun ? " (dry run)" : "",
        results.size(), files, bytes, dryRun ? "to delete" : "deleted",
        TimeUtils.formatWithHighestUnit(retention));
  }
}
