package org.oml.lakewriter.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The JVM's CPU time split by what its threads do: the JIT compiler, the garbage collector, the
 * CDC source, the batch cut, the Delta writer and committer, RocksDB's background threads, and
 * the rest. Read from {@code /proc/self/task/<tid>/stat} and {@code comm}, the thread's name as
 * the kernel keeps it (its first 15 characters), so it counts the JVM's own threads too, which
 * {@code ThreadMXBean} does not show.
 *
 * <p>A thread's CPU time goes with it when it ends, so {@link #sample} is called often (the
 * {@link Sampler} does, every half second) and each thread's last reading is kept: a thread that
 * ends between two samples loses at most the time since the last one. On a system without
 * {@code /proc} every part reads zero.
 */
final class ThreadCpu {
  /** What a thread does, by its name. */
  enum Part {
    JIT,
    GC,
    SOURCE,
    CUT,
    WRITER,
    ROCKSDB,
    OTHER;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private static final Path TASKS = Path.of("/proc/self/task");

  private final Map<String, Double> baseline;
  private final Map<String, Double> last = new HashMap<>();

  private ThreadCpu(Map<String, Double> baseline) {
    this.baseline = baseline;
  }

  /** Starts counting from now. */
  static ThreadCpu start() {
    return new ThreadCpu(read(TASKS));
  }

  /** Takes every live thread's CPU time, keeping the last reading of those that ended. */
  synchronized void sample() {
    last.putAll(read(TASKS));
  }

  /** CPU seconds per part since {@link #start}, as of the last {@link #sample}. */
  synchronized Map<Part, Double> byPart() {
    return byPart(baseline, last);
  }

  static Map<Part, Double> byPart(Map<String, Double> from, Map<String, Double> to) {
    Map<Part, Double> parts = new EnumMap<>(Part.class);
    for (Part p : Part.values()) {
      parts.put(p, 0.0);
    }
    to.forEach(
        (thread, seconds) -> {
          // A thread id the kernel gave again, to a thread of the same name, starts from zero.
          double before = from.getOrDefault(thread, 0.0);
          double spent = seconds >= before ? seconds - before : seconds;
          parts.merge(part(thread.substring(thread.indexOf(' ') + 1)), spent, Double::sum);
        });
    return parts;
  }

  /** The part of a thread, by its kernel name ({@code comm}, at most 15 characters). */
  static Part part(String comm) {
    if ((comm.startsWith("C1 ") || comm.startsWith("C2 ")) && comm.contains("Compiler")) {
      return Part.JIT;
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
      return Part.GC;
    }
    if (comm.startsWith("Source") || comm.startsWith("debezium")) {
      return Part.SOURCE;
    }
    if (comm.startsWith("batch cut")) {
      return Part.CUT;
    }
    if (comm.startsWith("delta-writer") || comm.startsWith("delta-committer")) {
      return Part.WRITER;
    }
    if (comm.startsWith("rocksdb")) {
      return Part.ROCKSDB;
    }
    return Part.OTHER;
  }

  /** {@code "<tid> <comm>"} to CPU seconds (user + system) of every thread under {@code tasks}. */
  static Map<String, Double> read(Path tasks) {
    Map<String, Double> threads = new HashMap<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
      for (Path task : dir) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          threads.put(
              task.getFileName() + " " + comm, Probe.cpuSeconds(Probe.statFields(stat)));
        } catch (IOException | RuntimeException e) {
          // the thread ended while we read it
        }
      }
    } catch (IOException e) {
      // no /proc: nothing to split
    }
    return threads;
  }
}
