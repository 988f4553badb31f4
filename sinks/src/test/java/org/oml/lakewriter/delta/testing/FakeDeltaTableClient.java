package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.Column;
import org.oml.lakewriter.delta.LakeSchemas.ColumnType;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;

/**
 * An in-memory lake with the {@link DeltaTableClient} contract: files hold rows until committed, a
 * commit at or below a table's txn version is already applied, a rewrite commits only on the txn
 * version it was planned on and with its replaced files live. Faults are scripted per call.
 * Candidate files are exact (a file is a candidate only if a row holds a key), unlike statistics.
 */
public final class FakeDeltaTableClient implements DeltaTableClient {
  private final Map<String, List<TableRow>> files = new HashMap<>();
  private final Map<String, DataFile> written = new HashMap<>();
  private final Map<TableId, List<String>> live = new TreeMap<>();
  private final Map<TableId, Long> txnVersions = new TreeMap<>();
  private final Map<TableId, Long> logVersions = new TreeMap<>();
  private final Map<TableId, RuntimeException> permanentFailures = new HashMap<>();
  private final Map<TableId, RuntimeException> writeFailures = new HashMap<>();
  private final List<String> log = new ArrayList<>();
  private int transientFailures;
  private int fileCounter;
  private boolean closed;
  private String commitTag = "";

  /** Seeds a table as if earlier batches had committed up to {@code version}. */
  public FakeDeltaTableClient withTxnVersion(TableId table, long version) {
    txnVersions.put(table, version);
    logVersions.merge(table, 0L, Math::max);
    return this;
  }

  /**
   * Seeds a table with committed rows at txn version {@code version}, as if a batch (or an earlier
   * run of the writer) had committed them.
   */
  public FakeDeltaTableClient withRows(TableId table, long version, List<TableRow> rows) {
    String path = "seed-" + (fileCounter++) + ".parquet";
    files.put(table + "/" + path, List.copyOf(rows));
    written.put(table + "/" + path, new DataFile(path, 100, 1, null));
    live.computeIfAbsent(table, t -> new ArrayList<>()).add(path);
    txnVersions.put(table, version);
    logVersions.merge(table, 1L, Long::sum);
    return this;
  }

  /**
   * A commit by another engine: the table's live rows are replaced by {@code change} of them, in
   * one new file, under a new log version and the same txn version (an OPTIMIZE when the rows stay
   * the same, a manual repair otherwise).
   */
  public void outOfBandCommit(TableId table, UnaryOperator<List<TableRow>> change) {
    List<TableRow> rows = change.apply(committedRows(table));
    String path = "foreign-" + (fileCounter++) + ".parquet";
    files.put(table + "/" + path, List.copyOf(rows));
    written.put(table + "/" + path, new DataFile(path, 100, 1, null));
    live.put(table, new ArrayList<>(List.of(path)));
    logVersions.merge(table, 1L, Long::sum);
    log.add("foreign-commit " + table);
  }

  /** The next {@code n} commits throw a transient {@link IOException}. */
  public FakeDeltaTableClient failNextCommits(int n) {
    transientFailures = n;
    return this;
  }

  /** Every commit to {@code table} throws {@code failure}. */
  public FakeDeltaTableClient failCommitsTo(TableId table, RuntimeException failure) {
    permanentFailures.put(table, failure);
    return this;
  }

  /** Commits to {@code table} work again (an operator fixed it). */
  public FakeDeltaTableClient healCommitsTo(TableId table) {
    permanentFailures.remove(table);
    writeFailures.remove(table);
    return this;
  }

  /** Every data-file write to {@code table} throws {@code failure} (e.g. a schema mismatch). */
  public FakeDeltaTableClient failWritesTo(TableId table, RuntimeException failure) {
    writeFailures.put(table, failure);
    return this;
  }

