package org.oml.lakewriter.it.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;

/**
 * The lake's log store ({@link AtomicLocalLogStore}) with an aimed kill, for {@code lakewriter run}
 * in its own JVM (registered with {@code -D lake.hadoop.io.delta.kernel.logStore.file.impl}). When
 * the file named by {@link #MARKER_KEY} exists, the next commit of a table's log ends the JVM with
 * {@code Runtime.halt(137)}, as a SIGKILL would (no shutdown hook, no flush), at a point the marker
 * names:
 *
 * <ul>
 *   <li>{@code before-log}: the batch's Parquet files are written, its log entry is not;
 *   <li>{@code after-log-before-checkpoint}: at a version that is due a log checkpoint (every
 *       10th: the test's tables are at interval 10), the log entry is durable and its checkpoint
 *       and {@code _last_checkpoint} are not written. The entry is a batch's or a compaction's,
 *       whichever took the version: with compaction in the job, its commits can fall on every
 *       10th version of a table (at {@code min-files} 4, four batches then a compaction), and a
 *       kill waiting for a batch there would never come;
 *   <li>{@code compaction-before-log}: a compaction's new files are written, its log entry (the
 *       commit whose {@code commitInfo} names the compaction) is not.
 * </ul>
 *
 * The marker is deleted first and the commit file's path written to {@code <marker>.killed}, so the
 * test knows where the process died and the next start is not killed again.
 */
public class KillingLogStore extends AtomicLocalLogStore {
  public static final String MARKER_KEY = "oml.test.kill-marker";
  private static final java.util.concurrent.atomic.AtomicBoolean DYING =
      new java.util.concurrent.atomic.AtomicBoolean();

  public KillingLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    String marker = conf.get(MARKER_KEY);
    String name = path.getName();
    if (marker == null || !name.matches("\\d{20}\\.json") || !Files.exists(Paths.get(marker))) {
      super.write(path, actions, overwrite, conf);
      return;
    }
    String mode = Files.readString(Paths.get(marker)).trim();
    long version = Long.parseLong(name.substring(0, 20));
    List<String> lines = new ArrayList<>();
    actions.forEachRemaining(lines::add);
    boolean compaction =
        lines.stream().anyMatch(l -> l.contains("commitInfo") && l.contains(" compaction"));
    // In the run's log, so that a kill that never comes shows what the armed store saw.
    System.err.printf(
        "KillingLogStore armed '%s': %s (compaction %s, thread %s)%n",
        mode, path, compaction, Thread.currentThread().getName());
    if (compaction
        ? mode.equals("compaction-before-log")
        : mode.equals("before-log") && version > 0) { // version 0 creates a table: no data yet
      die(marker, path);
    }
    super.write(path, lines.iterator(), overwrite, conf);
    if (mode.equals("after-log-before-checkpoint") && version > 0 && version % 10 == 0) {
      die(marker, path);
    }
  }

  /** The first thread to get here records its commit and halts; any other waits for the halt. */
  private static void die(String marker, Path path) throws IOException {
    if (!DYING.compareAndSet(false, true)) {
      while (true) {
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    Files.writeString(Paths.get(marker + ".killed"), path.toUri().getPath());
    Files.delete(Paths.get(marker));
    System.err.printf("KillingLogStore halting at %s%n", path);
    System.err.flush();
    Runtime.getRuntime().halt(137);
  }
}
