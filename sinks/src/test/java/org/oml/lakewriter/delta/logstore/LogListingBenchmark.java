package org.oml.lakewriter.delta.logstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.storage.LocalLogStore;
import io.delta.storage.LogStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;

/**
 * What one listing of a table's {@code _delta_log} from a recent version costs on the local
 * filesystem, as a snapshot load asks for it (the last 30 commits' files), with the log store's
 * listing ({@link AtomicLocalLogStore}: a stat of the returned files only) next to the inherited
 * one (a stat of every file of the directory), on the lake's filesystem both. A log holds a commit
 * file, a checksum and a tenth of a log compaction file per commit, for 30 days. Excluded from the
 * default build; run with:
 *
 * <pre>
 * mvn -o -pl sinks test -Dtest=LogListingBenchmark -Dsinks.excludedGroups=none
 * </pre>
 */
@Tag("benchmark")
class LogListingBenchmark {
  @TempDir Path dir;

  @Test
  void listingFromARecentVersionAgainstTheInheritedListing() throws Exception {
    Configuration conf = new Configuration();
    conf.set(LocalLakeFileSystem.CONF_KEY, LocalLakeFileSystem.class.getName());
    LogStore ours = new AtomicLocalLogStore(conf);
    LogStore inherited = new LocalLogStore(conf);
    Path log = Files.createDirectories(dir.resolve("_delta_log"));
    int commits = 0;
    System.out.printf(Locale.ROOT, "%nLogListingBenchmark: listing the last 30 commits' files%n");
    for (int target : List.of(1_000, 10_000, 100_000)) {
      for (; commits < target; commits++) {
        String v = String.format("%020d", commits);
        Files.writeString(log.resolve(v + ".json"), "{}\n");
        Files.writeString(log.resolve(v + ".crc"), "{}");
        if (commits % 10 == 9) {
          Files.writeString(
              log.resolve(String.format("%020d.%020d.compacted.json", commits - 9, commits)), "{}");
        }
      }
      org.apache.hadoop.fs.Path from =
          new org.apache.hadoop.fs.Path(
              log.resolve(String.format("%020d.json", commits - 30)).toUri());
      assertThat(count(ours.listFrom(from, conf))).isEqualTo(count(inherited.listFrom(from, conf)));
      for (int round = 1; round <= 3; round++) {
        double oursUs = usPer(() -> ours.listFrom(from, conf));
        double inheritedUs = usPer(() -> inherited.listFrom(from, conf));
        System.out.printf(
            Locale.ROOT,
            "  %,d commits (%,d files), round %d: ours %,.0f µs, inherited %,.0f µs, ratio %.3f%n",
            commits,
            commits * 2 + commits / 10,
            round,
            oursUs,
            inheritedUs,
            oursUs / inheritedUs);
      }
    }
  }

  @FunctionalInterface
  private interface Listing {
    Iterator<FileStatus> list() throws Exception;
  }

  /** Microseconds per listing over about half a second, after as many to warm up. */
  private static double usPer(Listing listing) throws Exception {
    for (int pass = 0; ; pass++) {
      long start = System.nanoTime();
      int n = 0;
      while (System.nanoTime() - start < 500_000_000L) {
        count(listing.list());
        n++;
      }
      if (pass == 1) {
        return (System.nanoTime() - start) / 1_000.0 / n;
      }
    }
  }

  private static int count(Iterator<FileStatus> statuses) {
    int n = 0;
    while (statuses.hasNext()) {
      statuses.next();
      n++;
    }
    return n;
  }
}