  @Override
  public long readTxnVersion(TableId table) {
    log.add("read " + table);
    return txnVersions.getOrDefault(table, NO_VERSION);
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) {
    if (writeFailures.containsKey(table)) {
      throw writeFailures.get(table);
    }
    String path = "part-" + (fileCounter++) + ".parquet";
    DataFile file = new DataFile(path, 100, 1, "{\"numRecords\":" + rows.size() + "}");
    files.put(table + "/" + path, List.copyOf(rows));
    written.put(table + "/" + path, file);
    log.add("write " + table + " " + rows.size());
    return List.of(file);
  }

  @Override
  public CandidateFiles filesThatMayHold(TableId table, Collection<ArtifactKey> keys) {
    log.add("scan " + table + " " + keys);
    List<DataFile> candidates = new ArrayList<>();
    for (String path : live.getOrDefault(table, List.of())) {
      if (files.get(table + "/" + path).stream()
          .anyMatch(r -> keys.contains(ArtifactKey.ofSilverRow(r)))) {
        candidates.add(written.get(table + "/" + path));
      }
    }
    return new CandidateFiles(txnVersions.getOrDefault(table, NO_VERSION), candidates);
  }

  @Override
  public SnapshotId snapshotId(TableId table) {
    log.add("snapshot " + table);
    return snapshotOf(table);
  }

  @Override
  public SnapshotId forEachSilverKey(TableId table, Consumer<ArtifactKey> keys) {
    log.add("keys " + table);
    committedRows(table).forEach(r -> keys.accept(ArtifactKey.of(table.kind(), r)));
    return snapshotOf(table);
  }

  @Override
  public SnapshotId forEachSilverKeyInFiles(
      TableId table, Map<String, List<ArtifactKey>> known, BiConsumer<String, ArtifactKey> keys) {
    log.add("keys " + table);
    for (String path : live.getOrDefault(table, List.of())) {
      files.get(table + "/" + path).forEach(r -> keys.accept(path, ArtifactKey.of(table.kind(), r)));
    }
    return snapshotOf(table);
  }

  @Override
  public LiveFiles liveFiles(TableId table, Collection<String> relativePaths) {
    log.add("live " + table + " " + relativePaths.size());
    Map<String, DataFile> found = new HashMap<>();
    for (String path : live.getOrDefault(table, List.of())) {
      if (relativePaths.contains(path)) {
        found.put(path, written.get(table + "/" + path));
      }
    }
    return new LiveFiles(snapshotOf(table), found);
  }

  /** Every live file (the fake writes no small-file threshold into its files' sizes). */
  @Override
  public LiveFiles smallFiles(TableId table, long maxBytes) {
    log.add("small " + table);
    Map<String, DataFile> found = new HashMap<>();
    for (String path : live.getOrDefault(table, List.of())) {
      found.put(path, written.get(table + "/" + path));
    }
    return new LiveFiles(snapshotOf(table), found);
  }

  @Override
  public Set<Long> seqsHeld(TableId table, Collection<Long> seqs) {
    log.add("seqs " + table + " " + seqs);
    Set<Long> held = new HashSet<>(committedSeqs(table));
    held.retainAll(seqs);
    return held;
  }

