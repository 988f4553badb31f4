package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;

/**
 * The latest Kernel {@link Snapshot} of each table of one lake, shared by every {@link
 * KernelDeltaTableClient} of that lake in this class loader (the sink's writer and committer), so
 * that a table's log is listed and replayed once, not once per use and per client.
 *
 * <p>Invariant: {@link #latest} never hands out a snapshot older than the table's log was when the
 * call began. Before a cached snapshot of log version {@code v} is reused, the existence of {@code
 * _delta_log/<v+1>.json} is checked (one {@code getFileStatus}); if it exists, someone committed
 * (another engine's OPTIMIZE, a second writer, a restored job) and the snapshot is loaded again.
 * Delta writes every version's commit file {@code <v>.json}, so that check cannot miss a version.
 * A commit that races the check (between it and our commit) fails to write {@code <v+1>.json}
 * (put-if-absent); the client then loads the winner's version and checks again, as after a fresh
 * load.
 *
 * <p>After our own commit the entry becomes Kernel's post-commit snapshot, whose txn version is the
 * one just committed; after a commit that also wrote a log checkpoint, or any failed commit, the
 * entry is dropped, so that the next use loads from the lake (from the new checkpoint, not from a
 * chain of derived snapshots whose log segment keeps growing).
 *
 * <p>Absent tables are not cached: each use looks again, first with one existence check of the
 * table's {@code _delta_log} directory (no table exists without one), and loads only if it is
 * there. A tenant's tables are looked up several times before the first commit creates them, and
 * most tenants never get a {@code dead_letter} table.
 *
 * <p>Sharing: one cache per {@link LakeConfig} (root and Hadoop properties), reference-counted by
 * the clients that {@link #acquire} it; when the last one {@link #release}s it, it is dropped, so a
 * job restarted in the same JVM starts from the lake (the freshness check would catch up anyway).
 * The static registry lives in this class, so each job's user class loader has its own. Snapshots
 * are used with the engine of the client that asks; every client of one cache has an engine built
 * from the same {@link LakeConfig}.
 *
 * <p>Thread-safe: a table's entry is loaded, checked and replaced under that table's own lock, so
 * that tables are served in parallel (the committer commits tables in parallel).
 */
final class SnapshotCache {
  private static final Map<LakeConfig, SnapshotCache> SHARED = new HashMap<>();

  private final LakeConfig key;
  private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
  private final AtomicLong loads = new AtomicLong();
  private final AtomicLong reuses = new AtomicLong();
  private final AtomicLong liveScans = new AtomicLong();
  private int users;

  private SnapshotCache(LakeConfig key) {
    this.key = key;
  }

  /** The lake's shared cache; every call must be matched by one {@link #release}. */
  static SnapshotCache acquire(LakeConfig lake) {
    synchronized (SHARED) {
      SnapshotCache cache = SHARED.computeIfAbsent(lake, SnapshotCache::new);
      cache.users++;
      return cache;
    }
  }

  /** A cache of its own, shared with nobody (tests, and clients that must not share). */
  static SnapshotCache unshared(LakeConfig lake) {
    SnapshotCache cache = new SnapshotCache(lake);
    cache.users = 1;
    return cache;
  }

  void release() {
    synchronized (SHARED) {
      if (--users == 0) {
        SHARED.remove(key, this);
        slots.clear();
      }
    }
  }

  /**
   * The table's latest snapshot, reused if the log has no version after it, loaded otherwise; empty
   * if the table does not exist.
   */
  Optional<Cached> latest(Engine engine, String tablePath) {
    return slots.computeIfAbsent(tablePath, p -> new Slot()).latest(engine, tablePath);
  }

  /**
   * Our commit of txn {@code txnVersion} produced {@code snapshot}: the table's latest state. The
   * live files of the snapshot it was made on, if known, are carried to it through {@code next}
   * (the commit's removes and adds), provided the commit made the very next version.
   */
  void committed(
      String tablePath,
      Snapshot snapshot,
      long txnVersion,
      Function<LiveFileIndex, Optional<LiveFileIndex>> next) {
    slots.computeIfAbsent(tablePath, p -> new Slot()).committed(snapshot, txnVersion, next);
  }

  /**
   * The lock every commit of ours to the table holds, from reading its latest snapshot to keeping
   * the one the commit made, whichever client of this cache makes it (the committer's data commits
   * and the compactor's, on their own threads). Kernel 4.4.0 counts a commit's files into the
   * file-size histogram of the snapshot it was built on, in place: two transactions built on one
   * cached snapshot at the same time would each count the other's files, and the second one fails
   * ({@code Cannot remove ... bytes from bin}) or writes a wrong {@code .crc}. Reentrant.
   */
  ReentrantLock commitLock(String tablePath) {
    return slots.computeIfAbsent(tablePath, p -> new Slot()).commitLock;
  }

