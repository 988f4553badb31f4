package org.oml.lakewriter.delta.logstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;

class AtomicLocalLogStoreTest {
  @TempDir Path dir;

  /** The lake's local filesystem, as KernelEngines configures it. */
  private final Configuration conf = lakeConf(LocalLakeFileSystem.class);
  private final AtomicLocalLogStore store = new AtomicLocalLogStore(conf);

  @Test
  void putIfAbsentRefusesAnExistingFileAndKeepsItsContent() throws Exception {
    org.apache.hadoop.fs.Path path =
        hadoopPath(dir.resolve("_delta_log/00000000000000000001.json"));
    store.write(path, List.of("{\"a\":1}", "{\"b\":2}").iterator(), false, conf);
    assertThatThrownBy(() -> store.write(path, List.of("{\"c\":3}").iterator(), false, conf))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readString(Path.of(path.toUri()))).isEqualTo("{\"a\":1}\n{\"b\":2}\n");
    assertNoTempFilesLeft();
  }

  @Test
  void overwriteReplaces() throws Exception {
    org.apache.hadoop.fs.Path path = hadoopPath(dir.resolve("_delta_log/_last_checkpoint"));
    store.write(path, List.of("old").iterator(), true, conf);
    store.write(path, List.of("new").iterator(), true, conf);
    assertThat(Files.readString(Path.of(path.toUri()))).isEqualTo("new\n");
  }

  @Test
  void exactlyOneOfTwoRacingWritersWinsEachVersion() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int version = 0; version < 300; version++) {
        org.apache.hadoop.fs.Path path = hadoopPath(dir.resolve("_delta_log/" + version + ".json"));
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<Boolean> a = pool.submit(() -> tryWrite(path, "writer-a", barrier));
        Future<Boolean> b = pool.submit(() -> tryWrite(path, "writer-b", barrier));
        assertThat(a.get() ^ b.get()).as("version " + version).isTrue();
        String content = Files.readString(Path.of(path.toUri()), StandardCharsets.UTF_8);
        assertThat(content).isIn("writer-a\n", "writer-b\n");
      }
    } finally {
      pool.shutdownNow();
    }
    assertNoTempFilesLeft();
  }

  @Test
  void registersForTheFileSchemeUnlessConfigured() {
    Configuration fresh = new Configuration(false);
    AtomicLocalLogStore.registerIfAbsent(fresh);
    assertThat(fresh.get("io.delta.kernel.logStore.file.impl"))
        .isEqualTo(AtomicLocalLogStore.class.getName());
    Configuration custom = new Configuration(false);
    custom.set(AtomicLocalLogStore.CONF_KEY, "com.example.Other");
    AtomicLocalLogStore.registerIfAbsent(custom);
    assertThat(custom.get(AtomicLocalLogStore.CONF_KEY)).isEqualTo("com.example.Other");
  }

  /**
   * The listing Kernel's snapshot loads, log compaction and log cleanup use: the same statuses, in
   * the same order, as the inherited listing that stats every file of the directory.
   */
  @Test
  void listsFromANameAsTheInheritedListingDoes() throws Exception {
    Path log = Files.createDirectories(dir.resolve("_delta_log"));
    for (int v = 0; v < 30; v++) {
      String version = String.format("%020d", v);
      Files.writeString(log.resolve(version + ".json"), "{\"v\":" + v + "}\n");
      Files.writeString(log.resolve(version + ".crc"), "{}");
      if (v % 10 == 9) {
        Files.writeString(
            log.resolve(String.format("%020d.%020d.compacted.json", v - 9, v)), "{}\n");
      }
    }
    Files.write(log.resolve(String.format("%020d.checkpoint.parquet", 20)), new byte[77]);
    Files.writeString(log.resolve("_last_checkpoint"), "{\"version\":20}");
    Files.writeString(log.resolve(".00000000000000000030.json.x.tmp"), "partial");
    Files.createDirectories(log.resolve("_commits"));
    io.delta.storage.LocalLogStore inherited = new io.delta.storage.LocalLogStore(conf);
    for (String from :
        List.of(
            String.format("%020d.checkpoint.parquet", 20),
            String.format("%020d.json", 25),
            "0".repeat(20) + ".",
            String.format("%020d.json", 99))) {
      org.apache.hadoop.fs.Path start = hadoopPath(log.resolve(from));
      List<String> ours = describe(store.listFrom(start, conf));
      assertThat(ours).as(from).isEqualTo(describe(inherited.listFrom(start, conf)));
      assertThat(ours).as(from).isSorted();
    }
    org.apache.hadoop.fs.Path at25 = hadoopPath(log.resolve(String.format("%020d.json", 25)));
    List<String> names = new ArrayList<>();
    store.listFrom(at25, conf).forEachRemaining(s -> names.add(s.getPath().getName()));
    assertThat(names)
        .containsExactly(
            "00000000000000000025.json",
            "00000000000000000026.crc",
            "00000000000000000026.json",
            "00000000000000000027.crc",
            "00000000000000000027.json",
            "00000000000000000028.crc",
            "00000000000000000028.json",
            "00000000000000000029.crc",
            "00000000000000000029.json",
            "_commits",
            "_last_checkpoint");
  }

  /**
   * A listing from a recent version stats the files it returns, not the whole log: the log keeps
   * 30 days of commit files, and every snapshot load lists it.
   */
  @Test
  void listingFromARecentVersionStatsOnlyTheFilesItReturns() throws Exception {
    Path log = Files.createDirectories(dir.resolve("_delta_log"));
    for (int v = 0; v < 2000; v++) {
      Files.writeString(log.resolve(String.format("%020d.json", v)), "{}\n");
    }
    Configuration counting = lakeConf(CountingLocalFileSystem.class);
    org.apache.hadoop.fs.Path start = hadoopPath(log.resolve(String.format("%020d.json", 1990)));
    CountingLocalFileSystem.STATS.set(0);
    List<String> listed = describe(new AtomicLocalLogStore(counting).listFrom(start, counting));
    assertThat(listed).hasSize(10);
    assertThat(CountingLocalFileSystem.STATS.get()).isBetween(10, 12);
    CountingLocalFileSystem.STATS.set(0);
    new io.delta.storage.LocalLogStore(counting).listFrom(start, counting);
    assertThat(CountingLocalFileSystem.STATS.get()).as("the inherited listing").isGreaterThanOrEqualTo(2000);
  }

  /** Counts the stats of the lake's local filesystem (set as {@code fs.file.impl}). */
  public static final class CountingLocalFileSystem extends LocalLakeFileSystem {
    static final AtomicInteger STATS = new AtomicInteger();

    @Override
    public FileStatus getFileStatus(org.apache.hadoop.fs.Path f) throws IOException {
      STATS.incrementAndGet();
      return super.getFileStatus(f);
    }
  }

  @Test
  void listingAMissingLogIsFileNotFoundAsBefore() {
    org.apache.hadoop.fs.Path start = hadoopPath(dir.resolve("nowhere/_delta_log/0.json"));
    assertThatThrownBy(() -> store.listFrom(start, conf))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessage(
            assertThrows(
                    FileNotFoundException.class,
                    () -> new io.delta.storage.LocalLogStore(conf).listFrom(start, conf))
                .getMessage());
  }

  private static Configuration lakeConf(Class<? extends LocalLakeFileSystem> fileSystem) {
    Configuration conf = new Configuration();
    conf.set(LocalLakeFileSystem.CONF_KEY, fileSystem.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  private static List<String> describe(Iterator<FileStatus> statuses) {
    List<String> out = new ArrayList<>();
    statuses.forEachRemaining(
        s ->
            out.add(
                s.getPath()
                    + " "
                    + s.getLen()
                    + " "
                    + s.getModificationTime()
                    + " "
                    + s.isDirectory()));
    return out;
  }

  private boolean tryWrite(org.apache.hadoop.fs.Path path, String content, CyclicBarrier barrier)
      throws Exception {
    barrier.await();
    try {
      store.write(path, List.of(content).iterator(), false, conf);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    }
  }

  private void assertNoTempFilesLeft() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    }
  }

  private static org.apache.hadoop.fs.Path hadoopPath(Path path) {
    return new org.apache.hadoop.fs.Path(path.toUri());
  }
}