  private SnapshotId snapshotOf(TableId table) {
    Long version = logVersions.get(table);
    return version == null
        ? SnapshotId.ABSENT
        : new SnapshotId(version, txnVersions.getOrDefault(table, NO_VERSION));
  }

  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file) {
    log.add("read-file " + table + " " + file.relativePath());
    return files.get(table + "/" + file.relativePath());
  }

  /**
   * As the column reader does: the string and binary columns not asked for are {@link
   * TableRow#notRead} stand-ins, so a transition that uses one fails here as it would on a lake.
   */
  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns) {
    log.add("read-file " + table + " " + file.relativePath());
    log.add("read-columns " + table + " " + file.relativePath() + " " + new TreeSet<>(columns));
    TableSchema schema = LakeSchemas.of(table.kind());
    List<TableRow> projected = new ArrayList<>();
    for (TableRow row : files.get(table + "/" + file.relativePath())) {
      Object[] values = new Object[row.size()];
      for (int i = 0; i < values.length; i++) {
        Column column = schema.columns().get(i);
        boolean skipped =
            !columns.contains(column.name())
                && (column.type() == ColumnType.STRING || column.type() == ColumnType.BINARY);
        values[i] = skipped ? TableRow.notRead(column.type()) : row.valueForWrite(i);
      }
      projected.add(TableRow.decoded(schema, row.seq(), values));
    }
    return projected;
  }

  /**
   * As the Parquet client does for its own files: unchanged columns come from the old file (so
   * values not read are kept), and a changed column holding a value not read writes nothing.
   */
  @Override
  public Optional<List<DataFile>> rewriteDataFile(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after) {
    List<TableRow> old = files.get(table + "/" + file.relativePath());
    TableSchema schema = LakeSchemas.of(table.kind());
    for (int col = 0; col < schema.columns().size(); col++) {
      boolean changed = false;
      boolean notRead = false;
      for (int row = 0; row < after.size(); row++) {
        Object value = after.get(row).valueForWrite(col);
        changed |= !Objects.deepEquals(before.get(row).valueForWrite(col), value);
        notRead |= TableRow.isNotRead(value);
      }
      if (changed && notRead) {
        return Optional.empty();
      }
    }
    List<TableRow> rows = new ArrayList<>();
    for (int row = 0; row < after.size(); row++) {
      Object[] values = new Object[schema.columns().size()];
      for (int col = 0; col < values.length; col++) {
        Object value = after.get(row).valueForWrite(col);
        values[col] = TableRow.isNotRead(value) ? old.get(row).valueForWrite(col) : value;
      }
      rows.add(TableRow.decoded(schema, after.get(row).seq(), values));
    }
    return Optional.of(writeDataFiles(table, rows));
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> added)
      throws IOException {
    return commitRewrite(table, batchEnd, added, null);
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> added, Rewrite rewrite) throws IOException {
    if (permanentFailures.containsKey(table)) {
      throw permanentFailures.get(table);
    }
    if (transientFailures > 0) {
      transientFailures--;
      throw new IOException("injected transient failure on " + table);
    }
    long recorded = txnVersions.getOrDefault(table, NO_VERSION);
    if (batchEnd <= recorded) {
      log.add("skip " + table + " " + batchEnd);
      return CommitOutcome.ALREADY_APPLIED;
    }
    List<String> tableFiles = live.computeIfAbsent(table, t -> new ArrayList<>());
    if (rewrite != null) {
      if (rewrite.baseTxnVersion() != recorded) {
        throw new TableUnusableException(
            table, "planned on txn " + rewrite.baseTxnVersion(), null, true);
      }
      for (DataFile removed : rewrite.removes()) {
        if (!tableFiles.remove(removed.relativePath())) {
          throw new TableUnusableException(
              table, removed.relativePath() + " not live", null, true);
        }
      }
    }
    added.forEach(f -> tableFiles.add(f.relativePath()));
    txnVersions.put(table, batchEnd);
    logVersions.merge(table, 1L, Long::sum);
    log.add("commit " + table + " " + batchEnd);
    return CommitOutcome.COMMITTED;
  }

  /** The committed rows of a table, in seq order. */
  public List<TableRow> committedRows(TableId table) {
    List<TableRow> rows = new ArrayList<>();
    for (String path : live.getOrDefault(table, List.of())) {
      rows.addAll(files.get(table + "/" + path));
    }
    rows.sort(java.util.Comparator.comparingLong(TableRow::seq));
    return rows;
  }

  public List<Long> committedSeqs(TableId table) {
    return committedRows(table).stream().map(TableRow::seq).toList();
  }

  public long txnVersion(TableId table) {
    return txnVersions.getOrDefault(table, NO_VERSION);
  }

  public List<String> log() {
    return List.copyOf(log);
  }

  public boolean isClosed() {
    return closed;
  }

  @Override
  public void tagCommits(String tag) {
    commitTag = tag;
  }

  /** The tag the committer set for commitInfo (the leader lease's epoch). */
  public String commitTag() {
    return commitTag;
  }

  @Override
  public void close() {
    closed = true;
  }
}
