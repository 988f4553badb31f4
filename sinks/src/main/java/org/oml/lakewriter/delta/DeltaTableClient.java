package org.oml.lakewriter.delta;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Our one narrow view of a Delta lake, so that the Delta Kernel API (which still moves) is touched
 * in a single package. Implementations live in {@code ...delta.kernel}; tests use fakes.
 *
 * <p>Exactly-once rests on one contract: a commit for {@code batchEnd} carries {@code txn(}{@value
 * #APP_ID}{@code , batchEnd)}, and a table whose recorded txn version is at or above {@code
 * batchEnd} never takes that batch again.
 *
 * <p>Failures: {@link IOException} is transient (storage hiccup, a commit whose outcome is unknown,
 * a concurrent metadata change) and the call may be repeated as is. {@link TableUnusableException}
 * is permanent for that table. Anything else is a bug.
 */
public interface DeltaTableClient extends AutoCloseable {
  /** The application id of every txn action this writer commits. */
  String APP_ID = "oml-lakewriter";

  /** The txn version of a table that does not exist, or has never seen {@value #APP_ID}. */
  long NO_VERSION = -1L;

  /** The table's last txn version for {@value #APP_ID}, or {@link #NO_VERSION}. */
  long readTxnVersion(TableId table) throws IOException;

  /**
   * Writes rows as Parquet files under the table (creating the table on first use), with per-file
   * statistics. Nothing becomes visible until {@link #commit}.
   */
  List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException;

  /**
   * The new version of one data file of the table after a copy-on-write: {@code after} are the
   * file's rows as {@link #readDataFile} returned them ({@code before}), row for row and in the same
   * order, some of them changed. The new file holds what {@link #writeDataFiles} would make of
   * {@code after}, but the client copies the parts of the old file that no row changed instead of
   * encoding them again, including the values it did not read ({@link TableRow#notRead}). Empty,
   * and nothing written, when it cannot (a file it did not lay out, or a changed column with values
   * not read): the caller then reads the file whole and writes its rows with {@link
   * #writeDataFiles}. The default client cannot.
   */
  default Optional<List<DataFile>> rewriteDataFile(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after)
      throws IOException {
    return Optional.empty();
  }

  /**
   * Commits the files as one Delta commit with {@code txn(}{@value #APP_ID}{@code , batchEnd)},
   * unless the table already records {@code batchEnd} or more.
   */
  CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files) throws IOException;

  /**
   * The live files whose statistics can hold any of the keys ({@code artifact_id}, {@code version}
   * columns), found by a statistics-filtered scan of the table's latest snapshot, with that
   * snapshot's txn version. Reads no data file. An absent table has no candidates.
   *
   * @throws TableUnusableException if rewriting the table's files could lose data: deletion
   *     vectors, column mapping, an append-only or change-data-feed table
   */
  CandidateFiles filesThatMayHold(TableId table, Collection<ArtifactKey> keys) throws IOException;

  /**
   * Every row of one data file of the table, in file order: a live file from {@link
   * #filesThatMayHold}, or a file written by {@link #writeDataFiles} and not yet committed.
   */
  List<TableRow> readDataFile(TableId table, DataFile file) throws IOException;

  /**
   * The file's rows as {@link #readDataFile(TableId, DataFile)} returns them, except that the
   * client may leave the string and binary columns not in {@code columns} unread: their values are
   * then {@link TableRow#notRead} stand-ins, which only {@link #rewriteDataFile} can carry into a
   * new file. For a copy-on-write whose changes read only {@code columns}. The default reads every
   * column.
   */
  default List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns)
      throws IOException {
    return readDataFile(table, file);
  }

  /**
   * Like {@link #commit}, and in the same Delta commit removes {@code rewrite.removes()} (remove
   * actions with {@code dataChange = true}): a copy-on-write MERGE. Already applied if the table
   * records {@code batchEnd} or more; otherwise made only on the state the rewrite was planned on.
   *
   * @throws TableUnusableException if the table's txn version is not {@code
   *     rewrite.baseTxnVersion()}, or a file to remove is no longer live: the plan no longer
   *     matches the table, and no retry can make it match
   */
  CommitOutcome commitRewrite(TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite)
      throws IOException;

  /**
   * The committer's call: {@link #commit} ({@code rewrite} null) or {@link #commitRewrite}, made
   * only if the table's txn version is below {@code firstSeq}, the lowest seq of the events the
   * files apply. A table at or above {@code batchEnd} has the batch already ({@link
   * CommitOutcome#ALREADY_APPLIED}); one in between took some of these events in a batch with other
   * bounds (another writer), and committing would apply them twice: refused, and the lake is left
   * as it is. The check and the commit are made on the same snapshot, and a commit that loses the
   * race for the next log version is checked again on the winner's, never rebased over it.
   *
   * <p>This default makes the plain call without the check, for clients that cannot make it.
   *
   * @throws TableUnusableException ({@link TableUnusableException#replannable()}) if the table's
   *     txn version is in {@code [firstSeq, batchEnd)}
   */
  default CommitOutcome commitEvents(
      TableId table, long batchEnd, long firstSeq, List<DataFile> files, Rewrite rewrite)
      throws IOException {
    return rewrite == null
        ? commit(table, batchEnd, files)
        : commitRewrite(table, batchEnd, files, rewrite);
  }

  /** The log version and txn version of the table's latest snapshot. Reads the log only. */
  SnapshotId snapshotId(TableId table) throws IOException;

  /**
   * Hands every {@code (artifact_id, version)} of the live rows of a {@code silver/memories}
   * table's latest snapshot to {@code keys}, reading only those two columns of its data files (and
   * honouring deletion vectors). The cost of a key index built once per table, not of a per-batch
   * check.
   *
   * @return the snapshot the keys were read from ({@link SnapshotId#ABSENT} if no table)
   */
  SnapshotId forEachSilverKey(TableId table, Consumer<ArtifactKey> keys) throws IOException;

  /**
   * Like {@link #forEachSilverKey}, and names the live data file that holds each key: {@code keys}
   * receives the file's path relative to the table root (as in {@link DataFile#relativePath()}) and
   * one key of it. Only the two key columns are read. What a key-to-file index is built from, so
   * that a retraction reads only the file that holds its key.
   *
   * <p>A live file that {@code known} names (by path relative to the table root) need not be read:
   * its keys are the ones given there, saved when the file was read or written before (a data file
   * never changes once written). Files of {@code known} that are not live are ignored. A client may
   * read every file anyway.
   *
   * @return the snapshot the keys were read from ({@link SnapshotId#ABSENT} if no table)
   */
  SnapshotId forEachSilverKeyInFiles(
      TableId table, Map<String, List<ArtifactKey>> known, BiConsumer<String, ArtifactKey> keys)
      throws IOException;

  /**
   * One commit of a table's log, as a key index needs it: the {@value #APP_ID} txn version it
   * records ({@link #NO_VERSION} if none), whether every file action in it says {@code dataChange
   * = false} (a compaction, an OPTIMIZE: rows moved, none added or removed), and the paths of the
   * files it adds and removes, relative to the table root (as in {@link DataFile#relativePath()}).
   */
  record LogCommit(
      long version,
      long txnVersion,
      boolean rearrangesOnly,
      List<String> added,
      List<String> removed) {
    public LogCommit {
      added = List.copyOf(added);
      removed = List.copyOf(removed);
    }
  }

  /**
   * The commits of log versions {@code (after, upTo]}, in version order, read from their commit
   * files only; empty if one of them is no longer in the log or names a file outside the table (and
   * for a client that cannot read logs: the caller then reads the table instead).
   */
  default Optional<List<LogCommit>> commits(TableId table, long after, long upTo)
      throws IOException {
    return Optional.empty();
  }

  /**
   * Like {@link #forEachSilverKeyInFiles}, for the named data files only (paths relative to the
   * table root): those of them that are live in the table's latest snapshot are read (their two
   * key columns), and the others are left out.
   *
   * @return the named files that were live, and read
   */
  default Set<String> forEachKeyInLiveFiles(
      TableId table, Set<String> relativePaths, BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    return Set.of();
  }

  /**
   * Which of the named data files (paths relative to the table root) are live in the table's
   * latest snapshot, with the details of their add actions, and that snapshot. Reads the log only,
   * never a data file. An absent table has no live file.
   *
   * @throws TableUnusableException if rewriting the table's files could lose data (as {@link
   *     #filesThatMayHold}), or a named live file has a deletion vector
   */
  LiveFiles liveFiles(TableId table, Collection<String> relativePaths) throws IOException;

  /**
   * Which of {@code seqs} the table's latest snapshot holds. Files are pruned by their statistics
   * on {@code seq} (the range of the asked seqs), and only the {@code seq} column of the remaining
   * files is read. An absent table holds none.
   */
  Set<Long> seqsHeld(TableId table, Collection<Long> seqs) throws IOException;

  /**
   * The table's live data files smaller than {@code maxBytes}, without deletion vectors, with the
   * details of their add actions, and the snapshot they were read from: what a compaction may
   * rewrite. Reads the log only. An absent table has none.
   *
   * @throws TableUnusableException if rewriting the table's files could lose data (as {@link
   *     #filesThatMayHold})
   */
  default LiveFiles smallFiles(TableId table, long maxBytes) throws IOException {
    throw new UnsupportedOperationException(getClass().getName() + " does not compact");
  }

  /**
   * A compaction: one Delta commit that removes {@code removes} and adds {@code adds} (written by
   * {@link #writeDataFiles} from exactly the removed files' rows), every action with {@code
   * dataChange = false}, and <b>no txn action</b>: the table's txn version for {@value #APP_ID} is
   * left as it is, so exactly-once and a pending rewrite's base check are untouched.
   *
   * @return false, committing nothing, if a file to remove is no longer live (a data commit or
   *     another compaction replaced it first): the added files are then orphans for VACUUM
   */
  default boolean commitCompaction(TableId table, List<DataFile> removes, List<DataFile> adds)
      throws IOException {
    throw new UnsupportedOperationException(getClass().getName() + " does not compact");
  }

  /**
   * Replaces the table's whole content (issue 15, {@code maintain rebuild-gold}): one Delta commit
   * that removes every live data file and adds {@code adds} (written by {@link #writeDataFiles},
   * which creates a missing table), every action with {@code dataChange = true}. It carries {@code
   * txn(}{@value #APP_ID}{@code , txnVersion)} when {@code txnVersion} is above the table's recorded
   * version, and no txn action when it equals it (Kernel refuses a txn action at the recorded
   * version). No conflict retry: a commit by anyone else in between fails it.
   *
   * @return the table version committed
   * @throws TableUnusableException if the table records a txn version above {@code txnVersion}
   */
  default long replaceContent(TableId table, long txnVersion, List<DataFile> adds)
      throws IOException {
    throw new UnsupportedOperationException(getClass().getName() + " does not replace content");
  }

  /**
   * Writes a Delta log checkpoint of the table's latest version (one that exists already is
   * fine), so that the next snapshot load reads it instead of replaying every commit.
   *
   * @return the checkpointed table version, or {@link #NO_VERSION} for an absent table
   */
  default long checkpoint(TableId table) throws IOException {
    throw new UnsupportedOperationException(getClass().getName() + " does not checkpoint");
  }

  /**
   * Tags every later commit of this client: the tag goes into each Delta commit's {@code
   * commitInfo} (as part of its {@code engineInfo}), so the log shows which leader-lease holder
   * wrote what, e.g. {@code lease-epoch=3 lease-holder=host/4242/9f0c11aa}. Empty for none.
   */
  default void tagCommits(String tag) {}

  @Override
  void close() throws IOException;
}
