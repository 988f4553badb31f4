package org.oml.lakewriter.delta.log;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.kernel.KernelTableReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VACUUM of one table: deletes the data files that the table removed longer ago than the
 * retention, and nothing that a version inside the retention still reads.
 *
 * <p>With {@code horizon = now - retention} and {@code h} the last version committed at or before
 * the horizon (the version a reader who time-travels to the horizon sees), a file is deleted only
 * if
 *
 * <ol>
 *   <li>a {@code remove} action of the log names it, with a {@code deletionTimestamp} (or, without
 *       one, a commit time) before the horizon; and
 *   <li>it is live in no version from {@code h} on: not live in {@code h} (read with Kernel) and
 *       added by no commit after {@code h}. Every version inside the retention, and the latest,
 *       only reads files of that set.
 * </ol>
 *
 * <p>Why it is safe alongside a running writer (it needs no slot): it deletes only files the
 * <em>committed</em> log names as removed before the horizon. A writer's staged files (written,
 * not yet committed: a pending batch, a copy-on-write's new files) are named by no remove action,
 * so they are never candidates, whatever their age. A commit the writer makes during the run only
 * adds new files (unique names, never a removed path again) or removes files that were live, which
 * are in the kept set or are not yet removed before the horizon. The writer's copy-on-write reads
 * only files live in the latest snapshot. The files it deletes are therefore read by no reader of
 * a version inside the retention, and by no writer whose snapshot is younger than the retention:
 * that is what the configured minimum retention guards.
 *
 * <p>The log itself is left alone: its expired commit files and checkpoints are Kernel's to clean
 * ({@code delta.logRetentionDuration}, 30 days, when a checkpoint is written), the Delta rule.
 * VACUUM must therefore run more often than that retention: a remove action cleaned from the log
 * before a VACUUM saw it leaves its file on disk (docs/erasure.md, known limits).
 */
public final class Vacuum {
  private static final Logger LOG = LoggerFactory.getLogger(Vacuum.class);

  /**
   * What one run did: the horizon and version {@code h}, how many remove actions were before the
   * horizon, the files deleted (with their bytes), the files kept because a version inside the
   * retention reads them, and the removed files already gone.
   */
  public record Result(
      TableId table,
      Instant horizon,
      long horizonVersion,
      long latestVersion,
      int removedBeforeHorizon,
      List<String> deleted,
      long bytesDeleted,
      int keptForRetention,
      int alreadyGone,
      List<String> skippedNotOfTheTable,
      boolean dryRun) {
    public Result {
      deleted = List.copyOf(deleted);
      skippedNotOfTheTable = List.copyOf(skippedNotOfTheTable);
    }
  }

  private final KernelTableReader reader;
  private final Clock clock;

  public Vacuum(KernelTableReader reader, Clock clock) {
    this.reader = reader;
    this.clock = clock;
  }

  /** Vacuums one table; {@code dryRun} lists what would be deleted and deletes nothing. */
  public Result run(TableId table, Duration retention, boolean dryRun) throws IOException {
    if (retention.isNegative()) {
      throw new IllegalArgumentException("retention is negative: " + retention);
    }
    Instant horizon = clock.instant().minus(retention);
    TableLog log = TableLog.open(reader.hadoopConf(), reader.tableRoot(table));
    FileSystem fs = log.fileSystem();
    List<TableLog.Commit> commits = log.commits();
    long latest = commits.isEmpty() ? -1 : commits.get(commits.size() - 1).version();
    long h = -1;
    for (TableLog.Commit c : commits) {
      if (!c.time().isAfter(horizon)) {
        h = c.version();
      }
    }
    // The removed files before the horizon, by qualified path (one remove per path in practice).
    TreeMap<String, Path> candidates = new TreeMap<>();
    for (TableLog.Commit c : commits) {
      for (TableLog.FileAction remove : c.removes()) {
        long removedAt =
            remove.deletionTimestamp() >= 0 ? remove.deletionTimestamp() : c.time().toEpochMilli();
        if (removedAt < horizon.toEpochMilli()) {
          Path p = fs.makeQualified(log.resolve(remove.path()));
          candidates.put(p.toString(), p);
        }
      }
    }
    int removedBeforeHorizon = candidates.size();
    Set<String> kept = needed(table, log, fs, commits, h);
    int keptForRetention = 0;
    List<String> deleted = new ArrayList<>();
    long bytes = 0;
    int gone = 0;
    List<String> skipped = new ArrayList<>();
    String rootPrefix = fs.makeQualified(log.tableRoot()).toString() + "/";
    for (Path file : candidates.values()) {
      String key = file.toString();
      if (kept.contains(key)) {
        keptForRetention++;
        continue;
      }
      if (!key.startsWith(rootPrefix) || key.startsWith(rootPrefix + "_delta_log/")) {
        // Never outside the table, never the log: a remove action naming such a path is not ours.
        LOG.warn("{}: VACUUM skips {}, named by a remove action but not a data file of the table",
            table, key);
        skipped.add(key);
        continue;
      }
      FileStatus status;
      try {
        status = fs.getFileStatus(file);
      } catch (FileNotFoundException e) {
        gone++;
        continue;
      }
      if (!dryRun && !fs.delete(file, false) && fs.exists(file)) {
        throw new IOException(table + ": VACUUM could not delete " + key);
      }
      deleted.add(rootPrefix.length() <= key.length() ? key.substring(rootPrefix.length()) : key);
      bytes += status.getLen();
    }
    LOG.info(
        "{}: VACUUM{} horizon {} (version {} of {}): {} files removed before it, {} deleted ({}"
            + " bytes), {} kept for a version inside the retention, {} already gone",
        table, dryRun ? " (dry run)" : "", horizon, h, latest, removedBeforeHorizon,
        deleted.size(), bytes, keptForRetention, gone);
    return new Result(table, horizon, h, latest, removedBeforeHorizon, deleted, bytes,
        keptForRetention, gone, skipped, dryRun);
  }

  /** The files some version from {@code h} on reads: live in {@code h}, or added after it. */
  private Set<String> needed(
      TableId table, TableLog log, FileSystem fs, List<TableLog.Commit> commits, long h)
      throws IOException {
    Set<String> needed = new HashSet<>();
    if (h >= 0) {
      List<String> live;
      try {
        live = reader.livePathsAt(table, h);
      } catch (RuntimeException e) {
        // Kernel cannot rebuild version h (its log was cleaned up past it): delete nothing.
        throw new IOException(
            "VACUUM_HORIZON_UNREADABLE: " + table + ": version " + h + ", the last one before"
                + " the retention's horizon, cannot be read (" + e + "); nothing was deleted."
                + " Give a shorter --retain (above the minimum) or run VACUUM more often than"
                + " delta.logRetentionDuration",
            e);
      }
      for (String path : live) {
        needed.add(fs.makeQualified(new Path(path)).toString());
      }
    }
    for (TableLog.Commit c : commits) {
      if (c.version() > h) {
        for (TableLog.FileAction add : c.adds()) {
          needed.add(fs.makeQualified(log.resolve(add.path())).toString());
        }
      }
    }
    return needed;
  }
}
