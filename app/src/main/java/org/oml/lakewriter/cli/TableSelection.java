package org.oml.lakewriter.cli;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * {@code --tenant T} and {@code --table bronze|silver|dead_letter} of the maintenance and history
 * commands: which of the lake's tables a command works on.
 */
final class TableSelection {
  private TableSelection() {}

  /** The kind a {@code --table} value names; a named error for any other value. */
  static TableKind kind(String table) {
    if (table == null) {
      return null;
    }
    return switch (table.toLowerCase(Locale.ROOT)) {
      case "bronze" -> TableKind.BRONZE_JOURNAL_EVENTS;
      case "silver" -> TableKind.SILVER_MEMORIES;
      case "dead_letter" -> TableKind.DEAD_LETTER;
      default ->
          throw new ConfigException(
              "--table is " + table + "; give bronze, silver or dead_letter");
    };
  }

  /** The prefix a {@code --tenant} value names ({@code _invalid} included); a named error else. */
  static String prefix(String tenant) {
    if (tenant == null
        || tenant.equals(TableId.INVALID_TENANT_PREFIX)
        || TableId.isValidTenant(tenant)) {
      return tenant;
    }
    throw new ConfigException(
        "--tenant is " + tenant + ", which is not a valid tenant id (nor "
            + TableId.INVALID_TENANT_PREFIX + ")");
  }

  /** The lake's tables that match both filters (null: any). */
  static List<TableId> select(LakeReader lake, String tenant, String table) throws IOException {
    String prefix = prefix(tenant);
    TableKind kind = kind(table);
    return lake.tables().stream()
        .filter(t -> prefix == null || t.prefix().equals(prefix))
        .filter(t -> kind == null || t.kind() == kind)
        .toList();
  }

  /** The one table both filters name: a named error when either is missing. */
  static TableId one(String tenant, String table) {
    if (tenant == null || table == null) {
      throw new ConfigException("give both --tenant and --table (bronze, silver or dead_letter)");
    }
    String prefix = prefix(tenant);
    TableKind kind = kind(table);
    if (prefix.equals(TableId.INVALID_TENANT_PREFIX)) {
      if (kind != TableKind.DEAD_LETTER) {
        throw new ConfigException(TableId.INVALID_TENANT_PREFIX + " holds only dead_letter");
      }
      return TableId.invalidTenantDeadLetter();
    }
    return TableId.of(prefix, kind);
  }
}
