package org.oml.lakewriter.delta.testing;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;

/**
 * The lake's local filesystem, counting how often each table's {@code _delta_log} directory is
 * listed: Kernel lists it to load a snapshot (and for nothing else on our paths), so the count is
 * the number of snapshot loads, whichever client or Kernel version made them. Counts are per
 * listed directory, so tests running side by side do not mix.
 */
public final class CountingLakeFileSystem extends LocalLakeFileSystem {
  private static final Map<String, AtomicLong> LISTINGS = new ConcurrentHashMap<>();

  /** A lake under {@code dir} whose filesystem is this one (a fresh instance per use). */
  public static LakeConfig lake(java.nio.file.Path dir) {
    return new LakeConfig(
        dir.toUri().toString(),
        Map.of(
            LocalLakeFileSystem.CONF_KEY,
            CountingLakeFileSystem.class.getName(),
            "fs.file.impl.disable.cache",
            "true"));
  }

  /** Listings of {@code _delta_log} directories below {@code dir}, by table directory. */
  public static Map<String, Long> listings(java.nio.file.Path dir) {
    String root = dir.toAbsolutePath() + "/";
    Map<String, Long> counts = new TreeMap<>();
    LISTINGS.forEach(
        (table, count) -> {
          if (table.startsWith(root)) {
            counts.put(table.substring(root.length()), count.get());
          }
        });
    return counts;
  }

  /** The sum of {@link #listings}. */
  public static long totalListings(java.nio.file.Path dir) {
    return listings(dir).values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public FileStatus[] listStatus(Path path) throws FileNotFoundException, IOException {
    count(path);
    return super.listStatus(path);
  }

  /**
   * The log store's listing of {@code _delta_log} (a stat of the files it returns only); counted
   * when the directory exists, as {@link #listStatus} is only called then.
   */
  @Override
  public FileStatus[] listStatusFrom(Path dir, String fromName) throws IOException {
    FileStatus[] listed = super.listStatusFrom(dir, fromName);
    if (listed != null) {
      count(dir);
    }
    return listed;
  }

  private static void count(Path path) {
    if (path.getName().equals("_delta_log")) {
      String table = path.getParent().toUri().getPath();
      LISTINGS.computeIfAbsent(table, t -> new AtomicLong()).incrementAndGet();
    }
  }
}
