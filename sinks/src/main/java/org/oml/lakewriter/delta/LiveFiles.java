package org.oml.lakewriter.delta;

import java.util.Map;

/**
 * Those of a set of named data files that are live in a table's latest snapshot, by path relative
 * to the table root, each with the details of its add action, and which snapshot that was. A named
 * file absent from {@code files} is not live (never added, or removed by a later commit).
 */
public record LiveFiles(SnapshotId snapshot, Map<String, DataFile> files) {
  public LiveFiles {
    files = Map.copyOf(files);
  }
}
