package org.oml.lakewriter.cli;

import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * {@code --tenant T} and {@code --table KIND} of the maintenance and history commands: which of the
 * lake's tables a command works on. {@code KIND} is {@code bronze}, {@code silver}, {@code
 * dead_letter}, {@code gold} (the three gold tables), or any table's path below its tenant ({@code
 * gold/lineage}, {@code gold/workarea_memories}, {@code gold/workareas}, ...): every {@link
 * TableKind}, so a table kind added later is selectable without a change here.
 */
final class TableSelection {
  private TableSelection() {}

  /** What {@code --table} accepts, for messages. */
  static String accepted() {
    return "bronze, silver, dead_letter, gold, or a table path ("
        + Arrays.stream(TableKind.values()).map(TableKind::path).collect(Collectors.joining(", "))
        + ")";
  }

  /** The kinds a {@code --table} value names (null: any); a named error for any other value. */
  static Set<TableKind> kinds(String table) {
    if (table == null) {
      return null;
    }
    String value = table.toLowerCase(Locale.ROOT);
    return switch (value) {
      case "bronze" -> EnumSet.of(TableKind.BRONZE_JOURNAL_EVENTS);
      case "silver" -> EnumSet.of(TableKind.SILVER_MEMORIES);
      case "gold" ->
          Arrays.stream(TableKind.values())
              .filter(k -> k.path().startsWith("gold/"))
              .collect(Collectors.toCollection(() -> EnumSet.noneOf(TableKind.class)));
      default ->
          TableKind.fromPath(value)
              .map(EnumSet::of)
              .orElseThrow(
                  () -> new ConfigException("--table is " + table + "; give " + accepted()));
    };
  }

  /** The one kind a {@code --table} value names; a named error for {@code gold} or another. */
  static TableKind kind(String table) {
    Set<TableKind> kinds = kinds(table);
    if (kinds == null) {
      return null;
    }
    if (kinds.size() != 1) {
      throw new ConfigException(
          "--table is " + table + ", which names " + kinds.size() + " tables; give one of "
              + accepted().replace("gold, ", ""));
    }
    return kinds.iterator().next();
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
    Set<TableKind> kinds = kinds(table);
    return lake.tables().stream()
        .filter(t -> prefix == null || t.prefix().equals(prefix))
        .filter(t -> kinds == null || kinds.contains(t.kind()))
        .toList();
  }

  /** The one table both filters name: a named error when either is missing. */
  static TableId one(String tenant, String table) {
    if (tenant == null || table == null) {
      throw new ConfigException("give both --tenant and --table (" + accepted() + ")");
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
