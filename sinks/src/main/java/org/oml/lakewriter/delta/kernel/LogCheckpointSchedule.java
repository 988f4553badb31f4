package org.oml.lakewriter.delta.kernel;

import org.oml.lakewriter.delta.TableId;

/**
 * Which commits of a table write a log checkpoint: one in every {@code interval} versions, at a
 * phase of the table's own when {@code staggered}.
 *
 * <p>Delta's writers checkpoint at the multiples of {@code delta.checkpointInterval}, and so does
 * Kernel's checkpoint hook. The writer commits every table it touches in the same Flink checkpoint,
 * so tables made together reach those versions together: with 512 tenants, 1,536 checkpoints in
 * one round every 50 s, and that round sets the frontier lag's p99 (docs/scale.md, "Staggered log
 * checkpoints"). Staggered, a table checkpoints at the versions {@code v > 0} with {@code (v +
 * phase) % interval == 0}, whose phase is fixed by the table's relative path: the same in every
 * JVM and build, so a restarted writer keeps each table's spacing. The protocol allows a checkpoint
 * at any version; a reader finds it through {@code _last_checkpoint} or by listing.
 */
record LogCheckpointSchedule(int interval, boolean staggered) {
  LogCheckpointSchedule {
    if (interval < 1) {
      throw new IllegalArgumentException("log checkpoint interval " + interval + " is below 1");
    }
  }

  /** Whether the commit that made {@code version} of {@code table} writes a log checkpoint. */
  boolean due(TableId table, long version) {
    return version > 0 && (version + phase(table)) % interval == 0;
  }

  /** {@code table}'s phase in {@code [0, interval)}; 0 unless staggered. */
  int phase(TableId table) {
    if (!staggered) {
      return 0;
    }
    // String.hashCode is fixed by the language; Fibonacci hashing spreads the near-equal hashes of
    // names such as tenant-1, tenant-2 over the whole range before the remainder.
    int h = table.relativePath().hashCode() * 0x9E3779B9;
    return (int) Long.remainderUnsigned(Integer.toUnsignedLong(h ^ (h >>> 15)), interval);
  }
}
