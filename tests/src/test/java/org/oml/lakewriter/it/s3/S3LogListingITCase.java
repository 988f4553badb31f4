package org.oml.lakewriter.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.delta.logstore.S3ConditionalLogStore;
import org.oml.lakewriter.it.support.S3ProxyExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link S3ConditionalLogStore#listFrom} on a real S3-compatible server: the same entries as the
 * inherited listing of the whole directory (files, a subdirectory, from several starts, none after
 * the last), the same error for a missing directory, one LIST request where the inherited
 * listing makes one per page of the whole log, and pages read only as the caller reads on.
 */
class S3LogListingITCase {
  private static final String BUCKET = "listing";
  private static final String LOG = "s3a://" + BUCKET + "/t/_delta_log/";
  /** Commits in the log; with their checksums and the rest, more than three S3A pages. */
  private static final int COMMITS = 180;
  /** S3A's page size for its own listing, so that the whole log takes several requests. */
  private static final int PAGE = 100;

  @RegisterExtension
  static final S3ProxyExtension S3 = S3ProxyExtension.bucket(BUCKET);

  private static Configuration conf;
  private static FileSystem fs;

  @BeforeAll
  static void aLogWithCommitsChecksumsACheckpointAndASubdirectory() throws Exception {
    conf = KernelEngines.hadoopConf(
        new LakeConfig("s3a://" + BUCKET + "/lake", S3.server().s3aOptions()));
    conf.set("fs.s3a.audit.execution.interceptors", ListRequestCounter.class.getName());
    conf.setInt("fs.s3a.paging.maximum", PAGE);
    // The cached filesystem of this bucket, which no other case uses: every listing below gets it.
    fs = new Path(LOG).getFileSystem(conf);
    try (S3Client s3 = S3.server().client()) {
      List<String> names = new ArrayList<>(List.of(
          "00000000000000000100.checkpoint.parquet", "_last_checkpoint", "_commits/x.json"));
      for (int v = 0; v < COMMITS; v++) {
        names.add(String.format("%020d.json", v));
        names.add(String.format("%020d.crc", v));
      }
      for (String name : names) {
        s3.putObject(
            b -> b.bucket(BUCKET).key("t/_delta_log/" + name), RequestBody.fromString(name));
      }
    }
  }

  @AfterAll
  static void close() throws IOException {
    fs.close(); // and out of Hadoop's cache
  }

  @Test
  void theSameEntriesAsTheWholeListingFromEveryStart() throws Exception {
    for (String start :
        List.of("00000000000000000000.", "00000000000000000100.", "00000000000000000170.json",
            "00000000000000000179.", "00000000000000000180.", "0")) {
      Path from = new Path(LOG + start);
      List<String> inherited = describe(inherited().listFrom(from, conf));
      List<String> startAfter = describe(new S3ConditionalLogStore(conf).listFrom(from, conf));
      assertThat(startAfter).as("from " + start).isEqualTo(inherited);
    }
    assertThat(describe(new S3ConditionalLogStore(conf).listFrom(
            new Path(LOG + "00000000000000000179."), conf)))
        .extracting(line -> line.split(" ")[0])
        .containsExactly(
            "00000000000000000179.crc",
            "00000000000000000179.json",
            "_commits",
            "_last_checkpoint");
  }

  @Test
  void oneListRequestForTheLastEntriesOfALogOfSeveralPages() throws Exception {
    Path from = new Path(LOG + "00000000000000000178.");
    int before = ListRequestCounter.LISTS.get();
    List<String> startAfter = describe(new S3ConditionalLogStore(conf).listFrom(from, conf));
    int ours = ListRequestCounter.LISTS.get() - before;
    before = ListRequestCounter.LISTS.get();
    List<String> inherited = describe(inherited().listFrom(from, conf));
    int theirs = ListRequestCounter.LISTS.get() - before;

    assertThat(startAfter).hasSize(6).isEqualTo(inherited);
    assertThat(ours).as("LIST requests, start-after").isEqualTo(1);
    assertThat(theirs).as("LIST requests, the whole directory").isGreaterThan((2 * COMMITS) / PAGE);
  }

  /**
   * The log cleanup reads the oldest entries and stops at the first one inside the retention: a
   * page of them costs one request, and the pages after it are read only when asked for.
   */
  @Test
  void theOldestEntriesCostOnePageAndTheRestAreReadAsTheyAreAskedFor() throws Exception {
    Path from = new Path(LOG + "0".repeat(20) + ".");
    int before = ListRequestCounter.LISTS.get();
    Iterator<FileStatus> listing = new S3ConditionalLogStore(conf).listFrom(from, conf);
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      first.add(listing.next().getPath().getName());
    }
    assertThat(first)
        .containsExactly(
            "00000000000000000000.crc",
            "00000000000000000000.json",
            "00000000000000000001.crc",
            "00000000000000000001.json",
            "00000000000000000002.crc");
    assertThat(ListRequestCounter.LISTS.get() - before).as("LIST requests, 5 entries").isEqualTo(1);
    int rest = describe(listing).size();
    assertThat(rest).isEqualTo(2 * COMMITS + 3 - 5);
    assertThat(ListRequestCounter.LISTS.get() - before)
        .as("LIST requests, all %d entries in pages of %d", 2 * COMMITS + 3, PAGE)
        .isEqualTo((2 * COMMITS + 3 + PAGE - 1) / PAGE);
  }

  @Test
  void aMissingDirectoryIsFileNotFoundAsBefore() {
    Path from = new Path("s3a://" + BUCKET + "/none/_delta_log/00000000000000000000.");
    assertThatThrownBy(() -> inherited().listFrom(from, conf))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> new S3ConditionalLogStore(conf).listFrom(from, conf))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("none/_delta_log");
  }

  /** Hadoop's own {@code listFrom}, which lists the whole directory. */
  private static HadoopFileSystemLogStore inherited() {
    return new WholeListingLogStore(conf);
  }

  /** Name, path, kind, length and modification time of each status (time: files only). */
  private static List<String> describe(Iterator<FileStatus> statuses) {
    List<String> lines = new ArrayList<>();
    statuses.forEachRemaining(
        s -> lines.add(
            s.getPath().getName() + " " + s.getPath() + " " + (s.isDirectory() ? "dir" : "file")
                + " " + s.getLen() + " " + (s.isDirectory() ? "-" : s.getModificationTime())));
    return lines;
  }
}
