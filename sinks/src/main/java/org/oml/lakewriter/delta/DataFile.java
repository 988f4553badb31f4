package org.oml.lakewriter.delta;

import java.util.Objects;

/**
 * A Parquet data file written under a table but not yet committed: everything needed to regenerate
 * its add action at commit time, in any process, after any restart.
 *
 * <p>The path is relative to the table's root, so a committable never names the lake root and stays
 * valid when the same lake is mounted under another URI. {@code statsJson} is the file's Delta
 * statistics ({@code numRecords}, min/max/nullCount of the indexed columns), or null.
 */
public record DataFile(
    String relativePath, long sizeBytes, long modificationTime, String statsJson) {
  public DataFile {
    Objects.requireNonNull(relativePath, "relativePath");
    if (relativePath.isEmpty() || relativePath.startsWith("/") || relativePath.contains("..")) {
      throw new IllegalArgumentException("not a path below a table root: " + relativePath);
    }
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("negative size " + sizeBytes + " of " + relativePath);
    }
  }
}
