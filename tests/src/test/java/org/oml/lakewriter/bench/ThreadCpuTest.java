package org.oml.lakewriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.oml.lakewriter.bench.ThreadCpu.Part;

class ThreadCpuTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "C2 CompilerThre, JIT",
    "C1 CompilerThre, JIT",
    "GC Thread#1, GC",
    "G1 Refine#0, GC",
    "'Source: outbox ', SOURCE",
    "debezium-snapsh, SOURCE",
    "batch cut (stab, CUT",
    "delta-writer-3, WRITER",
    "delta-committer, WRITER",
    "rocksdb:low0, ROCKSDB",
    "flink-pekko.act, OTHER",
    "C2 something, OTHER"
  })
  void threadsAreSplitByTheirKernelNames(String comm, Part part) {
    assertThat(ThreadCpu.part(comm)).isEqualTo(part);
  }

  @Test
  void readsUserAndSystemTimeOfEachTaskEvenWithParenthesesInTheName(@TempDir Path tasks)
      throws Exception {
    // utime 150 and stime 50 ticks: 2.0 s; a name with ") " in it must not shift the fields
    task(tasks, "101", "batch cut (stab", 150, 50);
    task(tasks, "102", "C2 CompilerThre", 300, 0);
    task(tasks, "104", "odd) S 1 (name", 7, 3);
    Files.createDirectories(tasks.resolve("103")); // ended: no stat left

    Map<String, Double> read = ThreadCpu.read(tasks);

    assertThat(read)
        .containsOnlyKeys("101 batch cut (stab", "102 C2 CompilerThre", "104 odd) S 1 (name");
    assertThat(read.get("101 batch cut (stab")).isCloseTo(2.0, within(1e-9));
    assertThat(read.get("102 C2 CompilerThre")).isCloseTo(3.0, within(1e-9));
    assertThat(read.get("104 odd) S 1 (name")).isCloseTo(0.1, within(1e-9));
  }

  @Test
  void partsCountFromTheBaselineAndKeepThreadsThatEnded() {
    Map<String, Double> from = Map.of("7 C2 CompilerThre", 10.0, "8 GC Thread#0", 1.0);
    Map<String, Double> to =
        Map.of(
            "7 C2 CompilerThre", 12.5, // 2.5 s since the baseline
            "8 GC Thread#0", 0.25, // the id was given again: counts from zero
            "9 delta-writer-0", 4.0); // started after the baseline

    Map<Part, Double> parts = ThreadCpu.byPart(from, to);

    assertThat(parts.get(Part.JIT)).isCloseTo(2.5, within(1e-9));
    assertThat(parts.get(Part.GC)).isCloseTo(0.25, within(1e-9));
    assertThat(parts.get(Part.WRITER)).isCloseTo(4.0, within(1e-9));
    assertThat(parts.get(Part.SOURCE)).isZero();
  }

  @Test
  void aBusyThreadOfThisJvmIsCountedUnderItsPart() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
    ThreadCpu cpu = ThreadCpu.start();
    Thread busy =
        new Thread(
            () -> {
              long end = System.nanoTime() + 400_000_000L;
              long x = 0;
              while (System.nanoTime() < end) {
                x += Long.numberOfTrailingZeros(x + System.nanoTime());
              }
              if (x == 42) {
                System.out.print("");
              }
            },
            "delta-writer-test");
    busy.start();
    Thread.sleep(300);
    cpu.sample(); // while it runs: its time is kept after it ends
    busy.join();

    assertThat(cpu.byPart().get(Part.WRITER)).isGreaterThan(0.1);
  }

  private static void task(Path tasks, String tid, String comm, long utime, long stime)
      throws Exception {
    Path dir = Files.createDirectories(tasks.resolve(tid));
    Files.writeString(
        dir.resolve("stat"),
        tid + " (" + comm + ") S 1 1 1 0 -1 4194624 10 0 0 0 " + utime + " " + stime
            + " 0 0 20 0 1 0 100 0 0");
  }
}
