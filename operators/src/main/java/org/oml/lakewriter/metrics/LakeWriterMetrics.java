package org.oml.lakewriter.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The names of the lake writer's own metrics, in one place: the operators register them, {@code
 * docs/metrics.md} documents each with its unit, and the alert rules' test checks that every name
 * a rule uses is one of these.
 *
 * <p>Every metric lives in the group {@value #GROUP} under its operator's group, so Flink's
 * Prometheus reporter exposes it as {@code flink_taskmanager_job_task_operator_lakewriter_<name>}
 * ({@link #prometheusName}), with the job, task and operator as labels. A per-class or per-table
 * series is a key-value group ({@link #ERROR_CLASS}, {@link #FINDING}, {@link #TENANT}, {@link
 * #TABLE}): in Prometheus a label, never part of the name, so one rule matches every class.
 * Flink's reporter exposes counters as gauges: their names carry no {@code _total}.
 */
public final class LakeWriterMetrics {
  /** The group of every lake writer metric, below the operator's own group. */
  public static final String GROUP = "lakewriter";

  /** How Flink's Prometheus reporter prefixes an operator metric in {@link #GROUP}. */
  public static final String PROMETHEUS_PREFIX =
      "flink_taskmanager_job_task_operator_" + GROUP + "_";

  // ---- label keys (key-value groups) ----
  public static final String ERROR_CLASS = "errorClass";
  public static final String FINDING = "finding";
  public static final String TENANT = "tenant";
  public static final String TABLE = "table";

  // ---- batch cut ----
  /** Gauge, seq: the end of the last batch the cut emitted (the cut's bound, not yet committed). */
  public static final String CUT_END = "frontier";
  /** Gauge, seq: the stable prefix the cut has seen (streamed horizon updates). */
  public static final String HORIZON = "horizon";
  /** Gauge, rows: outbox rows the cut holds (received, not yet cut). */
  public static final String BUFFERED_ROWS = "bufferedRows";
  /** Counter, batches cut. */
  public static final String BATCHES_CUT = "batchesCut";
  /** Gauge, rows: rows of the last batch cut. */
  public static final String LAST_BATCH_ROWS = "lastBatchRows";
  /** Histogram, rows per batch (the last {@link #HISTOGRAM_WINDOW} batches). */
  public static final String BATCH_ROWS = "batchRows";
  /** Gauge, rows: rows held for a retry (a transient failure within its budget). */
  public static final String RETRY_BACKLOG = "retryBacklog";
  /** Counter: failed attempts of rows that were then held for a retry or dead-lettered. */
  public static final String RETRY_ATTEMPTS = "retryAttempts";
  /** Counter with label {@link #FINDING}: completeness-check findings, e.g. CDC_LOST_ROWS. */
  public static final String FINDINGS = "findings";
  /** The finding of a batch range for which CDC delivered fewer rows than the outbox holds. */
  public static final String CDC_LOST_ROWS = "CDC_LOST_ROWS";
  /**
   * Counter, rows: rows a turn read back from the state backend because the cut's row cache did
   * not hold them (after a restore, or beyond {@code cut.row-cache}).
   */
  public static final String ROWS_READ_FROM_STATE = "rowsReadFromState";
  /**
   * Counter, rows: rows the cut wrote to its buffer in state. With write-behind, only the rows
   * still buffered at a checkpoint, and those beyond {@code cut.row-cache}.
   */
  public static final String ROWS_WRITTEN_TO_STATE = "rowsWrittenToState";
  /**
   * Counter: times the cut raised its horizon before the first horizon streamed after the CDC
   * snapshot, from the horizon ticker's stable seq and the outbox's keys (docs/cut-and-tick.md,
   * "Cutting during the snapshot").
   */
  public static final String SNAPSHOT_PHASE_HORIZONS = "snapshotPhaseHorizons";
  /** Gauge, bytes: the rows the cut also holds on the heap ({@code cut.row-cache}). */
  public static final String ROW_CACHE_BYTES = "rowCacheBytes";
  public static final String ROWS_REFETCHED = "rowsRefetchedFromOutbox";
  public static final String REFETCH_CAPPED = "refetchCappedTurns";
  public static final String MAX_ROWS_REFETCHED_PER_TURN = "maxRowsRefetchedPerTurn";
  public static final String ROWS_BEHIND_FRONTIER = "rowsBehindFrontier";
  public static final String BREAKER_STATE = "breakerState";
  public static final String DEPENDENCY_HOLDS = "dependencyHolds";
  public static final String TICK_FAILURES = "tickFailures";

  // ---- lag probe (a side connection of the cut, see LagProbe) ----
  /** Gauge, rows: committed outbox rows above the committed frontier (capped, see LagProbe). */
  public static final String FRONTIER_LAG_ROWS = "frontierLagRows";
  /** Gauge, seconds: age (event_time) of the oldest committed outbox row above the frontier. */
  public static final String FRONTIER_LAG_SECONDS = "frontierLagSeconds";
  /** Gauge, seconds: how long the horizon has stood behind the outbox's head (or not ticked). */
  public static final String HORIZON_AGE_SECONDS = "horizonAgeSeconds";
  /** Gauge, bytes: WAL the replication slot retains; -1 when the slot does not exist. */
  public static final String SLOT_RETAINED_BYTES = "slotRetainedBytes";
  /** Gauge: probes in a row that failed (0 when the last one answered). */
  public static final String PROBE_FAILURES = "lagProbeFailures";

  // ---- Delta committer ----
  /** Gauge, seq: the committed frontier (end of the last batch committed to every table). */
  public static final String COMMITTED_FRONTIER = "committedFrontier";
  /** Gauge, seconds since the last successful table commit (or since the committer started). */
  public static final String SECONDS_SINCE_LAST_COMMIT = "secondsSinceLastCommit";
  /** Gauge per {@link #TENANT} and {@link #TABLE}, seconds since that table's last commit. */
  public static final String SECONDS_SINCE_LAST_TABLE_COMMIT = "secondsSinceLastTableCommit";
  /** Counter: table commits that succeeded (new or already applied). */
  public static final String TABLE_COMMITS = "tableCommits";
  /** Counter, rows committed to tables (bronze, silver and dead-letter rows alike). */
  public static final String COMMITTED_ROWS = "committedRows";
  /** Histogram, milliseconds per table commit, retries included. */
  public static final String COMMIT_LATENCY = "commitLatencyMs";
  /** Gauge, milliseconds of the last table commit. */
  public static final String LAST_COMMIT_LATENCY = "lastCommitLatencyMs";
  /** Gauge, milliseconds of the slowest table commit since the committer started. */
  public static final String MAX_COMMIT_LATENCY = "maxCommitLatencyMs";
  /** Gauge: tables whose per-table series was not registered (over the cap). */
  public static final String TABLES_OVER_SERIES_CAP = "tablesOverSeriesCap";

  // ---- compaction (the committer's operator; it runs on the thread delta-compactor) ----
  /** Counter: compaction rounds run. */
  public static final String COMPACTION_ROUNDS = "compactionRounds";
  /** Counter, ms: time spent in compaction rounds (its rate is the compactor's busy share). */
  public static final String COMPACTION_BUSY_MS = "compactionBusyMs";
  /** Counter: compaction commits made. */
  public static final String COMPACTION_COMMITS = "compactionCommits";
  /** Counter, files: small files replaced by compaction commits. */
  public static final String COMPACTED_FILES = "compactedFiles";
  /** Counter, rows: rows rewritten by compaction commits. */
  public static final String COMPACTED_ROWS = "compactedRows";
  /** Counter: compactions that read and wrote their files, then committed nothing (a racer won). */
  public static final String COMPACTIONS_ABANDONED = "compactionsAbandoned";
  /** Counter: compactions that failed (finding COMPACTION_FAILED). */
  public static final String COMPACTION_FAILURES = "compactionFailures";

  // ---- Delta writer ----
  public static final String RETRACTS_WITHOUT_ROW = "retractsWithoutRow";
  public static final String QUARANTINED_TENANTS = "quarantinedTenants";

  // ---- dead-letter journal ----
  /** Counter with label {@link #ERROR_CLASS}: dead letters newly journalled by this run. */
  public static final String DEAD_LETTERS = "deadLetters";
  public static final String DEAD_LETTERS_ALREADY_JOURNALLED = "deadLettersAlreadyJournalled";
  public static final String JOURNAL_RECORDS_BEHIND = "journalRecordsBehind";
  public static final String JOURNAL_BEHIND = "journalBehind";

  /** Samples a histogram keeps (Prometheus shows them as a summary with quantiles). */
  public static final int HISTOGRAM_WINDOW = 500;

  private LakeWriterMetrics() {}

  /** The lake writer's group under an operator's metric group. */
  public static MetricGroup group(MetricGroup operator) {
    return operator.addGroup(GROUP);
  }

  /** A histogram over the last {@link #HISTOGRAM_WINDOW} values. */
  public static Histogram histogram(MetricGroup group, String name) {
    return group.histogram(name, new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
  }

  /** The name Flink's Prometheus reporter gives the metric {@code name} of {@link #GROUP}. */
  public static String prometheusName(String name) {
    return PROMETHEUS_PREFIX + name;
  }

  /**
   * A labelled series' name: the key of a key-value group stays in the name (Flink puts it in the
   * logical scope), its value becomes the label.
   */
  public static String prometheusName(String labelKey, String name) {
    return PROMETHEUS_PREFIX + labelKey + "_" + name;
  }

  /**
   * Every Prometheus name the job exports for these metrics, with the metric it stands for (the
   * alert rules' test checks its expressions against the keys).
   */
  public static Map<String, String> exported() {
    Map<String, String> names = new LinkedHashMap<>();
    for (String n :
        new String[] {
          CUT_END, HORIZON, BUFFERED_ROWS, BATCHES_CUT, LAST_BATCH_ROWS, RETRY_BACKLOG,
          RETRY_ATTEMPTS, ROWS_REFETCHED, REFETCH_CAPPED, MAX_ROWS_REFETCHED_PER_TURN,
          ROWS_BEHIND_FRONTIER, SNAPSHOT_PHASE_HORIZONS, BREAKER_STATE, DEPENDENCY_HOLDS,
          TICK_FAILURES, FRONTIER_LAG_ROWS,
          FRONTIER_LAG_SECONDS, HORIZON_AGE_SECONDS, SLOT_RETAINED_BYTES, PROBE_FAILURES,
          COMMITTED_FRONTIER, SECONDS_SINCE_LAST_COMMIT, TABLE_COMMITS, COMMITTED_ROWS,
          LAST_COMMIT_LATENCY, MAX_COMMIT_LATENCY, TABLES_OVER_SERIES_CAP, RETRACTS_WITHOUT_ROW,
          QUARANTINED_TENANTS, DEAD_LETTERS_ALREADY_JOURNALLED, JOURNAL_RECORDS_BEHIND,
          JOURNAL_BEHIND, COMPACTION_ROUNDS, COMPACTION_BUSY_MS, COMPACTION_COMMITS,
          COMPACTED_FILES, COMPACTED_ROWS, COMPACTIONS_ABANDONED, COMPACTION_FAILURES
        }) {
      names.put(prometheusName(n), n);
    }
    // Histograms: Flink's reporter exposes a summary, <name>{quantile="..."} and <name>_count.
    for (String n : new String[] {BATCH_ROWS, COMMIT_LATENCY}) {
      names.put(prometheusName(n), n);
      names.put(prometheusName(n) + "_count", n);
    }
    names.put(prometheusName(ERROR_CLASS, DEAD_LETTERS), DEAD_LETTERS);
    names.put(prometheusName(FINDING, FINDINGS), FINDINGS);
    names.put(
        PROMETHEUS_PREFIX + TENANT + "_" + TABLE + "_" + SECONDS_SINCE_LAST_TABLE_COMMIT,
        SECONDS_SINCE_LAST_TABLE_COMMIT);
    return names;
  }
}
