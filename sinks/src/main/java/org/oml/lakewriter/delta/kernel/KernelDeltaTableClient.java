package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.expressions.And;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SetTransaction;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.transaction.UpdateTableTransactionBuilder;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.log.TableLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeltaTableClient} on Delta Kernel 4.4.0's default engine.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Every data commit carries {@code txn(oml-lakewriter, batchEnd)} and is built from a
 *       snapshot whose recorded txn version is below {@code batchEnd}; a commit that loses the
 *       race for the next log version is checked again on the winner's snapshot, and reported as
 *       {@link CommitOutcome#ALREADY_APPLIED} if the winner recorded a txn version at or above ours.
 *   <li>A data commit applies no event at or below the table's recorded txn version: one whose
 *       first event is not above it is refused, and one that loses the race for a log version is
 *       checked again on the winner's snapshot, never rebased over it by Kernel.
 *   <li>Only tables whose columns equal {@code LakeSchemas} are written or committed to, and only
 *       tables whose txn actions cannot expire (no {@code delta.setTransactionRetentionDuration}).
 *   <li>A commit never names a data file that is not there (it would make the table unreadable).
 *   <li>A commit that removes files (a copy-on-write MERGE) is made only on the table state its
 *       rewrite was planned on: the txn version it names, with every file it replaces still live.
 *       Its remove actions are rebuilt at commit time from those live files' add actions, with
 *       Kernel's internal action classes ({@code AddFile}, {@code SingleAction}), which are used
 *       nowhere else.
 *   <li>Only files without deletion vectors, in tables without column mapping, append-only or
 *       change data feed, are rewritten: a copy of anything else would not be the same rows.
 * </ul>
 *
 * <p>Snapshots come from the lake's {@link SnapshotCache}, shared with the other clients of the
 * same lake in this JVM (the sink's writer and committer): a table's log is listed and replayed
 * once, then reused as long as the log has no newer version (one existence check per use).
 *
 * <p>Not thread-safe, with one exception: {@link #commit} and {@link #commitRewrite} may run
 * concurrently for distinct tables (the committer commits a unit's tenants in parallel). One
 * instance per writer or committer.
 */
public final class KernelDeltaTableClient implements DeltaTableClient {
  private static final Logger LOG = LoggerFactory.getLogger(KernelDeltaTableClient.class);
  static final String ENGINE_INFO = "oml-lakewriter/0.1";

  /** Conflict retries within one commit; the committer retries the whole call on top. */
  private static final int MAX_COMMIT_RETRIES = 10;

  private final Engine engine;
  private final String lakeRoot;

  /** {@link LakeConfig#logCheckpointInterval}, as the table property's value. */
  private final String checkpointInterval;

  /** The versions of a table whose commit writes a log checkpoint. */
  private final LogCheckpointSchedule checkpoints;

  /** {@link LakeConfig#logCompactionInterval}: 0 writes no log compaction files. */
  private final int logCompactionInterval;

  /**
   * Runs the log compaction hooks and {@link LogCleanup} off the commit path (on object storage a
   * cleanup is up to a thousand DELETEs), one at a time, in the order queued; made on first use,
   * drained by {@link #close}. What does not fit in the queue is skipped: a reader then replays
   * those commits, and the next log checkpoint cleans up again.
   */
  private ExecutorService background;

  private static final int BACKGROUND_QUEUE = 10_000;

  /** The tables whose log cleanup is queued and not yet started: each is queued once. */
  private final Set<String> logCleanupQueued = ConcurrentHashMap.newKeySet();

  /** {@link #ENGINE_INFO} plus the leader-lease tag: Kernel writes it into commitInfo. */
  private String commitEngineInfo = ENGINE_INFO;

  /**
   * What writing a table's files needs from Kernel, per table, worked out once: it is fixed for our
   * schema and properties, and Kernel parses the schema from the state on every call.
   */
  private final Map<TableId, WriteSetup> writeSetups = new ConcurrentHashMap<>();
  private final Map<TableId, DataWriteContext> writeContexts = new ConcurrentHashMap<>();

  /**
   * The latest snapshot of each table, shared with the lake's other clients; our own commits'
   * snapshots go into it, and every failure drops the table's entry, so a retry starts from the
   * lake.
   */
  private final SnapshotCache snapshots;

  /** {@link #snapshots} is released once, by the first {@link #close}. */
  private boolean closed;

  /** Runs just before a compaction's Delta commit: tests make a commit race it there. */
  private Runnable beforeCompactionCommit = () -> {};

  /**
   * Write the data files of batches Kernel's {@code transformLogicalData} leaves unchanged, with
   * one configuration for all files; null to write every file with Kernel's own writer. A writer
   * is not thread-safe (its codec factory's compressors are reused): each write borrows an idle
   * one, or makes one, and gives it back, so the writer's parallel tenants each have their own.
   */
  private final Queue<SharedConfParquetWriter> parquetWriters;

  /** The engine's Hadoop configuration: for the Parquet writers, and to read commit files. */
  private final Configuration conf;

  private final HadoopFileIO fileIO;

  /** Reads back the data files a MERGE, a compaction or gold rewrites. */
  private final ColumnParquetReader columnReader;
  /** Copy-on-write rewrites that copied the old file's unchanged column chunks. */
  private final AtomicLong columnChunkRewrites = new AtomicLong();
  /** Data files whose key columns were read for a key index (not taken from saved keys). */
  private final AtomicLong keyFilesRead = new AtomicLong();

  public KernelDeltaTableClient(LakeConfig config) throws IOException {
    this(config, true, true);
  }

  /** {@code sharedConfWriter} false: every file through Kernel's writer (the parity tests). */
  KernelDeltaTableClient(LakeConfig config, boolean sharedConfWriter) throws IOException {
    this(config, sharedConfWriter, true);
  }

  /**
   * @param sharedConfWriter false: every file through Kernel's writer (the parity tests)
   * @param sharedSnapshots false: a snapshot cache of this client's own, shared with no other
   */
  KernelDeltaTableClient(LakeConfig config, boolean sharedConfWriter, boolean sharedSnapshots)
      throws IOException {
    Configuration conf = KernelEngines.hadoopConf(config);
    this.conf = conf;
    HadoopFileIO fileIO = new HadoopFileIO(conf);
    this.engine = KernelEngines.writingEngine(fileIO, conf);
    this.lakeRoot = KernelEngines.qualifiedRoot(config, conf);
    this.checkpointInterval = Integer.toString(config.logCheckpointInterval());
    this.checkpoints =
        new LogCheckpointSchedule(
            config.logCheckpointInterval(), config.logCheckpointsStaggered());
    this.logCompactionInterval = config.logCompactionInterval();
    this.fileIO = fileIO;
    this.columnReader = new ColumnParquetReader(conf);
    this.parquetWriters = sharedConfWriter ? new ConcurrentLinkedQueue<>() : null;
    if (sharedConfWriter) {
      parquetWriters.add(new SharedConfParquetWriter(conf, fileIO));
    }
    this.snapshots =
        sharedSnapshots ? SnapshotCache.acquire(config) : SnapshotCache.unshared(config);
  }

  /** Tests: {@code hook} runs just before each compaction's Delta commit. */
  void beforeCompactionCommit(Runnable hook) {
    this.beforeCompactionCommit = hook;
  }

  /** Full snapshot loads made through this client's cache (shared: by all its clients). */
  long snapshotLoads() {
    return snapshots.loads();
  }

  /** Passes over a table's log for its live files, through this client's cache. */
  long liveScans() {
    return snapshots.liveScans();
  }

  /** Rewrites made by copying the unchanged column chunks ({@link #rewriteDataFile}), for tests. */
  public long columnChunkRewrites() {
    return columnChunkRewrites.get();
  }

  /** Data files whose key columns a key index read through the column reader, for tests. */
  public long keyFilesRead() {
    return keyFilesRead.get();
  }

  /** The table's root URI, e.g. {@code file:/lake/acme/silver/memories}. */
  public String tablePath(TableId table) {
    return lakeRoot + "/" + table.relativePath();
  }

  @Override
  public long readTxnVersion(TableId table) throws IOException {
    return call(
        table, () -> latest(table).map(s -> trustedTxnVersion(table, s)).orElse(NO_VERSION));
  }

  /** The snapshot's txn version, from a table on which it cannot expire. */
  private long trustedTxnVersion(TableId table, SnapshotCache.Cached cached) {
    KernelSchemas.requireTxnNeverExpires(table, cached.snapshot().getTableProperties());
    return cached.txnVersion(engine);
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
    return call(table, () -> write(table, rows));
  }

  @Override
  public Optional<List<DataFile>> rewriteDataFile(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after)
      throws IOException {
    return call(table, () -> rewrite(table, file, before, after));
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    return call(table, () -> commitFiles(table, batchEnd, TableCommit.UNCHECKED, files, null));
  }

  @Override
  public CommitOutcome commitEvents(
      TableId table, long batchEnd, long firstSeq, List<DataFile> files, Rewrite rewrite)
      throws IOException {
    return call(table, () -> commitFiles(table, batchEnd, firstSeq, files, rewrite));
  }

  @Override
  public CandidateFiles filesThatMayHold(TableId table, Collection<ArtifactKey> keys)
      throws IOException {
    return call(table, () -> candidates(table, keys));
  }

  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
    return call(table, () -> read(table, file, null));
  }

  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns)
      throws IOException {
    return call(table, () -> read(table, file, columns));
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
    return call(
        table, () -> commitFiles(table, batchEnd, TableCommit.UNCHECKED, files, rewrite));
  }

  @Override
  public SnapshotId snapshotId(TableId table) throws IOException {
    return call(
        table,
        () ->
            latest(table)
                .map(s -> new SnapshotId(s.version(), s.txnVersion(engine)))
                .orElse(SnapshotId.ABSENT));
  }

  @Override
  public SnapshotId forEachSilverKey(TableId table, Consumer<ArtifactKey> keys)
      throws IOException {
    return call(table, () -> forEachKey(table, null, Map.of(), (file, key) -> keys.accept(key)));
  }

  @Override
  public Set<Long> seqsHeld(TableId table, Collection<Long> seqs) throws IOException {
    return call(table, () -> held(table, seqs));
  }

  @Override
  public SnapshotId forEachSilverKeyInFiles(
      TableId table, Map<String, List<ArtifactKey>> known, BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    return call(table, () -> forEachKey(table, null, known, keys));
  }

  @Override
  public Optional<List<LogCommit>> commits(TableId table, long after, long upTo)
      throws IOException {
    return call(table, () -> logCommits(table, after, upTo));
  }

  @Override
  public Set<String> forEachKeyInLiveFiles(
      TableId table, Set<String> relativePaths, BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    return call(table, () -> keysInLiveFiles(table, relativePaths, keys));
  }

  @Override
  public LiveFiles smallFiles(TableId table, long maxBytes) throws IOException {
    return call(table, () -> small(table, maxBytes));
  }

  @Override
  public boolean commitCompaction(TableId table, List<DataFile> removes, List<DataFile> adds)
      throws IOException {
    return call(
        table,
        () -> {
          try {
            return committing(table, () -> compactOn(table, removes, adds));
          } catch (IOException | RuntimeException e) {
            snapshots.invalidate(tablePath(table));
            throw e;
          }
        });
  }

  @Override
  public long replaceContent(TableId table, long txnVersion, List<DataFile> adds)
      throws IOException {
    return call(
        table,
        () -> {
          try {
            return committing(table, () -> replaceOn(table, txnVersion, adds));
          } catch (IOException | RuntimeException e) {
            snapshots.invalidate(tablePath(table));
            throw e;
          }
        });
  }

  @Override
  public long checkpoint(TableId table) throws IOException {
    return call(
        table,
        () -> {
          Optional<SnapshotCache.Cached> loaded = latest(table);
          if (loaded.isEmpty()) {
            return NO_VERSION;
          }
          Snapshot snapshot = loaded.get().snapshot();
          try {
            snapshot.writeCheckpoint(engine);
            LOG.info("{} log checkpoint written at version {}", table, snapshot.getVersion());
          } catch (io.delta.kernel.exceptions.CheckpointAlreadyExistsException e) {
            LOG.info("{} already has a log checkpoint at version {}", table, snapshot.getVersion());
          }
          cleanUpLog(table, snapshot);
          // The next load starts from the checkpoint rather than the cached replay.
          snapshots.invalidate(tablePath(table));
          return snapshot.getVersion();
        });
  }

  @Override
  public LiveFiles liveFiles(TableId table, Collection<String> relativePaths) throws IOException {
    return call(table, () -> live(table, relativePaths));
  }

  @Override
  public void tagCommits(String tag) {
    commitEngineInfo = tag == null || tag.isBlank() ? ENGINE_INFO : ENGINE_INFO + " " + tag;
  }

  @Override
  public synchronized void close() {
    writeSetups.clear();
    writeContexts.clear();
    if (!closed) {
      closed = true;
      snapshots.release();
      if (background != null) {
        background.shutdown();
        try {
          if (!background.awaitTermination(1, TimeUnit.MINUTES)) {
            background.shutdownNow(); // the next log checkpoint cleans up what is left
          }
        } catch (InterruptedException e) {
          background.shutdownNow();
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Runs the commit's post-commit hooks, and queues its log compaction and, after a log
   * checkpoint, the log cleanup on the background thread; returns whether it wrote a log
   * checkpoint.
   */
  private boolean runHooks(TableId table, long batchEnd, TransactionCommitResult result) {
    PostCommitHooks.Deferred later =
        PostCommitHooks.run(
            engine,
            table,
            tablePath(table),
            batchEnd,
            result,
            checkpoints.due(table, result.getVersion()));
    for (PostCommitHook hook : later.logCompactions()) {
      background(
          () -> PostCommitHooks.invoke(engine, table, batchEnd, result.getVersion(), hook),
          () ->
              LOG.info(
                  "{}: log compaction of version {} skipped, the background queue is full",
                  table,
                  result.getVersion()));
    }
    if (later.checkpointed()) {
      result.getPostCommitSnapshot().ifPresent(after -> cleanUpLog(table, after));
    }
    return later.checkpointed();
  }

  /** Queues {@link LogCleanup} for {@code table}, whose properties are {@code snapshot}'s. */
  private void cleanUpLog(TableId table, Snapshot snapshot) {
    String path = tablePath(table);
    if (!logCleanupQueued.add(path)) {
      return;
    }
    background(
        () -> {
          logCleanupQueued.remove(path);
          try {
            LogCleanup.run(
                engine,
                path,
                table,
                snapshot,
                System.currentTimeMillis(),
                LogCleanup.MAX_DELETES_PER_RUN);
          } catch (IOException | RuntimeException e) {
            LOG.warn("{}: log cleanup failed; the next log checkpoint tries again", table, e);
          }
        },
        () -> logCleanupQueued.remove(path));
  }

  /** Runs {@code task} on the background thread, or {@code refused} if it cannot be queued. */
  private void background(Runnable task, Runnable refused) {
    try {
      backgroundExecutor().execute(task);
    } catch (RejectedExecutionException e) { // the queue is full, or the client closed
      refused.run();
    }
  }

  private synchronized ExecutorService backgroundExecutor() {
    if (background == null) {
      background =
          new ThreadPoolExecutor(
              1,
              1,
              0,
              TimeUnit.MILLISECONDS,
              new LinkedBlockingQueue<>(BACKGROUND_QUEUE),
              r -> {
                Thread t = new Thread(r, "delta-log-background");
                t.setDaemon(true);
                return t;
              });
    }
    return background;
  }

  private List<DataFile> write(TableId table, List<TableRow> rows) throws IOException {
    WriteSetup setup = writeSetup(table);
    StructType schema = KernelSchemas.structOf(table.kind());
    DataWriteContext context = setup.context();
    List<DataFile> files = new ArrayList<>();
    if (parquetWriters != null && setup.passesThrough()) {
      SharedConfParquetWriter writer = parquetWriters.poll();
      if (writer == null) {
        writer = new SharedConfParquetWriter(conf, fileIO);
      }
      try {
        for (DataFileStatus status :
            writer.write(
                context.getTargetDirectory(), schema, rows, context.getStatisticsColumns())) {
          files.add(toDataFile(table, schema, status));
        }
      } finally {
        parquetWriters.add(writer);
      }
      return files;
    }
    try (CloseableIterator<DataFileStatus> written =
        engine
            .getParquetHandler()
            .writeParquetFiles(
                context.getTargetDirectory(),
                transform(setup.state(), new RowBatch(schema, rows)),
                context.getStatisticsColumns())) {
      while (written.hasNext()) {
        files.add(toDataFile(table, schema, written.next()));
      }
    }
    return files;
  }

  /**
   * With the shared writer, the unchanged column chunks of the old file are copied ({@link
   * SharedConfParquetWriter#rewrite}); empty without it, or for a file it does not lay out.
   */
  private Optional<List<DataFile>> rewrite(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after)
      throws IOException {
    WriteSetup setup = writeSetup(table);
    if (parquetWriters == null || !setup.passesThrough()) {
      return Optional.empty();
    }
    StructType schema = KernelSchemas.structOf(table.kind());
    DataWriteContext context = setup.context();
    SharedConfParquetWriter writer = parquetWriters.poll();
    if (writer == null) {
      writer = new SharedConfParquetWriter(conf, fileIO);
    }
    Optional<DataFileStatus> status;
    try {
      status =
          writer.rewrite(
              context.getTargetDirectory(),
              schema,
              absolutePath(table, file),
              file.sizeBytes(),
              before,
              after,
              context.getStatisticsColumns());
    } catch (FileNotFoundException e) {
      throw gone(table, absolutePath(table, file), "that holds rows to merge", e);
    } finally {
      parquetWriters.add(writer);
    }
    if (status.isEmpty()) {
      return Optional.empty();
    }
    columnChunkRewrites.incrementAndGet();
    return Optional.of(List.of(toDataFile(table, schema, status.get())));
  }

  private CandidateFiles candidates(TableId table, Collection<ArtifactKey> keys) {
    Optional<SnapshotCache.Cached> loaded = latest(table);
    if (loaded.isEmpty()) {
      return new CandidateFiles(NO_VERSION, List.of());
    }
    Snapshot snapshot = loaded.get().snapshot();
    requireOurColumns(table, snapshot);
    KernelSchemas.requireRewritable(table, snapshot.getTableProperties());
    List<DataFile> files = new ArrayList<>();
    if (!keys.isEmpty()) {
      Scan scan = snapshot.getScanBuilder().withFilter(KeyPredicates.anyOf(keys)).build();
      forEachScanFile(scan, scanFile -> files.add(candidate(table, scanFile)));
    }
    return new CandidateFiles(loaded.get().txnVersion(engine), files);
  }

  /** See {@link #commits}: the commit files read one by one, their paths made relative. */
  private Optional<List<LogCommit>> logCommits(TableId table, long after, long upTo)
      throws IOException {
    TableLog log = TableLog.open(conf, tablePath(table));
    List<LogCommit> commits = new ArrayList<>();
    for (long version = after + 1; version <= upTo; version++) {
      Optional<TableLog.Commit> commit = log.commit(version);
      if (commit.isEmpty()) {
        return Optional.empty();
      }
      List<String> added = new ArrayList<>();
      List<String> removed = new ArrayList<>();
      try {
        for (TableLog.FileAction a : commit.get().adds()) {
          added.add(relativeTo(table, log.resolve(a.path()).toString()));
        }
        for (TableLog.FileAction r : commit.get().removes()) {
          removed.add(relativeTo(table, log.resolve(r.path()).toString()));
        }
      } catch (IllegalArgumentException | IllegalStateException e) {
        LOG.info(
            "{} log version {} names a file outside the table: {}", table, version, e.getMessage());
        return Optional.empty();
      }
      commits.add(
          new LogCommit(
              version,
              commit.get().txnVersion() < 0 ? NO_VERSION : commit.get().txnVersion(),
              commit.get().rearrangesOnly(),
              added,
              removed));
    }
    return Optional.of(commits);
  }

  private Set<String> keysInLiveFiles(
      TableId table, Set<String> relativePaths, BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    Set<String> read = new HashSet<>();
    if (relativePaths.isEmpty()) {
      return read;
    }
    forEachKey(
        table,
        relativePaths::contains,
        Map.of(),
        (path, key) -> {
          read.add(path);
          keys.accept(path, key);
        });
    return read;
  }

  /**
   * The keys of the live rows of the latest snapshot's files whose relative path {@code files}
   * accepts (null: every file), with that path; only the two key columns of those files are read,
   * and none of a file whose keys {@code known} gives.
   */
  private SnapshotId forEachKey(
      TableId table,
      java.util.function.Predicate<String> files,
      Map<String, List<ArtifactKey>> known,
      BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    if (!ArtifactKey.keys(table.kind())) {
      throw new IllegalArgumentException(table + " has no artifact keys");
    }
    Optional<SnapshotCache.Cached> loaded = latest(table);
    if (loaded.isEmpty()) {
      return SnapshotId.ABSENT;
    }
    Snapshot snapshot = loaded.get().snapshot();
    requireOurColumns(table, snapshot);
    SnapshotId id = new SnapshotId(snapshot.getVersion(), loaded.get().txnVersion(engine));
    if (keysByColumnReader(table, loaded.get(), files, known, keys)) {
      return id;
    }
    Scan scan =
        snapshot.getScanBuilder().withReadSchema(columns(table, "artifact_id", "version")).build();
    String[] current = {null, null}; // the scan's absolute path, and that path made relative
    ProjectedScan.forEachRowOfFile(
        engine,
        scan,
        files == null ? path -> true : path -> files.test(relativeTo(table, path)),
        (path, data, row) -> {
          if (path != current[0]) {
            current[0] = path;
            current[1] = relativeTo(table, path);
          }
          ColumnVector ids = data.getColumnVector(0);
          ColumnVector version = data.getColumnVector(1);
          if (!ids.isNullAt(row) && !version.isNullAt(row)) {
            keys.accept(current[1], new ArtifactKey(ids.getString(row), version.getLong(row)));
          }
        });
    return id;
  }

  private static final Set<String> KEY_COLUMNS = Set.of("artifact_id", "version");

  /**
   * {@link #forEachKey} through the column reader, file by file from the snapshot's live-file
   * index, as the copy-on-write reads files: a key index rebuilt after a start reads every live
   * file of its table, and Kernel's scan read each file's footer twice and converted every row
   * (stop 53: 70% of the writer's first minute after a restart at 512 tenants). False, with
   * nothing handed to {@code keys}, if a file has a deletion vector (its deleted rows must not
   * count) or a layout the reader does not read exactly (column mapping, another writer's
   * types): then Kernel's scan reads the table.
   */
  private boolean keysByColumnReader(
      TableId table,
      SnapshotCache.Cached loaded,
      java.util.function.Predicate<String> files,
      Map<String, List<ArtifactKey>> known,
      BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    List<LiveFileIndex.Entry> wanted = new ArrayList<>();
    for (LiveFileIndex.Entry file : liveIndex(table, loaded).entries()) {
      if (files == null || files.test(file.relativePath())) {
        if (file.hasDeletionVector()) {
          return false;
        }
        wanted.add(file);
      }
    }
    TableSchema schema = LakeSchemas.of(table.kind());
    Map<String, List<ArtifactKey>> found = new LinkedHashMap<>();
    for (LiveFileIndex.Entry file : wanted) {
      List<ArtifactKey> saved = known.get(file.relativePath());
      if (saved != null) {
        found.put(file.relativePath(), saved);
        continue;
      }
      String path = absolutePath(table, file.relativePath());
      Optional<List<TableRow>> rows;
      keyFilesRead.incrementAndGet();
      try {
        rows = columnReader.read(schema, path, file.size(), KEY_COLUMNS);
      } catch (FileNotFoundException e) {
        throw gone(table, path, "that holds keys of the table's index", e);
      }
      if (rows.isEmpty()) {
        return false;
      }
      List<ArtifactKey> inFile = new ArrayList<>(rows.get().size());
      for (TableRow row : rows.get()) {
        ArtifactKey key = ArtifactKey.of(table.kind(), row);
        if (key != null) {
          inFile.add(key);
        }
      }
      found.put(file.relativePath(), inFile);
    }
    found.forEach((path, inFile) -> inFile.forEach(key -> keys.accept(path, key)));
    return true;
  }

  /** The named live files, from the snapshot's live-file index; no data file read. */
  private LiveFiles live(TableId table, Collection<String> relativePaths) {
    Optional<SnapshotCache.Cached> loaded = latest(table);
    if (loaded.isEmpty()) {
      return new LiveFiles(SnapshotId.ABSENT, Map.of());
    }
    Snapshot snapshot = loaded.get().snapshot();
    requireOurColumns(table, snapshot);
    KernelSchemas.requireRewritable(table, snapshot.getTableProperties());
    Map<String, DataFile> found = new HashMap<>();
    if (!relativePaths.isEmpty()) {
      LiveFileIndex index = liveIndex(table, loaded.get());
      for (String path : new HashSet<>(relativePaths)) {
        LiveFileIndex.Entry entry = index.get(path);
        if (entry != null) {
          found.put(path, candidate(table, entry));
        }
      }
    }
    return new LiveFiles(
        new SnapshotId(snapshot.getVersion(), loaded.get().txnVersion(engine)), found);
  }

  /** The live files below {@code maxBytes} without a deletion vector, from the live-file index. */
  private LiveFiles small(TableId table, long maxBytes) {
    Optional<SnapshotCache.Cached> loaded = latest(table);
    if (loaded.isEmpty()) {
      return new LiveFiles(SnapshotId.ABSENT, Map.of());
    }
    Snapshot snapshot = loaded.get().snapshot();
    requireOurColumns(table, snapshot);
    KernelSchemas.requireRewritable(table, snapshot.getTableProperties());
    Map<String, DataFile> found = new LinkedHashMap<>();
    for (LiveFileIndex.Entry entry : liveIndex(table, loaded.get()).entries()) {
      if (entry.size() < maxBytes && !entry.hasDeletionVector()) {
        found.put(entry.relativePath(), candidate(table, entry));
      }
    }
    return new LiveFiles(
        new SnapshotId(snapshot.getVersion(), loaded.get().txnVersion(engine)), found);
  }

  /**
   * The live files of {@code cached}'s snapshot: carried over from our commit that made it, or one
   * pass over its log on first use.
   */
  private LiveFileIndex liveIndex(TableId table, SnapshotCache.Cached cached) {
    return snapshots.live(
        cached,
        () -> {
          LiveFileIndex.Builder index = new LiveFileIndex.Builder();
          forEachScanFile(
              cached.snapshot().getScanBuilder().build(),
              scanFile ->
                  index.add(
                      relativeTo(table, InternalScanFileUtils.getAddFileStatus(scanFile).getPath()),
                      scanFile.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)));
          return index.build();
        });
  }

  /**
   * One commit that replaces {@code removes} by {@code adds}, all with {@code dataChange = false}
   * and without a txn action (Kernel refuses a txn action at the version already recorded, and a
   * higher one would claim a batch that never came): the table's txn version stays as it is.
   * Nothing is committed if a file to remove is no longer live.
   *
   * <p>The compactor runs on a thread of its own, beside the committer's data commits to the same
   * tables. A compaction that loses the race for the next log version is checked and made again on
   * the winner's snapshot (the files to remove still live, the txn version read again), at most
   * {@link #MAX_COMMIT_RETRIES} times, never rebased by Kernel: a rebased commit's post-commit
   * snapshot would go into the cache with the txn version read before the winner's batch, and a
   * replay of that batch would then look unapplied.
   */
  private boolean compactOn(TableId table, List<DataFile> removes, List<DataFile> adds)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return compactOnce(table, removes, adds);
      } catch (MaxCommitRetryLimitReachedException e) {
        snapshots.invalidate(tablePath(table));
        if (!lostTheRace(e)) {
          throw e;
        }
        if (attempt >= MAX_COMMIT_RETRIES) {
          LOG.info(
              "{} compaction abandoned: another commit took the log version first {} times",
              table,
              attempt);
          return false;
        }
        LOG.debug("{} compaction: another commit took the log version first; checking again", table);
      }
    }
  }

  private boolean compactOnce(TableId table, List<DataFile> removes, List<DataFile> adds)
      throws IOException {
    SnapshotCache.Cached latest =
        latest(table)
            .orElseThrow(() -> new TableUnusableException(table, "vanished while compacting", null));
    Snapshot snapshot = latest.snapshot();
    requireOurColumns(table, snapshot);
    KernelSchemas.requireRewritable(table, snapshot.getTableProperties());
    long recorded = latest.txnVersion(engine);
    Map<String, DataFile> wanted = new LinkedHashMap<>();
    removes.forEach(f -> wanted.put(f.relativePath(), f));
    List<Row> actions = removeActionsOfLive(table, latest, wanted, false);
    if (!wanted.isEmpty()) {
      LOG.info(
          "{} compaction abandoned: {} of its files are no longer live at table version {}",
          table,
          wanted.size(),
          snapshot.getVersion());
      return false;
    }
    StructType schema = KernelSchemas.structOf(table.kind());
    Transaction txn =
        withLogCompaction(
                snapshot
                    .buildUpdateTableTransaction(
                        commitEngineInfo + " compaction", Operation.MANUAL_UPDATE)
                    .withMaxRetries(0))
            .build(engine);
    Row state = txn.getTransactionState(engine);
    DataWriteContext context = writeContext(table, state);
    List<Row> added = new ArrayList<>(adds.size());
    try (CloseableIterator<Row> appends =
        Transaction.generateAppendActions(
            engine, state, KernelEngines.iterator(statusesOf(table, adds)), context)) {
      appends.forEachRemaining(action -> added.add(withoutDataChange(action, schema)));
    }
    actions.addAll(added);
    beforeCompactionCommit.run();
    TransactionCommitResult result =
        txn.commit(engine, CloseableIterable.inMemoryIterable(KernelEngines.iterator(actions)));
    LOG.info(
        "{} compacted at version {}: {} files replaced by {} (txn version stays {})",
        table,
        result.getVersion(),
        removes.size(),
        adds.size(),
        recorded);
    boolean checkpointed = runHooks(table, recorded, result);
    remember(table, result, checkpointed, recorded, changes(removes, adds, added));
    return true;
  }

  /**
   * One commit that removes every live file of the table and adds {@code adds}, with {@code
   * dataChange = true}; with {@code txn(oml-lakewriter, txnVersion)} only when that is above the
   * recorded version. No conflict retry: Kernel would rebase our commit over a concurrent append,
   * whose rows would then survive the replacement.
   */
  private long replaceOn(TableId table, long txnVersion, List<DataFile> adds) throws IOException {
    SnapshotCache.Cached latest =
        latest(table)
            .orElseThrow(
                () ->
                    new TableUnusableException(
                        table, "is missing: its files must be written first (that creates it)",
                        null));
    Snapshot snapshot = latest.snapshot();
    requireOurColumns(table, snapshot);
    KernelSchemas.requireRewritable(table, snapshot.getTableProperties());
    long recorded = trustedTxnVersion(table, latest);
    if (recorded > txnVersion) {
      throw new TableUnusableException(
          table,
          "records txn version "
              + recorded
              + ", above the "
              + txnVersion
              + " its replacement was built for; replacing it would move its txn version back",
          null);
    }
    List<Row> actions = new ArrayList<>();
    Long deletionTimestamp = System.currentTimeMillis();
    forEachScanFile(
        snapshot.getScanBuilder().build(),
        scanFile -> {
          AddFile add = new AddFile(scanFile.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
          actions.add(
              SingleAction.createRemoveFileSingleAction(
                  add.toRemoveFileRow(true, Optional.of(deletionTimestamp))));
        });
    int removed = actions.size();
    UpdateTableTransactionBuilder builder =
        withLogCompaction(
            snapshot
                .buildUpdateTableTransaction(commitEngineInfo + " replace", Operation.MANUAL_UPDATE)
                .withMaxRetries(0));
    if (txnVersion > recorded) {
      builder = builder.withTransactionId(APP_ID, txnVersion);
    }
    Transaction txn = builder.build(engine);
    Row state = txn.getTransactionState(engine);
    DataWriteContext context = writeContext(table, state);
    try (CloseableIterator<Row> appends =
        Transaction.generateAppendActions(
            engine, state, KernelEngines.iterator(statusesOf(table, adds)), context)) {
      appends.forEachRemaining(actions::add);
    }
    TransactionCommitResult result =
        txn.commit(engine, CloseableIterable.inMemoryIterable(KernelEngines.iterator(actions)));
    long after = Math.max(recorded, txnVersion);
    LOG.info(
        "{} content replaced at version {}: {} files removed, {} added, txn version {}",
        table,
        result.getVersion(),
        removed,
        adds.size(),
        after);
    remember(table, result, runHooks(table, after, result), after);
    return result.getVersion();
  }

  /** An add action of Kernel's append path, as the same add with {@code dataChange = false}. */
  private static Row withoutDataChange(Row singleAction, StructType schema) {
    AddFile add = new AddFile(singleAction.getStruct(SingleAction.ADD_FILE_ORDINAL));
    return SingleAction.createAddFileSingleAction(
        AddFile.createAddFileRow(
            schema,
            add.getPath(),
            add.getPartitionValues(),
            add.getSize(),
            add.getModificationTime(),
            false,
            add.getDeletionVector(),
            add.getTags(),
            add.getBaseRowId(),
            add.getDefaultRowCommitVersion(),
            add.getStats(schema)));
  }

  private Set<Long> held(TableId table, Collection<Long> seqs) throws IOException {
    if (seqs.isEmpty()) {
      return Set.of();
    }
    Optional<SnapshotCache.Cached> loaded = latest(table);
    if (loaded.isEmpty()) {
      return Set.of();
    }
    Snapshot snapshot = loaded.get().snapshot();
    requireOurColumns(table, snapshot);
    Set<Long> wanted = new HashSet<>(seqs);
    Predicate range =
        new And(
            new Predicate(">=", new Column("seq"), Literal.ofLong(Collections.min(wanted))),
            new Predicate("<=", new Column("seq"), Literal.ofLong(Collections.max(wanted))));
    Scan scan =
        snapshot.getScanBuilder().withFilter(range).withReadSchema(columns(table, "seq")).build();
    Set<Long> found = new HashSet<>();
    ProjectedScan.forEachRow(
        engine,
        scan,
        (data, row) -> {
          ColumnVector seq = data.getColumnVector(0);
          if (!seq.isNullAt(row) && wanted.contains(seq.getLong(row))) {
            found.add(seq.getLong(row));
          }
        });
    return found;
  }

  /** A read schema of some of our columns, as the table declares them. */
  private static StructType columns(TableId table, String... names) {
    StructType all = KernelSchemas.structOf(table.kind());
    StructType read = new StructType();
    for (String name : names) {
      read = read.add(all.get(name));
    }
    return read;
  }

  private DataFile candidate(TableId table, Row scanFile) {
    return candidate(
        table,
        LiveFileIndex.entry(
            relativeTo(table, InternalScanFileUtils.getAddFileStatus(scanFile).getPath()),
            scanFile.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL)));
  }

  private DataFile candidate(TableId table, LiveFileIndex.Entry file) {
    if (file.hasDeletionVector()) {
      throw new TableUnusableException(
          table,
          "data file "
              + absolutePath(table, file.relativePath())
              + " has a deletion vector; this writer cannot rewrite it without bringing its"
              + " deleted rows back. Purge the deletion vectors (REORG TABLE ... APPLY (PURGE))",
          null);
    }
    return new DataFile(
        file.relativePath(), file.size(), file.modificationTime(), file.statsJson().orElse(null));
  }

  private List<TableRow> read(TableId table, DataFile file, Set<String> columns)
      throws IOException {
    String path = absolutePath(table, file);
    try {
      return ParquetRows.read(
          engine,
          columnReader,
          table.kind(),
          FileStatus.of(path, file.sizeBytes(), file.modificationTime()),
          columns);
    } catch (FileNotFoundException e) {
      throw gone(table, path, "that holds rows to merge", e);
    }
  }

  /**
   * A data commit, checked and made on the latest snapshot; a commit that loses the race for the
   * next log version is checked and made again on the winner's snapshot (at most {@link
   * #MAX_COMMIT_RETRIES} times), never rebased by Kernel: Kernel's rebase of a blind append checks
   * only that the winner's txn version is below ours, and would land events the winner applied a
   * second time.
   */
  private CommitOutcome commitFiles(
      TableId table, long batchEnd, long firstSeq, List<DataFile> files, Rewrite rewrite)
      throws IOException {
    return committing(table, () -> commitAttempts(table, batchEnd, firstSeq, files, rewrite));
  }

  private CommitOutcome commitAttempts(
      TableId table, long batchEnd, long firstSeq, List<DataFile> files, Rewrite rewrite)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return commitOn(table, batchEnd, firstSeq, files, rewrite);
      } catch (MaxCommitRetryLimitReachedException e) {
        snapshots.invalidate(tablePath(table));
        if (attempt >= MAX_COMMIT_RETRIES || !lostTheRace(e)) {
          throw e; // transient: the committer retries the whole call
        }
        LOG.info(
            "{} txn {}: another commit took the log version first; checking again",
            table,
            batchEnd);
      } catch (IOException | RuntimeException e) {
        // Whatever happened to the table, the next attempt starts from the lake.
        snapshots.invalidate(tablePath(table));
        throw e;
      }
    }
  }

  /**
   * The commit's {@code txn(oml-lakewriter, batchEnd)} action, handed to Kernel with the data
   * actions instead of through {@code withTransactionId}. Kernel's builder would check it against
   * the snapshot by replaying the log for the appId's latest txn on every commit, a read and parse
   * of the newest commit file (on object storage a GET) that {@link #commitOn} has just made from
   * the cached snapshot ({@link #trustedTxnVersion}); the commit itself is put-if-absent on the
   * next log version, so a commit made in between fails it and the retry checks again. Kernel
   * writes the action as given; {@code KernelConformance} pins that it reads it back.
   */
  private static Row txnAction(long batchEnd) {
    return SingleAction.createTxnSingleAction(
        new SetTransaction(APP_ID, batchEnd, Optional.of(System.currentTimeMillis())).toRow());
  }

  /** Whether Kernel gave up because the log version was taken (not for an I/O failure). */
  private static boolean lostTheRace(MaxCommitRetryLimitReachedException e) {
    return e.getCause() instanceof CommitFailedException failed && failed.isConflict();
  }

  private CommitOutcome commitOn(
      TableId table, long batchEnd, long firstSeq, List<DataFile> files, Rewrite rewrite)
      throws IOException {
    // The latest log (the cache checks for a newer version first): the txn check below and the
    // rewrite's base check see every commit made before this call, ours or anyone's.
    SnapshotCache.Cached latest =
        latest(table)
            .orElseThrow(
                () ->
                    new TableUnusableException(
                        table, "vanished after data files were written for txn " + batchEnd, null));
    Snapshot snapshot = latest.snapshot();
    requireOurColumns(table, snapshot);
    long recorded = trustedTxnVersion(table, latest);
    if (batchEnd <= recorded) {
      return CommitOutcome.ALREADY_APPLIED;
    }
    if (recorded >= firstSeq) {
      throw overlap(table, batchEnd, firstSeq, recorded, snapshot.getVersion());
    }
    List<Row> actions =
        rewrite == null
            ? new ArrayList<>()
            : removeActions(table, latest, recorded, batchEnd, rewrite);
    int removed = actions.size();
    List<DataFileStatus> statuses = statusesOf(table, files);
    UpdateTableTransactionBuilder builder =
        withLogCompaction(
            snapshot
                .buildUpdateTableTransaction(commitEngineInfo, Operation.WRITE)
                .withMaxRetries(0));
    String interval = snapshot.getTableProperties().get(KernelSchemas.CHECKPOINT_INTERVAL);
    if (!checkpointInterval.equals(interval)) {
      LOG.info(
          "{} version {}: setting {}={} (was {}) with txn {}",
          table,
          snapshot.getVersion() + 1,
          KernelSchemas.CHECKPOINT_INTERVAL,
          checkpointInterval,
          interval == null ? "unset, 10" : interval,
          batchEnd);
      builder =
          builder.withTablePropertiesAdded(
              Map.of(KernelSchemas.CHECKPOINT_INTERVAL, checkpointInterval));
    }
    Transaction txn = builder.build(engine);
    Row state = txn.getTransactionState(engine);
    DataWriteContext context = writeContext(table, state);
    try (CloseableIterator<Row> appends =
        Transaction.generateAppendActions(
            engine, state, KernelEngines.iterator(statuses), context)) {
      appends.forEachRemaining(actions::add);
    }
    int addedEnd = actions.size();
    actions.add(txnAction(batchEnd));
    TransactionCommitResult result =
        txn.commit(engine, CloseableIterable.inMemoryIterable(KernelEngines.iterator(actions)));
    LOG.debug(
        "{} committed version {} with txn {} ({} files added, {} removed)",
        table,
        result.getVersion(),
        batchEnd,
        statuses.size(),
        rewrite == null ? 0 : rewrite.removes().size());
    remember(
        table,
        result,
        runHooks(table, batchEnd, result),
        batchEnd,
        changes(
            rewrite == null ? List.of() : rewrite.removes(),
            files,
            actions.subList(removed, addedEnd)));
    return CommitOutcome.COMMITTED;
  }

  /**
   * A table that records a txn version inside the events of this commit: a batch with other bounds
   * (another writer's) applied some of them. Planned again from the outbox against the table as it
   * is, the batch applies only the events above that version.
   */
  private static TableUnusableException overlap(
      TableId table, long batchEnd, long firstSeq, long recorded, long tableVersion) {
    return new TableUnusableException(
        table,
        "records txn version "
            + recorded
            + " (table version "
            + tableVersion
            + "), inside the events ["
            + firstSeq
            + ", "
            + batchEnd
            + "] of the commit for txn "
            + batchEnd
            + ": a batch with other bounds, from another writer, applied the events up to "
            + recorded
            + ", and committing would apply them a second time. Nothing was committed; the"
            + " batch is planned again against the table as it is (finding OVERLAPPING_BATCH)."
            + " Two writers ran at once: check the leader lease",
        null,
        true);
  }

  /**
   * Remove actions, built from their live add actions in {@code cached}'s snapshot, for the files
   * of {@code wanted} (keyed by relative path) that are live there; each one found is taken out of
   * {@code wanted}, so what is left in it is no longer live.
   */
  private List<Row> removeActionsOfLive(
      TableId table,
      SnapshotCache.Cached cached,
      Map<String, DataFile> wanted,
      boolean dataChange) {
    List<Row> removes = new ArrayList<>(wanted.size());
    long deletionTimestamp = System.currentTimeMillis();
    LiveFileIndex index = liveIndex(table, cached);
    wanted
        .keySet()
        .removeIf(
            path -> {
              LiveFileIndex.Entry entry = index.get(path);
              if (entry == null) {
                return false;
              }
              removes.add(
                  SingleAction.createRemoveFileSingleAction(
                      entry.toRemoveFileRow(dataChange, deletionTimestamp)));
              return true;
            });
    return removes;
  }

  /**
   * The remove actions of a rewrite, built from the live add actions of the files it replaces, on
   * the condition that the table is in the state the rewrite was planned on.
   */
  private List<Row> removeActions(
      TableId table, SnapshotCache.Cached latest, long recorded, long batchEnd, Rewrite rewrite) {
    Snapshot snapshot = latest.snapshot();
    if (recorded != rewrite.baseTxnVersion()) {
      throw new TableUnusableException(
          table,
          "the MERGE of txn "
              + batchEnd
              + " was planned on txn version "
              + rewrite.baseTxnVersion()
              + " but the table is at txn version "
              + recorded
              + " (table version "
              + snapshot.getVersion()
              + "): an earlier batch did not commit, or one the writer had not seen did, so the"
              + " rows it rewrote are not the table's and committing it could lose a retraction",
          null,
          true);
    }
    Map<String, DataFile> wanted = new LinkedHashMap<>();
    rewrite.removes().forEach(f -> wanted.put(f.relativePath(), f));
    if (wanted.isEmpty()) {
      return new ArrayList<>(); // the caller appends the commit's add actions to it
    }
    List<Row> removes = removeActionsOfLive(table, latest, wanted, true);
    if (!wanted.isEmpty()) {
      throw new TableUnusableException(
          table,
          "the MERGE of txn "
              + batchEnd
              + " replaces data files that are no longer live at table version "
              + snapshot.getVersion()
              + " "
              + wanted.keySet()
              + " (removed by another commit: compaction, another writer, a manual repair);"
              + " committing it would duplicate their rows",
          null,
          true);
    }
    return removes;
  }

  /** Every file a scan selects, with its full add action (statistics included). */
  private void forEachScanFile(Scan scan, Consumer<Row> action) {
    try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          rows.forEachRemaining(action);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every commit of ours asks Kernel for a log compaction file when its version ends an interval
   * (Kernel's {@code LOG_COMPACTION} hook, run with the others), whichever kind of commit takes
   * that version: otherwise a range would be left uncompacted.
   */
  private UpdateTableTransactionBuilder withLogCompaction(UpdateTableTransactionBuilder builder) {
    return logCompactionInterval > 0
        ? builder.withLogCompactionInterval(logCompactionInterval)
        : builder;
  }

  /**
   * Keeps the snapshot our commit produced as the table's latest, with the txn version just
   * committed; unless the commit also wrote a log checkpoint: then the next use loads from it
   * rather than replaying a derived snapshot's ever longer run of commit files. A log compaction
   * file does not drop it: the run a derived snapshot carries ends at the next checkpoint anyway.
   */
  private void remember(
      TableId table, TransactionCommitResult result, boolean checkpointed, long txnVersion) {
    remember(table, result, checkpointed, txnVersion, index -> Optional.empty());
  }

  /**
   * As above; {@code changes} carries the live files of the version the commit was made on to the
   * version it made (see {@link #changes}).
   */
  private void remember(
      TableId table,
      TransactionCommitResult result,
      boolean checkpointed,
      long txnVersion,
      Function<LiveFileIndex, Optional<LiveFileIndex>> changes) {
    Optional<Snapshot> after = result.getPostCommitSnapshot();
    if (checkpointed || after.isEmpty() || after.get().getVersion() != result.getVersion()) {
      snapshots.invalidate(tablePath(table));
    } else {
      snapshots.committed(tablePath(table), after.get(), txnVersion, changes);
    }
  }

  /**
   * How a commit that removed {@code removed} and added {@code added} (whose add actions are
   * {@code addActions}, in the same order) changes the live files. A mismatch between a file and
   * its action (which should not happen) carries nothing: the next use reads the log.
   */
  private static Function<LiveFileIndex, Optional<LiveFileIndex>> changes(
      List<DataFile> removed, List<DataFile> added, List<Row> addActions) {
    if (addActions.size() != added.size()) {
      return index -> Optional.empty();
    }
    List<LiveFileIndex.Entry> entries = new ArrayList<>(added.size());
    for (int i = 0; i < added.size(); i++) {
      DataFile file = added.get(i);
      Row add = addActions.get(i).getStruct(SingleAction.ADD_FILE_ORDINAL);
      AddFile action = new AddFile(add);
      String name = file.relativePath().substring(file.relativePath().lastIndexOf('/') + 1);
      if (action.getSize() != file.sizeBytes() || !action.getPath().endsWith(name)) {
        return index -> Optional.empty();
      }
      entries.add(LiveFileIndex.entry(file.relativePath(), add));
    }
    List<String> removedPaths = removed.stream().map(DataFile::relativePath).toList();
    return index -> index.after(removedPaths, entries);
  }

  /**
   * The transaction state, write context and transform verdict of the table's data files, worked
   * out on first use. Kernel's {@code transformLogicalData} runs its checks (schema, column
   * mapping, defaults) and hands back our own batch when it changes nothing (no partition
   * columns): then the shared-configuration writer writes exactly what Kernel's writer would.
   * Whether it does depends on the table's state, not on the rows, so it is tried once, on an
   * empty batch.
   */
  private WriteSetup writeSetup(TableId table) throws IOException {
    WriteSetup setup = writeSetups.get(table);
    if (setup == null) {
      Snapshot snapshot =
          latest(table).map(SnapshotCache.Cached::snapshot).orElseGet(() -> createTable(table));
      requireOurColumns(table, snapshot);
      KernelSchemas.requireTxnNeverExpires(table, snapshot.getTableProperties());
      Row state =
          snapshot
              .buildUpdateTableTransaction(ENGINE_INFO, Operation.WRITE)
              .build(engine)
              .getTransactionState(engine);
      RowBatch empty = new RowBatch(KernelSchemas.structOf(table.kind()), List.of());
      boolean passesThrough;
      try (CloseableIterator<FilteredColumnarBatch> physical = transform(state, empty)) {
        FilteredColumnarBatch first = physical.next();
        passesThrough = first.getData() == empty && first.getSelectionVector().isEmpty();
      }
      setup = new WriteSetup(state, writeContext(table, state), passesThrough);
      writeSetups.put(table, setup);
    }
    return setup;
  }

  /**
   * The table's data write context, worked out once: where its data files go and which columns
   * get statistics. It depends only on the table's path, schema, partition columns and indexed
   * column count, which this writer sets when it creates the table and refuses to find changed
   * ({@link #requireOurColumns}); Kernel parses the schema from the transaction state for it, a
   * cost every commit paid before.
   */
  private DataWriteContext writeContext(TableId table, Row state) {
    return writeContexts.computeIfAbsent(
        table, t -> Transaction.getWriteContext(engine, state, Map.of()));
  }

  private CloseableIterator<FilteredColumnarBatch> transform(Row state, RowBatch batch) {
    return Transaction.transformLogicalData(
        engine,
        state,
        KernelEngines.iterator(List.of(new FilteredColumnarBatch(batch, Optional.empty()))),
        Map.of());
  }

  /** See {@link #writeSetup}. */
  private record WriteSetup(Row state, DataWriteContext context, boolean passesThrough) {}

  private Snapshot createTable(TableId table) {
    try {
      TransactionCommitResult result =
          TableManager.buildCreateTableTransaction(
                  tablePath(table), KernelSchemas.structOf(table.kind()), ENGINE_INFO)
              .withTableProperties(
                  KernelSchemas.tableProperties(table.kind(), checkpoints.interval()))
              .build(engine)
              .commit(engine, CloseableIterable.emptyIterable());
      // The creation adds no file: the new version's live files are known (none), and the first
      // merge or compaction does not scan the log for them.
      remember(
          table, result, runHooks(table, NO_VERSION, result), NO_VERSION, Optional::of);
      LOG.info("{} created at {}", table, tablePath(table));
    } catch (TableAlreadyExistsException | ConcurrentWriteException e) {
      // Created by someone else in the meantime: use theirs, if its columns are ours.
      LOG.info("{} was created concurrently; using it", table);
    }
    return latest(table)
        .map(SnapshotCache.Cached::snapshot)
        .orElseThrow(() -> new IllegalStateException(table + " missing right after its creation"));
  }

  /** The table's latest snapshot, from the shared cache once the log has nothing newer. */
  private Optional<SnapshotCache.Cached> latest(TableId table) {
    return snapshots.latest(engine, tablePath(table));
  }

  private void requireOurColumns(TableId table, Snapshot snapshot) {
    StructType ours = KernelSchemas.structOf(table.kind());
    if (!KernelSchemas.sameColumns(ours, snapshot.getSchema())) {
      throw new TableUnusableException(
          table,
          "has columns "
              + snapshot.getSchema()
              + " but this writer writes "
              + ours
              + "; migrate the table or point the writer at another lake root",
          null);
    }
  }

  private DataFile toDataFile(TableId table, StructType schema, DataFileStatus status) {
    String stats = status.getStatistics().map(s -> s.serializeAsJson(schema)).orElse(null);
    return new DataFile(
        relativeTo(table, status.getPath()), status.getSize(), status.getModificationTime(), stats);
  }

  /** A data file's path relative to its table's root, the form committables carry. */
  private String relativeTo(TableId table, String absolutePath) {
    URI root = new Path(tablePath(table)).toUri();
    URI file = new Path(absolutePath).toUri();
    String relative = root.relativize(file).getPath();
    if (relative.equals(file.getPath())) {
      throw new IllegalStateException(absolutePath + " is not below " + root);
    }
    return relative;
  }

  private String absolutePath(TableId table, DataFile file) {
    return absolutePath(table, file.relativePath());
  }

  private String absolutePath(TableId table, String relativePath) {
    return new Path(new Path(tablePath(table)), relativePath).toString();
  }

  private List<DataFileStatus> statusesOf(TableId table, List<DataFile> files) throws IOException {
    StructType schema = KernelSchemas.structOf(table.kind());
    List<DataFileStatus> statuses = new ArrayList<>(files.size());
    for (DataFile file : files) {
      String path = absolutePath(table, file);
      requireExists(table, path, "of an uncommitted batch");
      Optional<DataFileStatistics> stats =
          file.statsJson() == null
              ? Optional.empty()
              : DataFileStatistics.deserializeFromJson(file.statsJson(), schema);
      statuses.add(new DataFileStatus(path, file.sizeBytes(), file.modificationTime(), stats));
    }
    return statuses;
  }

  private void requireExists(TableId table, String path, String which) throws IOException {
    try {
      engine.getFileSystemClient().getFileStatus(path);
    } catch (FileNotFoundException e) {
      throw gone(table, path, which, e);
    }
  }

  private static TableUnusableException gone(
      TableId table, String path, String which, FileNotFoundException e) {
    return new TableUnusableException(
        table,
        "data file "
            + path
            + " "
            + which
            + " is gone (vacuumed or deleted); the batch must be re-read from the outbox",
        e,
        true);
  }

  private <T> T call(TableId table, KernelCall<T> body) throws IOException {
    try {
      return body.run();
    } catch (RuntimeException e) {
      throw KernelFailures.translate(table, e);
    } catch (IOException e) {
      // A checked I/O failure (the Parquet writer's, the filesystem's) does not name the table.
      throw KernelFailures.storage(table, e);
    }
  }

  /** Runs {@code commit} under the table's commit lock ({@link SnapshotCache#commitLock}). */
  private <T> T committing(TableId table, KernelCall<T> commit) throws IOException {
    ReentrantLock lock = snapshots.commitLock(tablePath(table));
    lock.lock();
    try {
      return commit.run();
    } finally {
      lock.unlock();
    }
  }

  @FunctionalInterface
  private interface KernelCall<T> {
    T run() throws IOException;
  }
}
