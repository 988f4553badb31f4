package org.oml.lakewriter.delta.read;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.kernel.KernelTableReader;
import org.oml.lakewriter.delta.log.TableHistory;
import org.oml.lakewriter.delta.log.TableLog;

/**
 * Read-only view of what landed in the lake, for the command line ({@code status}, {@code verify})
 * and for tests. It reads with Delta's scan API (statistics-pruned file listing, Parquet reads,
 * selection vectors, the residual filter), never through the writer's code, and never writes: not a
 * checkpoint, not a checksum, not a log file.
 *
 * <pre>{@code
 * LakeReader lake = LakeReader.open(LakeConfig.of("file:/var/lake"));
 * TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
 * long txn = lake.txnVersion(silver);            // -1 if absent
 * List<Map<String, Object>> rows = lake.rows(silver);
 * }</pre>
 */
public final class LakeReader {
  private final KernelTableReader reader;
  /** Reads each table as of this seq ({@link #asOfSeq}); {@code Long.MAX_VALUE}: the latest. */
  private final long asOfSeq;

  private LakeReader(KernelTableReader reader, long asOfSeq) {
    this.reader = reader;
    this.asOfSeq = asOfSeq;
  }

  public static LakeReader open(LakeConfig lake) throws IOException {
    return new LakeReader(new KernelTableReader(lake), Long.MAX_VALUE);
  }

  /**
   * The same lake, time-travelled: {@link #contents} (and so {@link #rows}, {@link #txnVersion},
   * {@link #fileCount}, {@link #tableVersion}) read each table at the first version whose txn
   * version is at or above {@code seq} ({@link TableHistory#asOfSeq}), or at its latest version if
   * none reaches it. Such a version holds exactly the table's rows up to its own txn version, which
   * is at or above {@code seq}. {@link #filePaths} and {@link #stats} stay on the latest version.
   */
  public LakeReader asOfSeq(long seq) {
    return new LakeReader(reader, seq);
  }

  /**
   * The table's versions whose commit files the log still holds, with the seqs each covers; none if
   * the table does not exist.
   */
  public List<TableHistory.Version> history(TableId table) throws IOException {
    List<TableLog.Commit> commits =
        TableLog.open(reader.hadoopConf(), reader.tableRoot(table)).commits();
    long txnBefore = -1;
    if (!commits.isEmpty() && commits.get(0).version() > 0) {
      // The log was cleaned up to a checkpoint: the txn version before the first commit left.
      txnBefore = reader.txnVersionAt(table, commits.get(0).version() - 1);
    }
    return TableHistory.of(commits, txnBefore);
  }

  /** Time travel to a Delta version; empty if the table does not exist. */
  public Optional<TableContents> contentsAt(TableId table, long version) throws IOException {
    return reader.readAt(table, version);
  }

  /** Every table that has a Delta log, ordered by path. */
  public List<TableId> tables() throws IOException {
    return reader.listTables();
  }

  /** The table's snapshot, or empty if the table does not exist. */
  public Optional<TableContents> contents(TableId table) throws IOException {
    if (asOfSeq != Long.MAX_VALUE) {
      Optional<TableHistory.Version> v = TableHistory.asOfSeq(history(table), asOfSeq);
      if (v.isPresent()) {
        return reader.readAt(table, v.get().version());
      }
    }
    return reader.read(table, Long.MIN_VALUE);
  }

  /** The rows with {@code seq > seqAbove}; pruned by file statistics, then filtered per row. */
  public List<Map<String, Object>> rowsAfter(TableId table, long seqAbove) throws IOException {
    if (asOfSeq != Long.MAX_VALUE) {
      return rows(table).stream().filter(r -> (Long) r.get("seq") > seqAbove).toList();
    }
    return reader.read(table, seqAbove).map(TableContents::rows).orElse(List.of());
  }

  /** All rows in seq order, or none if the table does not exist. */
  public List<Map<String, Object>> rows(TableId table) throws IOException {
    return contents(table).map(TableContents::rows).orElse(List.of());
  }

  /** The txn version recorded for {@code oml-lakewriter}, or {@code -1}. */
  public long txnVersion(TableId table) throws IOException {
    return contents(table).map(TableContents::txnVersion).orElse(-1L);
  }

  /** The number of live data files, or 0 if the table does not exist. */
  public int fileCount(TableId table) throws IOException {
    return contents(table).map(TableContents::fileCount).orElse(0);
  }

  /** The live data files' paths relative to the table root, sorted; none if there is no table. */
  public List<String> filePaths(TableId table) throws IOException {
    return reader.filePaths(table);
  }

  /**
   * The table's log-level health (versions, last commit time, checkpoint, file count and size),
   * or empty if the table does not exist. Reads the Delta log only, never a data file, so it stays
   * cheap on a large table: what {@code status} and {@code doctor} read per table.
   */
  public Optional<TableStats> stats(TableId table) throws IOException {
    return reader.stats(table);
  }

  /** The table's Delta version, or {@code -1} if it does not exist. */
  public long tableVersion(TableId table) throws IOException {
    return contents(table).map(TableContents::tableVersion).orElse(-1L);
  }
}
