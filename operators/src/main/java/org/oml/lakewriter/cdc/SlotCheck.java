package org.oml.lakewriter.cdc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Whether PostgreSQL has invalidated a replication slot. A slot is invalid when {@code wal_status}
 * is {@code lost} (PostgreSQL 13+), or when {@code invalidation_reason} (17+) or {@code
 * conflicting} (16+) says so. The newer columns are read through {@code to_jsonb}, so that one
 * query works on every version the writer supports.
 */
public final class SlotCheck {
  private SlotCheck() {}

  /** The invalidation of {@code slot}; empty when the slot is valid or does not exist. */
  public static Optional<SlotInvalidatedException> invalidation(Connection c, String slot)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT s.wal_status, to_jsonb(s) ->> 'invalidation_reason',"
                + " to_jsonb(s) ->> 'conflicting' FROM pg_replication_slots s"
                + " WHERE s.slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        String walStatus = rs.getString(1);
        String reason = rs.getString(2);
        boolean conflicting = "true".equals(rs.getString(3));
        if ("lost".equals(walStatus) || reason != null || conflicting) {
          return Optional.of(
              new SlotInvalidatedException(
                  slot, walStatus, reason != null ? reason : conflicting ? "conflicting" : null));
        }
        return Optional.empty();
      }
    }
  }
}
