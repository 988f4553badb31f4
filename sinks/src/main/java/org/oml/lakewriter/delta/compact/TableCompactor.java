package org.oml.lakewriter.delta.compact;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites one table's small files into files of about the target size of its kind ({@link
 * CompactionPolicy#targetFileBytes(org.oml.lakewriter.delta.TableKind)}), as one Delta commit that
 * changes no row ({@link DeltaTableClient#commitCompaction}: {@code dataChange = false}, no txn
 * action). The job's compactor is size-tiered ({@link #tiered}): a small file larger than all the
 * smaller ones together waits until they have caught up, so a growing table's bytes are not
 * rewritten at every compaction.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>The files added hold exactly the rows of the files removed, each read whole and written
 *       again unchanged (every column, in file order), so any reader sees the same rows before and
 *       after.
 *   <li>The commit is made only if every file it removes is still live at commit time; otherwise
 *       nothing lands (a data commit or another compaction won), and the written files are orphans
 *       for VACUUM.
 *   <li>No file a planned but uncommitted rewrite of the writer replaces is removed ({@link
 *       CompactionGuard}): such files are left out when the files are chosen, and a rewrite
 *       planned after that, before the commit, makes the compaction commit nothing. Both checks
 *       are made under the guard's table lock, the second one until the commit has ended.
 *   <li>The table's txn version is unchanged, so exactly-once, replays and a pending rewrite's
 *       base check see the same table they would have without the compaction.
 * </ul>
 */
public final class TableCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(TableCompactor.class);

  /**
   * What one compaction did: {@code reason} says why it did nothing; {@code abandoned} when it read
   * and wrote its files and then committed nothing, because a racer won.
   */
  public record Result(
      TableId table, int filesRemoved, int filesAdded, long rows, String reason, boolean abandoned) {
    static Result skipped(TableId table, String reason) {
      return new Result(table, 0, 0, 0, reason, false);
    }

    static Result abandoned(TableId table, String reason) {
      return new Result(table, 0, 0, 0, reason, true);
    }

    public boolean compacted() {
      return filesRemoved > 0;
    }

    /** Small files left after this run (what was below the threshold and not rewritten). */
    @Override
    public String toString() {
      return compacted()
          ? table + ": " + filesRemoved + " files -> " + filesAdded + " (" + rows + " rows)"
          : table + ": not compacted (" + reason + ")";
    }
  }

  private final DeltaTableClient client;
  private final CompactionPolicy policy;
  private final CompactionGuard guard;
  private final boolean tiered;

  /** The job's compactor: size-tiered ({@link #tiered}). */
  public TableCompactor(DeltaTableClient client, CompactionPolicy policy, CompactionGuard guard) {
    this(client, policy, guard, true);
  }

  private TableCompactor(
      DeltaTableClient client, CompactionPolicy policy, CompactionGuard guard, boolean tiered) {
    this.client = client;
    this.policy = policy;
    this.guard = guard;
    this.tiered = tiered;
  }

  /**
   * A compactor that rewrites every small file, however large next to the others ({@code
   * lakewriter maintain compact}: an operator's full compaction, not one per checkpoint).
   */
  public static TableCompactor full(
      DeltaTableClient client, CompactionPolicy policy, CompactionGuard guard) {
    return new TableCompactor(client, policy, guard, false);
  }

  /**
   * Compacts the table if it has at least {@code policy.minFiles()} small files that no planned
   * rewrite replaces.
   *
   * <p>The guard's table lock is held twice, briefly: while choosing the files (none that a planned
   * rewrite replaces), and from checking that no rewrite planned meanwhile replaces one of them to
   * the end of the commit. The files are read and written in between without it, so the writer,
   * which plans its rewrites under the same lock, never waits for a compaction's reads and writes,
   * only for its commit. A rewrite planned in between wins: the compaction commits nothing, and its
   * files are orphans for VACUUM.
   *
   * @param beforeCommit runs just before the Delta commit (the committer checks its lease there)
   */
  public Result compact(TableId table, IoCheck beforeCommit) throws IOException {
    ReentrantLock lock = guard.lock(table);
    Collection<DataFile> files;
    long txnVersion;
    lock.lock();
    try {
      LiveFiles small = client.smallFiles(table, policy.smallFileBytes(table.kind()));
      txnVersion = small.snapshot().txnVersion();
      Set<String> planned = guard.pendingRemovals(table, txnVersion);
      List<DataFile> free = new ArrayList<>();
      for (DataFile file : small.files().values()) {
        if (!planned.contains(file.relativePath())) {
          free.add(file);
        }
      }
      files = taken(free);
      if (files.size() < policy.minFiles()) {
        return Result.skipped(
            table,
            files.size()
                + " small files"
                + (planned.isEmpty() ? "" : " not held by a planned rewrite")
                + (tiered ? " in the smallest size tier" : "")
                + ", below maintenance.compact.min-files "
                + policy.minFiles());
      }
    } finally {
      lock.unlock();
    }
    List<DataFile> removes = new ArrayList<>();
    List<DataFile> adds = new ArrayList<>();
    long rows = 0;
    for (List<DataFile> bin : bins(files, policy.targetFileBytes(table.kind()))) {
      List<TableRow> all = new ArrayList<>();
      for (DataFile file : bin) {
        all.addAll(client.readDataFile(table, file));
      }
      adds.addAll(client.writeDataFiles(table, all));
      removes.addAll(bin);
      rows += all.size();
    }
    if (removes.isEmpty()) {
      return Result.skipped(table, "no two small files fit one target-size file");
    }
    lock.lock();
    try {
      Set<String> plannedSince = guard.pendingRemovals(table, txnVersion);
      long taken = removes.stream().filter(f -> plannedSince.contains(f.relativePath())).count();
      if (taken > 0) {
        String reason = "a rewrite planned meanwhile replaces " + taken + " of its files";
        LOG.info(
            "{}: compaction abandoned, nothing committed: {}; its {} written files are orphans"
                + " for VACUUM",
            table,
            reason,
            adds.size());
        return Result.abandoned(table, reason);
      }
      beforeCommit.run();
      if (!client.commitCompaction(table, removes, adds)) {
        // The table client has logged which files were no longer live.
        return Result.abandoned(table, "a file to replace was replaced first by another commit");
      }
    } finally {
      lock.unlock();
    }
    LOG.info(
        "{}: compacted {} small files into {} ({} rows, txn version unchanged)",
        table,
        removes.size(),
        adds.size(),
        rows);
    return new Result(table, removes.size(), adds.size(), rows, "", false);
  }

  /**
   * How many live small files the table has that a compaction would take (a log read), for the
   * scheduler's estimate: those a size tier leaves out do not count.
   */
  public int smallFileCount(TableId table) throws IOException {
    return taken(client.smallFiles(table, policy.smallFileBytes(table.kind())).files().values())
        .size();
  }

  /** The small files a compaction takes: those of the smallest size tier, or all of them. */
  private Collection<DataFile> taken(Collection<DataFile> small) {
    return tiered ? tiered(small) : small;
  }

  /**
   * The size-tiered choice: the files left after dropping, largest first, every file that is
   * larger than all the smaller ones together. A file is therefore rewritten only into a file at
   * least twice its size, so each byte is rewritten at most about log2(small-file-size / the size
   * of one commit's file) times as a table grows, not once per compaction (docs/compaction.md,
   * "Write amplification"). The files left out are each larger than all the smaller ones
   * together, so there are at most about log2(small-file-size / smallest file) of them.
   */
  static List<DataFile> tiered(Collection<DataFile> files) {
    List<DataFile> bySize = new ArrayList<>(files);
    bySize.sort(Comparator.comparingLong(DataFile::sizeBytes));
    long others = 0;
    for (DataFile file : bySize) {
      others += file.sizeBytes();
    }
    int end = bySize.size();
    while (end > 0) {
      long largest = bySize.get(end - 1).sizeBytes();
      others -= largest;
      if (largest <= others) {
        break;
      }
      end--;
    }
    return new ArrayList<>(bySize.subList(0, end));
  }

  /**
   * Groups the files, oldest first (so that the rows of neighbouring commits end up in the same
   * file), into runs of at most the target size; a run of one file is left alone (rewriting it
   * changes nothing).
   */
  static List<List<DataFile>> bins(Collection<DataFile> files, long targetFileBytes) {
    List<DataFile> oldestFirst = new ArrayList<>(files);
    oldestFirst.sort(
        Comparator.comparingLong(DataFile::modificationTime).thenComparing(DataFile::relativePath));
    List<List<DataFile>> bins = new ArrayList<>();
    List<DataFile> bin = new ArrayList<>();
    long size = 0;
    for (DataFile file : oldestFirst) {
      if (!bin.isEmpty() && size + file.sizeBytes() > targetFileBytes) {
        bins.add(bin);
        bin = new ArrayList<>();
        size = 0;
      }
      bin.add(file);
      size += file.sizeBytes();
    }
    bins.add(bin);
    bins.removeIf(b -> b.size() < 2);
    return bins;
  }

  /** A check that may fail with an {@link IOException} (the leader lease). */
  @FunctionalInterface
  public interface IoCheck {
    IoCheck NONE = () -> {};

    void run() throws IOException;
  }
}
