package org.oml.lakewriter.delta.writer;

import java.io.Serializable;

/**
 * When the writer stops gathering batches into one commit unit before the checkpoint barrier: at
 * {@code maxRows} rows or {@code maxBytes} estimated bytes (bodies included), whichever comes first.
 * The unit is then written at once and the following batches form the next unit of the same
 * checkpoint, so the writer's memory stays bounded while a restart catches up on a backlog.
 */
public record CommitUnitLimits(int maxRows, long maxBytes) implements Serializable {
  /** Options {@code sink.max-rows-per-commit} and {@code sink.max-bytes-per-commit}. */
  public static final CommitUnitLimits DEFAULT = new CommitUnitLimits(100_000, 128L << 20);

  public CommitUnitLimits {
    if (maxRows < 1 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "sink.max-rows-per-commit and sink.max-bytes-per-commit must be positive, not "
              + maxRows
              + " rows and "
              + maxBytes
              + " bytes");
    }
  }

  boolean reached(int rows, long bytes) {
    return rows >= maxRows || bytes >= maxBytes;
  }
}
