package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.doctor.Doctor;
import org.oml.lakewriter.doctor.DoctorReport;
import org.oml.lakewriter.doctor.DoctorThresholds;
import org.oml.lakewriter.doctor.OutboxCounts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    description =
        "Named health checks of a lake writer, each OK, WARN or FAIL with its finding and a fix:"
            + " wal_level, slot, slot_retained_wal, publication, horizon_ticking,"
            + " horizon_holders, frontier_stale, frontier_cache, delta_checkpoint, small_files,"
            + " dead_letters, outbox_retention. Reads PostgreSQL and the lake, never Flink state,"
            + " so it works while the job is down. Exit 0: no FAIL; 1: a check FAILed (or WARNed,"
            + " with --fail-on-warn); 2: configuration error. See docs/doctor.md.",
    footer = {
      "",
      "Example:",
      "  lakewriter doctor --config lakewriter.properties --json --max-tick-age 2m"
    })
final class DoctorCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--json", description = "One JSON document (snake_case, ISO 8601 times).")
  boolean json;

  @Option(names = "--fail-on-warn", description = "Exit 1 on a WARN too, not only on a FAIL.")
  boolean failOnWarn;

  @Option(
      names = "--max-retained-wal",
      paramLabel = "SIZE",
      defaultValue = "1gb",
      description = "slot_retained_wal WARNs above this (default: ${DEFAULT-VALUE}).")
  String maxRetainedWal;

  @Option(
      names = "--max-tick-age",
      paramLabel = "DURATION",
      defaultValue = "1min",
      description =
          "horizon_ticking FAILs when the last tick is older (default: ${DEFAULT-VALUE}).")
  String maxTickAge;

  @Option(
      names = "--max-horizon-hold",
      paramLabel = "DURATION",
      defaultValue = "10min",
      description =
          "horizon_holders WARNs on a holder, FAILs once it is older (default: ${DEFAULT-VALUE}).")
  String maxHorizonHold;

  @Option(
      names = "--max-frontier-age",
      paramLabel = "DURATION",
      defaultValue = "5min",
      description =
          "frontier_stale FAILs when rows wait and the frontier is older (default:"
              + " ${DEFAULT-VALUE}).")
  String maxFrontierAge;

  @Option(
      names = "--max-commits-without-checkpoint",
      paramLabel = "N",
      description =
          "delta_checkpoint WARNs on a table with more commits since its checkpoint (default: "
              + DoctorThresholds.CHECKPOINT_INTERVALS_BEHIND
              + " times each table's own delta.checkpointInterval).")
  Long maxCommitsWithoutCheckpoint;

  @Option(
      names = "--max-small-files",
      paramLabel = "N",
      defaultValue = "" + DoctorThresholds.MAX_SMALL_FILES,
      description =
          "small_files WARNs on a table with more files than this ... (default: ${DEFAULT-VALUE})")
  long maxSmallFiles;

  @Option(
      names = "--small-file-size",
      paramLabel = "SIZE",
      defaultValue = "8mb",
      description = "... whose average size is below this (default: ${DEFAULT-VALUE}).")
  String smallFileSize;

  @Option(
      names = "--keyed-small-file-size",
      paramLabel = "SIZE",
      defaultValue = "32kb",
      description =
          "... or, for silver/memories, gold/lineage and gold/workarea_memories, below this when"
              + " lower: half of maintenance.compact.keyed-target-file-size, the files the job"
              + " keeps them in (default: ${DEFAULT-VALUE}).")
  String keyedSmallFileSize;

  @Option(
      names = "--count-limit",
      paramLabel = "N",
      defaultValue = "" + OutboxCounts.DEFAULT_LIMIT,
      description =
          "Outbox counts stop here and say 'at least' (default: ${DEFAULT-VALUE}); they walk the"
              + " seq index, never the whole outbox.")
  long countLimit;

  @Override
  public Integer call() throws Exception {
    DoctorThresholds limits = thresholds();
    LakeWriterConfig cfg = config.load();
    DoctorReport report;
    try (Connection c = Preflight.connect(cfg)) {
      report = new Doctor(cfg, limits, countLimit, quarantinedTenants(cfg)).run(c);
    }
    if (json) {
      System.out.println(
          new ObjectMapper()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(report.toMap(failOnWarn)));
    } else {
      report.print(System.out, failOnWarn);
    }
    return report.exitCode(failOnWarn);
  }

  /**
   * The tenants in quarantine, from the lake's quarantine store; none if it cannot be read (the
   * frontier_cache check then reports a quarantined tenant's lag as a FAIL, never hides it).
   */
  private static java.util.Set<String> quarantinedTenants(LakeWriterConfig cfg) {
    java.util.Set<String> tenants = new java.util.TreeSet<>();
    try {
      for (java.util.Map<String, Object> q : QuarantineCommand.report(cfg)) {
        if (!"released".equals(q.get("state"))) {
          tenants.add(String.valueOf(q.get("tenant")));
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // An unreadable store means no tenant is excused: the check errs towards a FAIL.
    }
    return tenants;
  }

  DoctorThresholds thresholds() {
    if ((maxCommitsWithoutCheckpoint != null && maxCommitsWithoutCheckpoint < 0)
        || maxSmallFiles < 0
        || countLimit < 1) {
      throw new ConfigException(
          "--max-commits-without-checkpoint and --max-small-files must be >= 0 and --count-limit"
              + " >= 1");
    }
    return new DoctorThresholds(
        size("--max-retained-wal", maxRetainedWal),
        duration("--max-tick-age", maxTickAge),
        duration("--max-horizon-hold", maxHorizonHold),
        duration("--max-frontier-age", maxFrontierAge),
        maxCommitsWithoutCheckpoint == null
            ? DoctorThresholds.MAX_COMMITS_WITHOUT_CHECKPOINT
            : maxCommitsWithoutCheckpoint,
        maxSmallFiles,
        size("--small-file-size", smallFileSize),
        size("--keyed-small-file-size", keyedSmallFileSize));
  }

  private static Duration duration(String option, String value) {
    try {
      return TimeUtils.parseDuration(value);
    } catch (RuntimeException e) {
      throw new ConfigException(
          option + " '" + value + "' is not a duration (e.g. 30s, 5min, 1h): " + e.getMessage());
    }
  }

  private static long size(String option, String value) {
    try {
      return MemorySize.parse(value).getBytes();
    } catch (RuntimeException e) {
      throw new ConfigException(
          option + " '" + value + "' is not a size (e.g. 512mb, 1gb): " + e.getMessage());
    }
  }
}
