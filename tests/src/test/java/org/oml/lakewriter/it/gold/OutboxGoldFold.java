package org.oml.lakewriter.it.gold;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The gold tables the outbox implies, folded here from the rules of issue 15 (docs/gold.md),
 * independently of the writer's code and of {@code verify}'s {@code GoldFold}: rows as {@code
 * LakeReader} returns them (timestamps as {@link Instant}), keyed {@code artifact@version} or by
 * workarea id. The JSON columns are written out by hand here, not with the writer's encoder.
 */
final class OutboxGoldFold {
  /** One tenant's three tables, each key to row. */
  record Gold(
      Map<String, Map<String, Object>> lineage,
      Map<String, Map<String, Object>> memories,
      Map<String, Map<String, Object>> workareas) {}

  private final Map<String, Map<String, Object>> lineage = new TreeMap<>();
  private final Map<String, List<String>> paths = new HashMap<>();
  private final Map<String, StringBuilder> retractions = new HashMap<>();
  private final Map<String, Map<String, Object>> workareas = new TreeMap<>();

  private OutboxGoldFold() {}

  /** Every tenant's gold, folded over the committed outbox rows but {@code deadLetters}. */
  static Map<String, Gold> fold(Connection c, Set<Long> deadLetters) throws SQLException {
    Map<String, OutboxGoldFold> tenants = new TreeMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT * FROM oml_outbox ORDER BY seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (!deadLetters.contains(rs.getLong("seq"))) {
          tenants.computeIfAbsent(rs.getString("tenant_id"), t -> new OutboxGoldFold()).apply(rs);
        }
      }
    }
    Map<String, Gold> gold = new TreeMap<>();
    tenants.forEach((t, f) -> gold.put(t, f.gold()));
    return gold;
  }

  private void apply(ResultSet rs) throws SQLException {
    long seq = rs.getLong("seq");
    String kind = rs.getString("kind");
    String workarea = rs.getString("workarea_id");
    String path = rs.getString("path_at_write");
    OffsetDateTime t = rs.getObject("event_time", OffsetDateTime.class);
    Instant time = t == null ? null : t.toInstant();
    if (kind.startsWith("workarea_")) {
      Map<String, Object> w = workareas.computeIfAbsent(workarea, id -> emptyWorkarea(id, rs));
      w.put("seq", seq);
      String prefix = kind.equals("workarea_validated") ? "validated" : "invalidated";
      w.put("state", prefix);
      if (prefix.equals("validated")) {
        w.put("path", path);
      }
      w.put(prefix + "_by", rs.getString("writer_identity"));
      w.put(prefix + "_seq", seq);
      w.put(prefix + "_time", time);
      return;
    }
    String artifact = rs.getString("artifact_id");
    long v = rs.getLong("artifact_version");
    if (artifact == null || rs.wasNull()) {
      return;
    }
    String key = artifact + "@" + v;
    Map<String, Object> row = lineage.get(key);
    switch (kind) {
      case "journal" -> {
        if (row == null) {
          row = newLineage(key, artifact, v, seq, rs, workarea);
          row.put("submitted_seq", seq);
          row.put("submitted_time", time);
          row.put("plaintext_digest", rs.getString("plaintext_digest"));
          row.put("ciphertext_digest", rs.getString("ciphertext_digest"));
          addPath(key, path);
        }
      }
      case "materialize" -> {
        if (row == null || row.get("promoted_seq") == null) {
          if (row == null) {
            row = newLineage(key, artifact, v, seq, rs, workarea);
          }
          row.put("seq", seq);
          row.put("state", "active");
          row.put("promoted_seq", seq);
          row.put("promoted_time", time);
          for (String column : List.of("writer_identity", "principal", "ratified_by",
              "provenance_class", "plaintext_digest", "ciphertext_digest", "data_key_id")) {
            row.put(column, rs.getString(column));
          }
          row.put("workarea_id", workarea);
          addPath(key, path);
        }
      }
      default -> {
        if (row == null) {
          return;
        }
        StringBuilder r = retractions.get(key);
        r.append(r.length() == 0 ? "" : ",").append("{\"seq\":").append(seq)
            .append(",\"kind\":\"").append(kind).append("\",\"time\":")
            .append(time == null ? "null" : micros(time)).append('}');
        row.put("seq", seq);
        Object state = row.get("state");
        if (kind.equals("reassign")) {
          if (!"erased".equals(state)) {
            row.put("workarea_id", workarea);
            addPath(key, path);
          }
        } else if (state != null && !"erased".equals(state)) {
          row.put("state", kind.equals("demote") ? "demoted"
              : kind.equals("erase") ? "erased" : "simulation_ended");
        }
      }
    }
  }

  private Map<String, Object> newLineage(String key, String artifact, long version, long seq,
      ResultSet rs, String workarea) throws SQLException {
    Map<String, Object> row = new LinkedHashMap<>();
    for (String column : List.of("artifact_id", "version", "seq", "workarea_id", "tenant_id",
        "state", "submitted_seq", "submitted_time", "promoted_seq", "promoted_time",
        "writer_identity", "principal", "ratified_by", "provenance_class", "plaintext_digest",
        "ciphertext_digest", "data_key_id", "paths", "retractions")) {
      row.put(column, null);
    }
    row.put("artifact_id", artifact);
    row.put("version", version);
    row.put("seq", seq);
    row.put("workarea_id", workarea);
    row.put("tenant_id", rs.getString("tenant_id"));
    lineage.put(key, row);
    paths.put(key, new ArrayList<>());
    retractions.put(key, new StringBuilder());
    return row;
  }

  private static Map<String, Object> emptyWorkarea(String id, ResultSet rs) {
    Map<String, Object> w = new LinkedHashMap<>();
    for (String column : List.of("workarea_id", "seq", "tenant_id", "state", "path",
        "validated_by", "validated_seq", "validated_time", "invalidated_by", "invalidated_seq",
        "invalidated_time")) {
      w.put(column, null);
    }
    w.put("workarea_id", id);
    try {
      w.put("tenant_id", rs.getString("tenant_id"));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return w;
  }

  private void addPath(String key, String path) {
    List<String> list = paths.get(key);
    if (path != null && !list.contains(path)) {
      list.add(path);
    }
  }

  private static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000L;
  }

  private Gold gold() {
    Map<String, Map<String, Object>> lineageRows = new TreeMap<>();
    Map<String, Map<String, Object>> memories = new TreeMap<>();
    lineage.forEach(
        (key, row) -> {
          Map<String, Object> out = new LinkedHashMap<>(row);
          StringBuilder p = new StringBuilder("[");
          for (String path : paths.get(key)) {
            p.append(p.length() == 1 ? "" : ",").append('"').append(path).append('"');
          }
          out.put("paths", p.append(']').toString());
          out.put("retractions", "[" + retractions.get(key) + "]");
          lineageRows.put(key, out);
          Map<String, Object> w = workareas.get((String) row.get("workarea_id"));
          if ("active".equals(row.get("state")) && w != null && "validated".equals(w.get("state"))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workarea_id", row.get("workarea_id"));
            m.put("artifact_id", row.get("artifact_id"));
            m.put("version", row.get("version"));
            m.put("seq", Math.max((Long) row.get("seq"), (Long) w.get("seq")));
            for (String column : List.of("tenant_id", "promoted_seq", "promoted_time",
                "writer_identity", "principal", "ratified_by", "provenance_class",
                "plaintext_digest", "ciphertext_digest", "data_key_id")) {
              m.put(column, row.get(column));
            }
            m.put("validated_seq", w.get("validated_seq"));
            memories.put(key, m);
          }
        });
    Map<String, Map<String, Object>> workareaRows = new TreeMap<>();
    workareas.forEach((id, w) -> workareaRows.put(id, new LinkedHashMap<>(w)));
    return new Gold(lineageRows, memories, workareaRows);
  }
}
