package org.oml.lakewriter.delta.logstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicLocalLogStoreTest {
  @TempDir Path dir;

  private final Configuration conf = new Configuration();
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
