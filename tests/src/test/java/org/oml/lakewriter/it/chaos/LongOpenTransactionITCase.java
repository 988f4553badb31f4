package org.oml.lakewriter.it.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.verify.LakeVerifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 13: a transaction that holds an outbox seq open for one minute under steady traffic. The
 * horizon stays below it, so every later row waits in the cut's buffer; that buffer is RocksDB
 * state, and it must spill to disk rather than grow the heap. The writer runs with a heap smaller
 * than what it buffers ({@value #HEAP_MB} MiB against about {@value #BUFFERED_MB} MiB of rows); it
 * must neither run out of memory nor let the frontier pass the open seq, and once the transaction
 * commits every row lands. The writer's own bound, {@code sink.max-bytes-per-commit}, is set to
 * 16 MiB as it must be for such a heap: the drain after the commit releases every waiting row at
 * once, and the default (128 MiB of gathered rows) left a 200 MiB heap collecting for minutes. Peak heap (from the JVM's GC log) and the peak size of the RocksDB
 * directory are printed.
 */
@Tag("slow") // run by the README's test command (-Pslow), left out of a plain `mvn verify`
class LongOpenTransactionITCase {
  private static final Logger LOG = LoggerFactory.getLogger(LongOpenTransactionITCase.class);
  private static final int HEAP_MB = 200;
  private static final int BODY_BYTES = 4_096;
  private static final int ROWS_PER_SECOND = 500;
  private static final Duration HOLD = Duration.ofSeconds(60);
  private static final int BUFFERED_MB =
      (int) ((long) BODY_BYTES * ROWS_PER_SECOND * 60 / (1024 * 1024));
  private static final Duration WAIT = Duration.ofSeconds(240);
  private static final Pattern GC = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void aMinuteLongTransactionHoldsTheFrontierAndTheBufferSpillsOutOfTheHeap() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Path io = Files.createDirectories(tmp.resolve("io"));
      // Kept under target/ for a post-mortem: the temporary directory is not.
      Path gcLog =
          Files.createDirectories(Path.of("target", "chaos-logs")).resolve("long-open-gc.log");
      Path log = tmp.resolve("run.log");
      Process writer =
          CliProcess.start(
              HEAP_MB + "m",
              List.of("-Djava.io.tmpdir=" + io, "-Xlog:gc:file=" + gcLog),
              CliProcess.LAKEWRITER,
              runArgs(db, lake, tmp.resolve("state")),
              log);
      AtomicBoolean producing = new AtomicBoolean(true);
      AtomicLong produced = new AtomicLong();
      Thread producer = new Thread(() -> produce(db, producing, produced), "producer");
      try (Connection open = db.connect()) {
        CliProcess.awaitLog(writer, log, "lake writer running", WAIT);
        producer.start();
        CommittedFrontier.await(db, "w1", 200, WAIT);

        open.setAutoCommit(false);
        long heldSeq = OutboxWriter.journal(open, "acme", "held-open");
        long rocksDbPeak = 0;
        long end = System.nanoTime() + HOLD.toNanos();
        while (System.nanoTime() < end) {
          Thread.sleep(2_000);
          assertThat(writer.isAlive()).as("the writer died: " + tail(log)).isTrue();
          rocksDbPeak = Math.max(rocksDbPeak, rocksDbBytes(io));
          assertThat(CommittedFrontier.read(db, "w1"))
              .as("no row behind the frontier while seq " + heldSeq + " is open")
              .isLessThan(heldSeq);
        }
        long waiting = produced.get();
        int gcLinesWhileHeld = Files.readAllLines(gcLog).size();
        open.commit();
        producing.set(false);
        producer.join();

        long max = db.scalarLong("SELECT max(seq) FROM oml_outbox");
        CommittedFrontier.await(db, "w1", max, WAIT);
        assertThat(writer.isAlive()).isTrue();
        LakeReader reader = LakeReader.open(LakeConfig.of(lake.toUri().toString()));
        try (Connection c = db.connect()) {
          LakeVerifier.Result result = LakeVerifier.verify(c, "public", reader, max);
          assertThat(result.problems()).isEmpty();
        }
        List<String> gc = Files.readAllLines(gcLog);
        long[] held = heapPeaks(gc.subList(0, gcLinesWhileHeld));
        long[] drain = heapPeaks(gc.subList(gcLinesWhileHeld, gc.size()));
        LOG.info(
            "long-open transaction: {} rows ({} MiB of bodies) produced, held {} s; heap -Xmx{}m:"
                + " while held, peak used {} MiB and peak live after GC {} MiB; while draining,"
                + " {} MiB and {} MiB; RocksDB directory peak {} MiB",
            waiting,
            waiting * BODY_BYTES / (1024 * 1024),
            HOLD.toSeconds(),
            HEAP_MB,
            held[0],
            held[1],
            drain[0],
            drain[1],
            rocksDbPeak / (1024 * 1024));
        assertThat(waiting * BODY_BYTES)
            .as("the rows that waited are more than the heap could hold")
            .isGreaterThan((long) HEAP_MB * 1024 * 1024 / 2);
        assertThat(rocksDbPeak).as("the buffer spilled to RocksDB files").isPositive();
      } finally {
        producing.set(false);
        producer.join();
        writer.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static List<String> runArgs(TestDatabase db, Path lake, Path state) {
    List<String> args = new ArrayList<>(List.of("run"));
    for (String option :
        new String[] {
          "postgres.url=" + db.jdbcUrl(),
          "postgres.user=" + EmbeddedPostgresServer.USER,
          "postgres.slot=" + db.slot(),
          "postgres.publication=" + TestDatabase.PUBLICATION,
          "writer.id=w1",
          "lake.root=" + lake,
          "state.dir=" + state,
          "checkpoint.interval=2s",
          "horizon.tick-period=200ms",
          "batch.max-rows=500",
          // What an operator sets with a small heap: the rows the writer gathers between two
          // checkpoints are its bound (the default, 128 MiB, is most of a 200 MiB heap).
          "sink.max-bytes-per-commit=16mb",
        }) {
      args.add("-D");
      args.add(option);
    }
    return args;
  }

  /** About {@link #ROWS_PER_SECOND} promotions a second with incompressible bodies. */
  private static void produce(TestDatabase db, AtomicBoolean producing, AtomicLong produced) {
    Random random = new Random(13);
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; producing.get(); i++) {
        long start = System.nanoTime();
        for (int k = 0; k < ROWS_PER_SECOND / 10; k++) {
          byte[] body = new byte[BODY_BYTES];
          random.nextBytes(body);
          OutboxWriter.materialize(c, i % 2 == 0 ? "acme" : "globex", "a-" + i + "-" + k, 1, body);
        }
        c.commit();
        produced.addAndGet(ROWS_PER_SECOND / 10);
        long left = 100 - (System.nanoTime() - start) / 1_000_000;
        if (left > 0) {
          Thread.sleep(left);
        }
      }
    } catch (SQLException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The bytes of every RocksDB file under Flink's io directory (its working directories). */
  private static long rocksDbBytes(Path io) throws IOException {
    try (Stream<Path> files = Files.walk(io)) {
      return files
          .filter(p -> p.toString().contains("rocksdb") || p.toString().endsWith(".sst"))
          .filter(Files::isRegularFile)
          .mapToLong(
              p -> {
                try {
                  return Files.size(p);
                } catch (IOException e) {
                  return 0; // deleted by a compaction meanwhile
                }
              })
          .sum();
    } catch (UncheckedIOException e) {
      return 0; // a directory vanished while walked
    }
  }

  /** {peak heap used before a collection, peak heap left after one}, in MiB. */
  private static long[] heapPeaks(List<String> gcLines) {
    long before = 0;
    long after = 0;
    for (String line : gcLines) {
      if (!line.contains("Pause Young") && !line.contains("Pause Full")) {
        continue; // a Remark or Cleanup pause frees nothing: its "after" is not a live size
      }
      Matcher m = GC.matcher(line);
      if (m.find()) {
        before = Math.max(before, Long.parseLong(m.group(1)));
        after = Math.max(after, Long.parseLong(m.group(2)));
      }
    }
    return new long[] {before, after};
  }

  private static String tail(Path log) throws IOException {
    String s = Files.readString(log);
    return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
  }
}
