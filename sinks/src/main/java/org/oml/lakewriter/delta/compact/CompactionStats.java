package org.oml.lakewriter.delta.compact;

import java.util.ArrayDeque;
import java.util.List;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.oml.lakewriter.metrics.LakeWriterMetrics;

/**
 * What the compactor has done since the committer started: counters, registered as metrics by
 * {@link #register} (see {@code docs/metrics.md}), and the last {@link #RECENT} results (tests,
 * logs).
 *
 * <p>Bounded: a job runs for months and compacts after every checkpoint, so nothing here grows with
 * the number of compactions.
 */
public final class CompactionStats {
  /** Results kept for {@link #recent}. */
  public static final int RECENT = 256;

  private final Counter rounds = new SimpleCounter();
  private final Counter busyMillis = new SimpleCounter();
  private final Counter commits = new SimpleCounter();
  private final Counter filesRemoved = new SimpleCounter();
  private final Counter rowsRewritten = new SimpleCounter();
  private final Counter abandoned = new SimpleCounter();
  private final Counter failures = new SimpleCounter();
  private final ArrayDeque<TableCompactor.Result> recent = new ArrayDeque<>();

  /** Registers the counters in the lake writer's group under {@code operator}. */
  public void register(MetricGroup operator) {
    MetricGroup group = LakeWriterMetrics.group(operator);
    group.counter(LakeWriterMetrics.COMPACTION_ROUNDS, rounds);
    group.counter(LakeWriterMetrics.COMPACTION_BUSY_MS, busyMillis);
    group.counter(LakeWriterMetrics.COMPACTION_COMMITS, commits);
    group.counter(LakeWriterMetrics.COMPACTED_FILES, filesRemoved);
    group.counter(LakeWriterMetrics.COMPACTED_ROWS, rowsRewritten);
    group.counter(LakeWriterMetrics.COMPACTIONS_ABANDONED, abandoned);
    group.counter(LakeWriterMetrics.COMPACTION_FAILURES, failures);
  }

  synchronized void round(long tookMillis) {
    rounds.inc();
    busyMillis.inc(tookMillis);
  }

  synchronized void result(TableCompactor.Result result) {
    if (result.compacted()) {
      commits.inc();
      filesRemoved.inc(result.filesRemoved());
      rowsRewritten.inc(result.rows());
    } else if (result.abandoned()) {
      abandoned.inc();
    }
    if (recent.size() == RECENT) {
      recent.removeFirst();
    }
    recent.addLast(result);
  }

  synchronized void failed() {
    failures.inc();
  }

  public synchronized long rounds() {
    return rounds.getCount();
  }

  /** Compaction commits made. */
  public synchronized long commits() {
    return commits.getCount();
  }

  public synchronized long filesRemoved() {
    return filesRemoved.getCount();
  }

  public synchronized long rowsRewritten() {
    return rowsRewritten.getCount();
  }

  /** Compactions that read and wrote their files, then committed nothing (a racer won). */
  public synchronized long abandoned() {
    return abandoned.getCount();
  }

  public synchronized long failures() {
    return failures.getCount();
  }

  /** The last {@link #RECENT} results, oldest first. */
  public synchronized List<TableCompactor.Result> recent() {
    return List.copyOf(recent);
  }
}
