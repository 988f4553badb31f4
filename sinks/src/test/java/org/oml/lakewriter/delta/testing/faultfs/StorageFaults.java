package org.oml.lakewriter.delta.testing.faultfs;

import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.hadoop.fs.Path;

/**
 * The storage faults that {@link FaultFileSystem} and {@link FaultLogStore} inject, JVM-wide (a
 * MiniCluster's tasks run in the test's JVM; Hadoop builds the filesystem instances itself, so
 * they cannot be handed a fault). Each fault is scoped to a lake directory, so tests on other
 * lakes are never touched.
 *
 * <p>A fault lets its first {@code skip} matching calls through (the lake gets some history
 * first), then fails every matching call for {@code length}, then clears for good: the shape of a
 * disk that fills and is freed, or a directory whose permissions are broken and repaired.
 */
public final class StorageFaults {
  /** The filesystem calls a fault can hit. */
  public enum Op {
    CREATE,
    WRITE,
    OPEN,
    LIST,
    STATUS,
    RENAME,
    DELETE,
    MKDIRS
  }

  private static final List<Fault> FAULTS = new CopyOnWriteArrayList<>();

  private StorageFaults() {}

  /** Writes fail with ENOSPC's message: every create and write under the lake, data and log. */
  public static Fault diskFull(java.nio.file.Path lake, int skip, Duration length) {
    return diskFull(lake, path -> true, skip, length);
  }

  /** {@link #diskFull(java.nio.file.Path, int, Duration)} for the paths {@code paths} accepts. */
  public static Fault diskFull(
      java.nio.file.Path lake, Predicate<String> paths, int skip, Duration length) {
    return install(
        new Fault(
            lake,
            EnumSet.of(Op.CREATE, Op.WRITE, Op.MKDIRS, Op.RENAME),
            paths,
            path -> new IOException("No space left on device"),
            skip,
            length));
  }

  /** Listing and reading {@code _delta_log} fail as a directory without read permission does. */
  public static Fault logUnreadable(java.nio.file.Path lake, int skip, Duration length) {
    return install(
        new Fault(
            lake,
            EnumSet.of(Op.LIST, Op.OPEN, Op.STATUS),
            path -> path.contains("/_delta_log"),
            path ->
                new java.nio.file.AccessDeniedException(
                    path, null, "injected: _delta_log is unreadable"),
            skip,
            length));
  }

  public static Fault install(Fault fault) {
    FAULTS.add(fault);
    return fault;
  }

  public static void remove(Fault fault) {
    FAULTS.remove(fault);
  }

  /** Throws the fault's error if a fault holds {@code op} on {@code path} right now. */
  static void check(Op op, Path path) throws IOException {
    String local = path.toUri().getPath();
    for (Fault fault : FAULTS) {
      fault.check(op, local);
    }
  }

  /** One fault: which calls, which paths, what error, when. */
  public static final class Fault {
    private final String root;
    private final Set<Op> ops;
    private final Predicate<String> paths;
    private final Function<String, IOException> error;
    private final int skip;
    private final long lengthNanos;
    private final AtomicInteger matched = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();
    private volatile long startedNanos;
    private volatile boolean started;

    public Fault(
        java.nio.file.Path lake,
        Set<Op> ops,
        Predicate<String> paths,
        Function<String, IOException> error,
        int skip,
        Duration length) {
      String dir = lake.toAbsolutePath().toString();
      this.root = dir.endsWith("/") ? dir : dir + "/";
      this.ops = Set.copyOf(ops);
      this.paths = paths;
      this.error = error;
      this.skip = skip;
      this.lengthNanos = length.toNanos();
    }

    void check(Op op, String path) throws IOException {
      if (!ops.contains(op) || !(path + "/").startsWith(root) || !paths.test(path)) {
        return;
      }
      if (matched.incrementAndGet() <= skip) {
        return;
      }
      synchronized (this) {
        if (!started) {
          startedNanos = System.nanoTime();
          started = true;
        }
      }
      if (System.nanoTime() - startedNanos < lengthNanos) {
        injected.incrementAndGet();
        throw error.apply(path);
      }
    }

    /** Calls failed so far. */
    public int injected() {
      return injected.get();
    }

    /** Whether the fault has started and its time is over. */
    public boolean cleared() {
      return started && System.nanoTime() - startedNanos >= lengthNanos;
    }
  }
}
