package org.oml.lakewriter.delta.writer;

import java.util.Objects;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.merge.KeyCache;
import org.oml.lakewriter.delta.quarantine.WriterQuarantine;

/**
 * How a {@link DeltaSinkWriter} is set up beyond its client and clock. The job's sink sets each
 * one from its options. Tests and the benchmarks' writer-only sink start from {@link #defaults()}
 * and change what they need, one {@code with} method per setting.
 *
 * @param retractsWithoutRow counts retractions that found no silver row (finding {@code
 *     RETRACT_WITHOUT_ROW})
 * @param quarantine the tenants' quarantine; null fails over on a table that cannot be used
 * @param unitLimits when a commit unit is written without waiting for the barrier
 * @param compactionGuard where the files this writer's planned rewrites replace are recorded, so
 *     that the job's compaction leaves them alone; null when the job does not compact
 * @param gold whether the tenants' gold tables are written ({@code gold.enabled}); off, they are
 *     not touched at all
 * @param writeParallelism tenants of a unit written at the same time ({@code
 *     sink.write-parallelism}); 1 writes them one after the other on the task's thread
 * @param keyCache where the keyed tables' key indexes are saved between runs ({@code
 *     sink.key-cache.dir}), so that a restart need not read every file's keys again
 */
public record WriterSettings(
    Counter retractsWithoutRow,
    WriterQuarantine quarantine,
    CommitUnitLimits unitLimits,
    CompactionGuard compactionGuard,
    boolean gold,
    int writeParallelism,
    KeyCache keyCache) {

  public WriterSettings {
    Objects.requireNonNull(retractsWithoutRow, "retractsWithoutRow");
    Objects.requireNonNull(unitLimits, "unitLimits");
    Objects.requireNonNull(keyCache, "keyCache");
  }

  /**
   * A counter of its own, no quarantine, the default unit limits, no compaction, gold on, one
   * tenant at a time, no key cache.
   */
  public static WriterSettings defaults() {
    return new WriterSettings(
        new SimpleCounter(), null, CommitUnitLimits.DEFAULT, null, true, 1, KeyCache.NONE);
  }

  public WriterSettings withRetractsWithoutRow(Counter counter) {
    return new WriterSettings(
        counter, quarantine, unitLimits, compactionGuard, gold, writeParallelism, keyCache);
  }

  public WriterSettings withQuarantine(WriterQuarantine q) {
    return new WriterSettings(
        retractsWithoutRow, q, unitLimits, compactionGuard, gold, writeParallelism, keyCache);
  }

  public WriterSettings withUnitLimits(CommitUnitLimits limits) {
    return new WriterSettings(
        retractsWithoutRow, quarantine, limits, compactionGuard, gold, writeParallelism, keyCache);
  }

  public WriterSettings withCompactionGuard(CompactionGuard guard) {
    return new WriterSettings(
        retractsWithoutRow, quarantine, unitLimits, guard, gold, writeParallelism, keyCache);
  }

  public WriterSettings withGold(boolean on) {
    return new WriterSettings(
        retractsWithoutRow, quarantine, unitLimits, compactionGuard, on, writeParallelism,
        keyCache);
  }

  public WriterSettings withWriteParallelism(int tenants) {
    return new WriterSettings(
        retractsWithoutRow, quarantine, unitLimits, compactionGuard, gold, tenants, keyCache);
  }

  public WriterSettings withKeyCache(KeyCache cache) {
    return new WriterSettings(
        retractsWithoutRow, quarantine, unitLimits, compactionGuard, gold, writeParallelism,
        cache);
  }
}
