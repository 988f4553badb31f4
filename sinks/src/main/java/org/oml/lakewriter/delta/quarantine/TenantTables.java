package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.event.OutboxEvent;

/** The tables of one tenant (a table prefix), which a quarantine holds together. */
public final class TenantTables {
  private TenantTables() {}

  /** The prefix under which a row lands: its tenant id, or {@code _invalid} if that is no path. */
  public static String prefixOf(OutboxEvent event) {
    return TableId.isValidTenant(event.tenantId())
        ? event.tenantId()
        : TableId.INVALID_TENANT_PREFIX;
  }

  /** Every table the prefix can have. */
  public static java.util.List<TableId> of(String prefix) {
    if (prefix.equals(TableId.INVALID_TENANT_PREFIX)) {
      return java.util.List.of(TableId.invalidTenantDeadLetter());
    }
    return java.util.Arrays.stream(TableKind.values()).map(k -> TableId.of(prefix, k)).toList();
  }

  /**
   * The txn version of each of the tenant's tables: the tenant's own frontier. Best effort, for the
   * record and {@code status}; recovery always reads the tables themselves.
   */
  public static Map<String, Long> txnVersions(DeltaTableClient client, String prefix) {
    Map<String, Long> versions = new TreeMap<>();
    for (TableId table : of(prefix)) {
      try {
        versions.put(table.relativePath(), client.readTxnVersion(table));
      } catch (IOException | RuntimeException e) {
        // Unreadable now: the record says so by leaving the table out.
      }
    }
    return versions;
  }
}
