package org.oml.lakewriter.cdc;

import java.io.Serializable;
import java.time.Duration;
import java.util.Properties;

/**
 * Flink CDC's and Debezium's own throughput knobs, as the job sets them ({@code cdc.*} options;
 * the measurements behind the defaults are in {@code docs/scale.md}).
 *
 * @param snapshotSplitSize rows per snapshot split (Flink CDC's chunk size). Each split opens its
 *     own connection and primes Debezium's type registry, which cost more than the rows of a
 *     small split on a first start over a large outbox.
 * @param snapshotFetchSize rows per JDBC fetch while a split is read
 * @param maxBatchSize records Debezium hands over per poll ({@code max.batch.size})
 * @param maxQueueSize records Debezium queues before the replication reader waits ({@code
 *     max.queue.size}); must be larger than {@code maxBatchSize}
 * @param pollInterval how long Debezium waits for a batch to fill ({@code poll.interval.ms});
 *     under a light load it goes straight into the frontier lag
 */
public record CdcTuning(
    int snapshotSplitSize,
    int snapshotFetchSize,
    int maxBatchSize,
    int maxQueueSize,
    Duration pollInterval)
    implements Serializable {

  public static final CdcTuning DEFAULT =
      new CdcTuning(65_536, 4_096, 4_096, 16_384, Duration.ofMillis(50));

  public CdcTuning {
    positive("cdc.snapshot.split-size", snapshotSplitSize);
    positive("cdc.snapshot.fetch-size", snapshotFetchSize);
    positive("cdc.max-batch-size", maxBatchSize);
    if (maxQueueSize <= maxBatchSize) {
      throw new IllegalArgumentException(
          "cdc.max-queue-size (" + maxQueueSize + ") must be larger than cdc.max-batch-size ("
              + maxBatchSize + "): Debezium refuses a queue that cannot hold one batch and more");
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException("cdc.poll-interval must be positive, got " + pollInterval);
    }
  }

  private static void positive(String option, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(option + " must be positive, got " + value);
    }
  }

  /** The Debezium properties of these knobs. */
  void applyTo(Properties debezium) {
    debezium.setProperty("max.batch.size", Integer.toString(maxBatchSize));
    debezium.setProperty("max.queue.size", Integer.toString(maxQueueSize));
    debezium.setProperty("poll.interval.ms", Long.toString(pollInterval.toMillis()));
  }
}
