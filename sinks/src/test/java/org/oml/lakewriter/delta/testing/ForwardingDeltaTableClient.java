package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LiveFiles;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableRow;

/**
 * A client that hands every call to another one: the base of the tests' decorators (fault
 * injection, timing, counting), which override only the calls they watch.
 */
public abstract class ForwardingDeltaTableClient implements DeltaTableClient {
  protected final DeltaTableClient delegate;

  protected ForwardingDeltaTableClient(DeltaTableClient delegate) {
    this.delegate = delegate;
  }

  @Override
  public long readTxnVersion(TableId table) throws IOException {
    return delegate.readTxnVersion(table);
  }

  @Override
  public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
    return delegate.writeDataFiles(table, rows);
  }

  @Override
  public CandidateFiles filesThatMayHold(TableId table, Collection<ArtifactKey> keys)
      throws IOException {
    return delegate.filesThatMayHold(table, keys);
  }

  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
    return delegate.readDataFile(table, file);
  }

  @Override
  public List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns)
      throws IOException {
    return delegate.readDataFile(table, file, columns);
  }

  @Override
  public Optional<List<DataFile>> rewriteDataFile(
      TableId table, DataFile file, List<TableRow> before, List<TableRow> after)
      throws IOException {
    return delegate.rewriteDataFile(table, file, before, after);
  }

  @Override
  public CommitOutcome commit(TableId table, long batchEnd, List<DataFile> files)
      throws IOException {
    return delegate.commit(table, batchEnd, files);
  }

  @Override
  public CommitOutcome commitRewrite(
      TableId table, long batchEnd, List<DataFile> files, Rewrite rewrite) throws IOException {
    return delegate.commitRewrite(table, batchEnd, files, rewrite);
  }

  @Override
  public SnapshotId snapshotId(TableId table) throws IOException {
    return delegate.snapshotId(table);
  }

  @Override
  public SnapshotId forEachSilverKey(TableId table, Consumer<ArtifactKey> keys)
      throws IOException {
    return delegate.forEachSilverKey(table, keys);
  }

  @Override
  public SnapshotId forEachSilverKeyInFiles(
      TableId table,
      java.util.Map<String, List<ArtifactKey>> known,
      BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    return delegate.forEachSilverKeyInFiles(table, known, keys);
  }

  @Override
  public Optional<List<LogCommit>> commits(TableId table, long after, long upTo)
      throws IOException {
    return delegate.commits(table, after, upTo);
  }

  @Override
  public Set<String> forEachKeyInLiveFiles(
      TableId table, Set<String> relativePaths, BiConsumer<String, ArtifactKey> keys)
      throws IOException {
    return delegate.forEachKeyInLiveFiles(table, relativePaths, keys);
  }

  @Override
  public LiveFiles liveFiles(TableId table, Collection<String> relativePaths) throws IOException {
    return delegate.liveFiles(table, relativePaths);
  }

  @Override
  public Set<Long> seqsHeld(TableId table, Collection<Long> seqs) throws IOException {
    return delegate.seqsHeld(table, seqs);
  }

  @Override
  public LiveFiles smallFiles(TableId table, long maxBytes) throws IOException {
    return delegate.smallFiles(table, maxBytes);
  }

  @Override
  public boolean commitCompaction(TableId table, List<DataFile> removes, List<DataFile> adds)
      throws IOException {
    return delegate.commitCompaction(table, removes, adds);
  }

  @Override
  public long checkpoint(TableId table) throws IOException {
    return delegate.checkpoint(table);
  }

  @Override
  public void tagCommits(String tag) {
    delegate.tagCommits(tag);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
