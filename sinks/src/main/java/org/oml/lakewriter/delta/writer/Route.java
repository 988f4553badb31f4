package org.oml.lakewriter.delta.writer;

import java.util.Objects;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.event.RowError;

/**
 * Where one outbox event goes: to its tenant's bronze table (and silver, for a promoted body), or
 * to exactly one dead-letter table with the reason. Never both: bronze plus the dead letters cover
 * every committed seq exactly once.
 */
public record Route(String tenantPrefix, boolean toSilver, RowError deadLetter) {
  public Route {
    Objects.requireNonNull(tenantPrefix, "tenantPrefix");
    if (deadLetter != null && toSilver) {
      throw new IllegalArgumentException("a dead letter never reaches silver");
    }
  }

  static Route bronze(String tenant) {
    return new Route(tenant, false, null);
  }

  static Route bronzeAndSilver(String tenant) {
    return new Route(tenant, true, null);
  }

  static Route deadLetter(String prefix, RowError error) {
    return new Route(prefix, false, Objects.requireNonNull(error, "error"));
  }

  public boolean isDeadLetter() {
    return deadLetter != null;
  }

  /** The dead-letter table of this route's prefix ({@code <tenant>} or {@code _invalid}). */
  public TableId deadLetterTable() {
    return tenantPrefix.equals(TableId.INVALID_TENANT_PREFIX)
        ? TableId.invalidTenantDeadLetter()
        : TableId.of(tenantPrefix, TableKind.DEAD_LETTER);
  }
}
