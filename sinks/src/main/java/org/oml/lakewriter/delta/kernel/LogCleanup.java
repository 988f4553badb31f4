package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a table's expired log files, as Delta's log cleanup does: every file of the log (commit,
 * {@code .crc} checksum, checkpoint, log compaction) whose version is below a checkpoint that is
 * itself past {@code delta.logRetentionDuration} (30 days by default), when every file before it
 * is past it too. The checkpoint, its commit file and everything after it stay, so every version
 * within the retention can still be loaded.
 *
 * <p>Ours because Kernel 4.4 cleans up only after a checkpoint of a snapshot loaded as the latest,
 * and the checkpoint its post-commit hook writes is loaded "as of" its version: without this, a
 * table written for months kept every commit file, checksum and log compaction file it ever had
 * (two commits a second are over 170,000 commit files a day per table). Kernel's own cleanup also
 * leaves checksums and log compaction files behind.
 *
 * <p>The client runs it after each log checkpoint on a thread of its own, off the commit path. A
 * run deletes at most {@code maxDeletes} files, the oldest first, so a table with a backlog (written
 * by an older build) is trimmed over several checkpoints rather than in one run of many minutes;
 * the next run goes on where the last stopped. Honours {@code delta.enableExpiredLogCleanup=false},
 * and skips a table with the {@code checkpointProtection} writer feature, as Kernel does. Only
 * Kernel's single-file checkpoints ({@code <version>.checkpoint.parquet}) count as checkpoints
 * here: a table whose checkpoints another engine writes in another form is left to that engine.
 */
final class LogCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(LogCleanup.class);

  /** Files deleted at most per run: at a checkpoint every 100 commits, far above what one adds. */
  static final int MAX_DELETES_PER_RUN = 1000;

  private static final Pattern VERSIONED = Pattern.compile("(\\d{20})\\..+");
  private static final Pattern CHECKPOINT = Pattern.compile("\\d{20}\\.checkpoint\\.parquet");

  private LogCleanup() {}

  /**
   * Deletes up to {@code maxDeletes} expired log files of the table at {@code tablePath}, whose
   * properties are {@code snapshot}'s, as of {@code nowMillis}; returns how many it deleted.
   */
  static int run(
      Engine engine,
      String tablePath,
      TableId table,
      Snapshot snapshot,
      long nowMillis,
      int maxDeletes)
      throws IOException {
    Map<String, String> properties = snapshot.getTableProperties();
    if (!TableConfig.EXPIRED_LOG_CLEANUP_ENABLED.fromMetadata(properties)
        || (snapshot instanceof SnapshotImpl impl
            && impl.getProtocol().getWriterFeatures().contains("checkpointProtection"))) {
      return 0;
    }
    long cutoff = nowMillis - TableConfig.LOG_RETENTION.fromMetadata(properties);
    List<String> deletable = new ArrayList<>();
    List<LogFile> pending = new ArrayList<>();
    try (CloseableIterator<FileStatus> files =
        engine.getFileSystemClient().listFrom(tablePath + "/_delta_log/" + "0".repeat(20) + ".")) {
      while (files.hasNext() && deletable.size() < maxDeletes) {
        FileStatus file = files.next();
        Matcher versioned = VERSIONED.matcher(name(file.getPath()));
        if (!versioned.matches()) {
          continue;
        }
        if (file.getModificationTime() > cutoff) {
          break;
        }
        long version = Long.parseLong(versioned.group(1));
        if (CHECKPOINT.matcher(name(file.getPath())).matches()) {
          // Everything below this expired checkpoint can go; what is at its version stays.
          for (Iterator<LogFile> it = pending.iterator(); it.hasNext(); ) {
            LogFile below = it.next();
            if (below.version() < version) {
              deletable.add(below.path());
              it.remove();
            }
          }
        }
        pending.add(new LogFile(file.getPath(), version));
      }
    }
    List<String> deleting = deletable.subList(0, Math.min(maxDeletes, deletable.size()));
    int deleted = 0;
    for (String path : deleting) {
      if (Thread.currentThread().isInterrupted()) { // the client is closing: the next run goes on
        break;
      }
      engine.getFileSystemClient().delete(path);
      deleted++;
    }
    if (deleted > 0) {
      LOG.info(
          "{}: deleted {} log files past delta.logRetentionDuration, from {} to {}{}",
          table,
          deleted,
          name(deleting.get(0)),
          name(deleting.get(deleted - 1)),
          deleted >= maxDeletes || deleted < deleting.size()
              ? "; more are left for the next checkpoint"
              : "");
    }
    return deleted;
  }

  private record LogFile(String path, long version) {}

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
