package org.oml.lakewriter.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What one mode costs: JVM and PostgreSQL CPU, heap and RSS, read from the JVM and /proc. */
final class Probe {
  private static final double TICKS_PER_SECOND = 100.0; // getconf CLK_TCK on Linux

  private Probe() {}

  /** CPU seconds of this JVM (all threads, JIT and GC included). */
  static double jvmCpuSeconds() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime() / 1e9;
    }
    return Double.NaN;
  }

  static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Resets the heap pools' peaks (and, if the kernel allows it, the RSS high-water mark). */
  static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (IOException | RuntimeException e) {
      // not permitted: VmHWM is then the process-lifetime peak
    }
  }

  /** Largest heap occupancy right after a GC since the last reset, summed over heap pools. */
  static long heapAfterGcPeak() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        sum += pool.getCollectionUsage().getUsed();
      }
    }
    return sum;
  }

  /** Peak resident set size (VmHWM), bytes. */
  static long rssPeak() {
    return statusKb(Path.of("/proc/self/status"), "VmHWM:") * 1024;
  }

  static long statusKb(Path status, String key) {
    try {
      for (String line : Files.readAllLines(status)) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone
    }
    return -1;
  }

  /** utime+stime of a process, seconds; with {@code children}, also its reaped children's. */
  static double procCpuSeconds(long pid, boolean children) {
    String[] f = stat(pid);
    if (f == null) {
      return Double.NaN;
    }
    double cpu = cpuSeconds(f);
    if (children) {
      cpu += (Long.parseLong(f[13]) + Long.parseLong(f[14])) / TICKS_PER_SECOND;
    }
    return cpu;
  }

  /**
   * The fields of a {@code /proc/<pid>/stat} or {@code /proc/<pid>/task/<tid>/stat} line after
   * {@code "pid (comm) "}, cut at the last ')' since comm may hold spaces and parentheses: f[0] is
   * the state (field 3).
   */
  static String[] statFields(String stat) {
    return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
  }

  /** utime + stime (fields 14 and 15, f[11] and f[12] of {@link #statFields}), seconds. */
  static double cpuSeconds(String[] f) {
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
  }

  static long parentPid(long pid) {
    String[] f = stat(pid);
    return f == null ? -1 : Long.parseLong(f[1]);
  }

  /**
   * CPU seconds of a whole PostgreSQL server: the postmaster with its reaped children, plus every
   * live child. Backends that came and went (the snapshot's connections) are counted too.
   */
  static double postgresCpuSeconds(long postmaster) {
    double total = procCpuSeconds(postmaster, true);
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      List<Path> dirs = procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList();
      for (Path dir : dirs) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (pid != postmaster && parentPid(pid) == postmaster) {
          double cpu = procCpuSeconds(pid, false);
          if (!Double.isNaN(cpu)) {
            total += cpu;
          }
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return total;
  }

  private static String[] stat(long pid) {
    try {
      return statFields(Files.readString(Path.of("/proc/" + pid + "/stat")));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