  /** Forgets the table's snapshot: the next use loads it from the lake. */
  void invalidate(String tablePath) {
    Slot slot = slots.get(tablePath);
    if (slot != null) {
      slot.invalidate();
    }
  }

  /** Full snapshot loads (log listed and replayed) since this cache was made. */
  long loads() {
    return loads.get();
  }

  /** Uses served from the cache after the freshness check. */
  long reuses() {
    return reuses.get();
  }

  /**
   * The live files of {@code cached}'s snapshot: carried over from our commit that made it, or
   * {@code scan}ned on first use.
   */
  LiveFileIndex live(Cached cached, Supplier<LiveFileIndex> scan) {
    return cached.live(
        () -> {
          liveScans.incrementAndGet();
          return scan.get();
        });
  }

  /** Passes over a log for its live files (see {@link #live}) since this cache was made. */
  long liveScans() {
    return liveScans.get();
  }

  /**
   * A snapshot and what is derived from it once: the txn version of {@value
   * DeltaTableClient#APP_ID}, and its live files.
   */
  static final class Cached {
    private final Snapshot snapshot;
    private volatile long txnVersion;
    private volatile boolean txnKnown;
    private LiveFileIndex live;

    private Cached(Snapshot snapshot) {
      this.snapshot = snapshot;
    }

    private Cached(Snapshot snapshot, long txnVersion, LiveFileIndex live) {
      this.snapshot = snapshot;
      this.txnVersion = txnVersion;
      this.txnKnown = true;
      this.live = live;
    }

    private synchronized LiveFileIndex live(Supplier<LiveFileIndex> scan) {
      if (live == null) {
        live = scan.get();
      }
      return live;
    }

    private synchronized LiveFileIndex liveIfKnown() {
      return live;
    }

    Snapshot snapshot() {
      return snapshot;
    }

    long version() {
      return snapshot.getVersion();
    }

    /** The snapshot's txn version, replayed from the log on first use only. */
    long txnVersion(Engine engine) {
      if (!txnKnown) {
        // A benign race: two threads may both replay; they find the same value.
        txnVersion =
            snapshot
                .getLatestTransactionVersion(engine, DeltaTableClient.APP_ID)
                .orElse(DeltaTableClient.NO_VERSION);
        txnKnown = true;
      }
      return txnVersion;
    }
  }

  private final class Slot {
    private final ReentrantLock commitLock = new ReentrantLock();
    private Cached current;

    synchronized Optional<Cached> latest(Engine engine, String tablePath) {
      if (current != null && !hasVersionAfter(engine, tablePath, current.version())) {
        reuses.incrementAndGet();
        return Optional.of(current);
      }
      current = null;
      if (!exists(engine, tablePath + "/_delta_log")) {
        return Optional.empty();
      }
      loads.incrementAndGet();
      try {
        current = new Cached(TableManager.loadSnapshot(tablePath).build(engine));
      } catch (TableNotFoundException e) {
        return Optional.empty();
      }
      return Optional.of(current);
    }

    synchronized void committed(
        Snapshot snapshot,
        long txnVersion,
        Function<LiveFileIndex, Optional<LiveFileIndex>> next) {
      if (current == null || snapshot.getVersion() > current.version()) {
        // Before version 0 (our commit that created the table) no file was live.
        LiveFileIndex before =
            snapshot.getVersion() == 0
                ? LiveFileIndex.NONE
                : current != null && snapshot.getVersion() == current.version() + 1
                    ? current.liveIfKnown()
                    : null;
        current =
            new Cached(
                snapshot, txnVersion, before == null ? null : next.apply(before).orElse(null));
      }
    }

    synchronized void invalidate() {
      current = null;
    }
  }

  /** Whether {@code _delta_log/<version+1>.json} exists: someone committed after {@code version}. */
  private static boolean hasVersionAfter(Engine engine, String tablePath, long version) {
    return exists(engine, String.format("%s/_delta_log/%020d.json", tablePath, version + 1));
  }

  private static boolean exists(Engine engine, String path) {
    try {
      engine.getFileSystemClient().getFileStatus(path);
      return true;
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot tell whether " + path + " exists, so the table's latest snapshot is unknown", e);
    }
  }
}
