package org.oml.lakewriter.delta;

import java.util.Objects;

/**
 * One Delta table of the lake: a tenant prefix and a {@link TableKind}. The prefix is either a
 * valid tenant id or {@value #INVALID_TENANT_PREFIX}, which only holds a dead-letter table for rows
 * whose tenant id could not be trusted as a path. A valid tenant id cannot start with {@code _}, so
 * no tenant can ever share that prefix, and no tenant id can climb out of its prefix ({@code ..},
 * {@code /}).
 *
 * <p>Ordered by relative path, which is the order in which a batch's tables commit.
 */
public final class TableId implements Comparable<TableId> {
  /** The prefix of the dead-letter table for rows with an invalid tenant id. */
  public static final String INVALID_TENANT_PREFIX = "_invalid";

  /** The longest tenant id: one character and up to 62 more. */
  private static final int MAX_TENANT_LENGTH = 63;

  private final String prefix;
  private final TableKind kind;
  /** Built once: the writer routes, groups and sorts by table for every row of a batch. */
  private final String relativePath;

  private TableId(String prefix, TableKind kind) {
    this.prefix = prefix;
    this.kind = Objects.requireNonNull(kind, "kind");
    this.relativePath = prefix + "/" + kind.path();
  }

  /** A table of a tenant; the tenant id must be valid (see {@link #isValidTenant}). */
  public static TableId of(String tenantId, TableKind kind) {
    if (!isValidTenant(tenantId)) {
      throw new IllegalArgumentException("invalid tenant id for a table path: " + tenantId);
    }
    return new TableId(tenantId, kind);
  }

  /** {@code <lake-root>/_invalid/dead_letter}. */
  public static TableId invalidTenantDeadLetter() {
    return new TableId(INVALID_TENANT_PREFIX, TableKind.DEAD_LETTER);
  }

  /** Parses {@code <prefix>/<kind path>}, the inverse of {@link #relativePath()}. */
  public static TableId parse(String relativePath) {
    int slash = relativePath.indexOf('/');
    if (slash > 0) {
      String prefix = relativePath.substring(0, slash);
      TableKind kind = TableKind.fromPath(relativePath.substring(slash + 1)).orElse(null);
      if (kind != null && prefix.equals(INVALID_TENANT_PREFIX) && kind == TableKind.DEAD_LETTER) {
        return invalidTenantDeadLetter();
      }
      if (kind != null && isValidTenant(prefix)) {
        return new TableId(prefix, kind);
      }
    }
    throw new IllegalArgumentException("not a lake table path: " + relativePath);
  }

  /**
   * {@code [a-z0-9][a-z0-9_-]{0,62}}, checked character by character: it runs for every row the
   * writer routes, and a regular expression's matcher cost more there than the rest of the route.
   */
  public static boolean isValidTenant(String tenantId) {
    if (tenantId == null || tenantId.isEmpty() || tenantId.length() > MAX_TENANT_LENGTH) {
      return false;
    }
    for (int i = 0; i < tenantId.length(); i++) {
      char c = tenantId.charAt(i);
      boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      if (!alnum && (i == 0 || (c != '_' && c != '-'))) {
        return false;
      }
    }
    return true;
  }

  /** The tenant id, or {@value #INVALID_TENANT_PREFIX} for the invalid-tenant dead letters. */
  public String prefix() {
    return prefix;
  }

  public TableKind kind() {
    return kind;
  }

  /** The table's directory below the lake root, e.g. {@code acme/silver/memories}. */
  public String relativePath() {
    return relativePath;
  }

  @Override
  public int compareTo(TableId other) {
    return relativePath.compareTo(other.relativePath);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableId
        && ((TableId) o).prefix.equals(prefix)
        && ((TableId) o).kind == kind;
  }

  @Override
  public int hashCode() {
    return relativePath.hashCode();
  }

  @Override
  public String toString() {
    return relativePath;
  }
}
