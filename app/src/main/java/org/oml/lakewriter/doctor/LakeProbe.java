package org.oml.lakewriter.doctor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableStats;

/**
 * Reads the lake's side of the doctor's {@link Facts} with the project's Kernel reader ({@link
 * LakeReader#stats}): each table's log only, never a data file.
 */
public final class LakeProbe {
  private final String lakeRoot;
  private final Map<TableId, TableStats> stats = new LinkedHashMap<>();

  private LakeProbe(String lakeRoot) {
    this.lakeRoot = lakeRoot;
  }

  public static LakeProbe read(LakeReader lake, String lakeRoot) throws IOException {
    LakeProbe probe = new LakeProbe(lakeRoot);
    for (TableId table : lake.tables()) {
      lake.stats(table).ifPresent(s -> probe.stats.put(table, s));
    }
    return probe;
  }

  public Map<TableId, TableStats> stats() {
    return stats;
  }

  public Facts.Lake lake() {
    List<Facts.LakeTable> tables = new ArrayList<>();
    stats.forEach(
        (t, s) ->
            tables.add(
                new Facts.LakeTable(
                    t.relativePath(),
                    s.tableVersion(),
                    s.checkpointVersion().orElse(null),
                    s.commitsSinceCheckpoint(),
                    s.checkpointInterval(),
                    s.fileCount(),
                    s.averageFileBytes())));
    return new Facts.Lake(lakeRoot, tables);
  }

  /** The highest txn version over every table ({@code -1} for an empty lake). */
  public long maxTxn() {
    return stats.values().stream().mapToLong(TableStats::txnVersion).max().orElse(-1);
  }

  /**
   * Where a committed row of {@code tenant} can be: the tenant's bronze and dead-letter tables, and
   * the invalid-tenant dead letters (a row whose tenant id is null or not a valid path). The
   * highest txn version among them, {@code -1} if none exists.
   */
  public long txnForRowOf(String tenant) {
    long best = -1;
    for (Map.Entry<TableId, TableStats> e : stats.entrySet()) {
      TableId t = e.getKey();
      boolean own =
          tenant != null
              && t.prefix().equals(tenant)
              && (t.kind() == TableKind.BRONZE_JOURNAL_EVENTS || t.kind() == TableKind.DEAD_LETTER);
      boolean invalid = t.prefix().equals(TableId.INVALID_TENANT_PREFIX);
      if (own || invalid) {
        best = Math.max(best, e.getValue().txnVersion());
      }
    }
    return best;
  }

  public String lakeRoot() {
    return lakeRoot;
  }
}
