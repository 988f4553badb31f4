package org.oml.lakewriter.delta.committer;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.metrics.LakeWriterMetrics;

/**
 * The Delta committer's metrics (group {@code lakewriter}, see {@code docs/metrics.md}): the
 * committed frontier, the time since the last successful commit (overall and per table), commit
 * latency (histogram, last and max) and the rows and commits made.
 *
 * <p>A table commit "succeeds" when the table holds the batch afterwards: {@code COMMITTED} or
 * {@code ALREADY_APPLIED}. Before the first one, the time since the last commit counts from the
 * committer's start, so a writer stuck from its first minute still raises the alert.
 *
 * <p>Series are bounded: the per-table gauge is registered for the first {@link
 * #DEFAULT_MAX_TABLE_SERIES} tables this committer commits to (three per tenant); the tables past
 * the cap are counted in {@code tablesOverSeriesCap} and covered by the overall gauge only.
 */
public final class CommitMetrics {
  /** Per-table series one committer registers at most: about 85 tenants' three tables. */
  public static final int DEFAULT_MAX_TABLE_SERIES = 256;

  /** Registers nothing (unit tests, benchmarks). */
  public static CommitMetrics none() {
    return new CommitMetrics(null, Clock.systemUTC(), 0);
  }

  private final MetricGroup group;
  private final Clock clock;
  private final int maxTableSeries;
  private final Map<TableId, Long> lastTableCommit = new ConcurrentHashMap<>();
  private final Counter commits;
  private final Counter rows;
  private final Histogram latency;
  private volatile long lastCommitMillis;
  private volatile long committedFrontier = -1;
  private volatile long lastLatency;
  private volatile long maxLatency;
  private volatile int overCap;

  /**
   * @param operator the committer's operator group; {@code null} registers nothing
   * @param maxTableSeries per-table gauges registered at most
   */
  public CommitMetrics(MetricGroup operator, Clock clock, int maxTableSeries) {
    this.clock = clock;
    this.maxTableSeries = maxTableSeries;
    this.lastCommitMillis = clock.millis();
    if (operator == null) {
      group = null;
      commits = null;
      rows = null;
      latency = null;
      return;
    }
    group = LakeWriterMetrics.group(operator);
    commits = group.counter(LakeWriterMetrics.TABLE_COMMITS);
    rows = group.counter(LakeWriterMetrics.COMMITTED_ROWS);
    latency = LakeWriterMetrics.histogram(group, LakeWriterMetrics.COMMIT_LATENCY);
    group.gauge(LakeWriterMetrics.COMMITTED_FRONTIER, () -> committedFrontier);
    group.gauge(
        LakeWriterMetrics.SECONDS_SINCE_LAST_COMMIT,
        () -> Math.max(0, clock.millis() - lastCommitMillis) / 1000);
    group.gauge(LakeWriterMetrics.LAST_COMMIT_LATENCY, () -> lastLatency);
    group.gauge(LakeWriterMetrics.MAX_COMMIT_LATENCY, () -> maxLatency);
    group.gauge(LakeWriterMetrics.TABLES_OVER_SERIES_CAP, () -> overCap);
  }

  /** One table now holds the batch; {@code tookMillis} includes the retries it needed. */
  synchronized void tableCommitted(
      TableId table, long rowCount, long tookMillis, boolean newCommit) {
    long now = clock.millis();
    lastCommitMillis = now;
    lastLatency = tookMillis;
    maxLatency = Math.max(maxLatency, tookMillis);
    if (group == null) {
      return;
    }
    latency.update(tookMillis);
    commits.inc();
    if (newCommit) {
      rows.inc(rowCount);
    }
    if (lastTableCommit.put(table, now) == null) {
      register(table);
    }
  }

  private void register(TableId table) {
    if (lastTableCommit.size() > maxTableSeries) {
      overCap++;
      return;
    }
    group
        .addGroup(LakeWriterMetrics.TENANT, table.prefix())
        // bronze_journal_events, silver_memories, dead_letter: Prometheus' reporter would turn
        // the path's slash into an underscore anyway; say it the way the scrape shows it.
        .addGroup(LakeWriterMetrics.TABLE, tableLabel(table))
        .gauge(
            LakeWriterMetrics.SECONDS_SINCE_LAST_TABLE_COMMIT,
            () -> Math.max(0, clock.millis() - lastTableCommit.get(table)) / 1000);
  }

  /** The {@code table} label: the table's path below its tenant, with {@code _} for {@code /}. */
  public static String tableLabel(TableId table) {
    return table.kind().path().replace('/', '_');
  }

  /** Every table the batches up to {@code seq} touched has committed them. */
  void frontierReached(long seq) {
    committedFrontier = Math.max(committedFrontier, seq);
  }

  /** Milliseconds since the last successful table commit (or the start). */
  public long millisSinceLastCommit() {
    return Math.max(0, clock.millis() - lastCommitMillis);
  }

  public long lastCommitLatencyMillis() {
    return lastLatency;
  }

  public long committedFrontier() {
    return committedFrontier;
  }
}
