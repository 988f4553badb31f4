package org.oml.lakewriter.it.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The silver tables the outbox implies, folded here independently of the writer's code, from the
 * rules the lake promises: the first promotion of a key creates its row ({@code active}); a later
 * promotion of an existing key changes nothing; a retraction of an existing row moves it (erased is
 * terminal, reassign sets the workarea, the latest of demoted/simulation-ended wins); a retraction
 * without a row changes nothing; dead-lettered rows change nothing.
 */
final class OutboxFold {
  /** What silver must hold for one key. */
  record Expected(String state, String workareaId, String plaintextDigest, String ciphertextDigest) {}

  private OutboxFold() {}

  /** tenant -> "artifact_id/version" -> expected row, over every committed outbox row. */
  static Map<String, Map<String, Expected>> silver(Connection c, Set<Long> deadLetters)
      throws SQLException {
    Map<String, Map<String, Expected>> tenants = new TreeMap<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT seq, tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                    + " plaintext_digest, ciphertext_digest FROM oml_outbox ORDER BY seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (deadLetters.contains(rs.getLong("seq"))) {
          continue;
        }
        String kind = rs.getString("kind");
        Map<String, Expected> silver =
            tenants.computeIfAbsent(rs.getString("tenant_id"), t -> new TreeMap<>());
        String key = rs.getString("artifact_id") + "/" + rs.getLong("artifact_version");
        Expected row = silver.get(key);
        if (kind.equals("materialize")) {
          if (row == null) {
            silver.put(
                key,
                new Expected(
                    "active",
                    rs.getString("workarea_id"),
                    rs.getString("plaintext_digest"),
                    rs.getString("ciphertext_digest")));
          }
        } else if (row != null && !row.state().equals("erased")) {
          silver.put(key, retract(row, kind, rs.getString("workarea_id")));
        }
      }
    }
    tenants.values().removeIf(Map::isEmpty);
    return tenants;
  }

  private static Expected retract(Expected row, String kind, String workarea) {
    return switch (kind) {
      case "demote" -> withState(row, "demoted");
      case "erase" -> withState(row, "erased");
      case "simulation_end" -> withState(row, "simulation_ended");
      case "reassign" -> new Expected(
          row.state(), workarea, row.plaintextDigest(), row.ciphertextDigest());
      default -> row; // journal
    };
  }

  private static Expected withState(Expected row, String state) {
    return new Expected(state, row.workareaId(), row.plaintextDigest(), row.ciphertextDigest());
  }

  /** The differences between the fold and a tenant's silver rows, one line each; empty if equal. */
  static List<String> compare(
      String tenant, Map<String, Expected> expected, List<Map<String, Object>> silverRows) {
    List<String> problems = new ArrayList<>();
    Map<String, Expected> actual = new TreeMap<>();
    for (Map<String, Object> row : silverRows) {
      String key = row.get("artifact_id") + "/" + row.get("version");
      Expected previous =
          actual.put(
              key,
              new Expected(
                  (String) row.get("state"),
                  (String) row.get("workarea_id"),
                  (String) row.get("plaintext_digest"),
                  (String) row.get("ciphertext_digest")));
      if (previous != null) {
        problems.add(tenant + " " + key + ": more than one silver row");
      }
    }
    for (Map.Entry<String, Expected> e : expected.entrySet()) {
      Expected got = actual.get(e.getKey());
      if (got == null) {
        problems.add(tenant + " " + e.getKey() + ": missing from silver, expected " + e.getValue());
      } else if (!Objects.equals(got, e.getValue())) {
        problems.add(tenant + " " + e.getKey() + ": silver has " + got + ", expected " + e.getValue());
      }
    }
    for (String key : actual.keySet()) {
      if (!expected.containsKey(key)) {
        problems.add(tenant + " " + key + ": in silver, but the outbox promotes no such key");
      }
    }
    return problems;
  }
}
