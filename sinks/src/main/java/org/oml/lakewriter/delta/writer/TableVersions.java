package org.oml.lakewriter.delta.writer;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;

/**
 * The txn version of each table as this writer found it the first time it saw the table, read
 * lazily from the lake itself (never from Flink state, never from the frontier cache).
 *
 * <p>Why per table and at first sight: after any start (a restore, or no state at all) batches can
 * be cut differently than before, so a table's version can fall inside a new batch. Dropping rows
 * at or below it before writing files is what keeps those rows from landing twice; the commit-time
 * skip alone only handles whole batches. Later batches of this writer are above every version read
 * here, because the cut emits batches in seq order and this writer's own commits only raise them.
 *
 * <p>Thread-safe for different tables: the writer's tenants are written in parallel ({@link
 * TenantPool}), each tenant's tables by one task.
 */
final class TableVersions {
  private final DeltaTableClient client;
  private final Map<TableId, Long> versions = new ConcurrentHashMap<>();

  TableVersions(DeltaTableClient client) {
    this.client = client;
  }

  /**
   * Forgets what was read for a tenant's tables: a quarantined tenant's tables are read again from
   * the lake when it is replayed, since the committer may have committed or skipped batches of it
   * since this writer first saw them.
   */
  void forget(String prefix) {
    versions.keySet().removeIf(t -> t.prefix().equals(prefix));
  }

  long versionOf(TableId table) throws IOException {
    Long version = versions.get(table);
    if (version == null) {
      version = client.readTxnVersion(table);
      versions.put(table, version);
    }
    return version;
  }
}
