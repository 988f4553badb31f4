package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The gold tables a tenant's events must give, folded here from the events alone, written from the
 * rules of issue 15 without any code of the writer (no GoldTransitions, no GoldJson): the tests'
 * independent expectation. Every event given must be one that lands in bronze.
 *
 * <p>Rows are column name to value, timestamps as microseconds ({@code Long}), keyed by {@code
 * artifact_id@version} (lineage, memories) or {@code workarea_id} (workareas).
 */
public final class GoldOracle {
  private static final class Lineage {
    final Map<String, Object> columns = new LinkedHashMap<>();
    final List<String> paths = new ArrayList<>();
    final List<String> retractions = new ArrayList<>();
  }

  private final Map<String, Lineage> lineage = new TreeMap<>();
  private final Map<String, Map<String, Object>> workareas = new TreeMap<>();

  public static GoldOracle of(List<OutboxEvent> events) {
    GoldOracle oracle = new GoldOracle();
    events.stream()
        .sorted(java.util.Comparator.comparingLong(OutboxEvent::seq))
        .forEach(oracle::apply);
    return oracle;
  }

  public void apply(OutboxEvent e) {
    String kind = e.kind();
    if (kind.equals("workarea_validated") || kind.equals("workarea_invalidated")) {
      Map<String, Object> w =
          workareas.computeIfAbsent(
              e.workareaId(),
              id -> {
                Map<String, Object> row = new HashMap<>();
                row.put("workarea_id", id);
                row.put("tenant_id", e.tenantId());
                return row;
              });
      w.put("seq", e.seq());
      if (kind.equals("workarea_validated")) {
        w.put("state", "validated");
        w.put("path", e.pathAtWrite());
        w.put("validated_by", e.writerIdentity());
        w.put("validated_seq", e.seq());
        w.put("validated_time", e.eventTimeMicros());
      } else {
        w.put("state", "invalidated");
        w.put("invalidated_by", e.writerIdentity());
        w.put("invalidated_seq", e.seq());
        w.put("invalidated_time", e.eventTimeMicros());
      }
      return;
    }
    if (e.artifactId() == null || e.artifactVersion() == null) {
      return;
    }
    String key = e.artifactId() + "@" + e.artifactVersion();
    Lineage l = lineage.get(key);
    switch (kind) {
      case "journal" -> {
        if (l == null) {
          l = create(key, e);
          l.columns.put("submitted_seq", e.seq());
          l.columns.put("submitted_time", e.eventTimeMicros());
          l.columns.put("plaintext_digest", e.plaintextDigest());
          l.columns.put("ciphertext_digest", e.ciphertextDigest());
          addPath(l, e.pathAtWrite());
        }
      }
      case "materialize" -> {
        if (l != null && l.columns.get("promoted_seq") != null) {
          return;
        }
        if (l == null) {
          l = create(key, e);
        }
        l.columns.put("seq", e.seq());
        l.columns.put("state", "active");
        l.columns.put("promoted_seq", e.seq());
        l.columns.put("promoted_time", e.eventTimeMicros());
        l.columns.put("writer_identity", e.writerIdentity());
        l.columns.put("principal", e.principal());
        l.columns.put("ratified_by", e.ratifiedBy());
        l.columns.put("provenance_class", e.provenanceClass());
        l.columns.put("plaintext_digest", e.plaintextDigest());
        l.columns.put("ciphertext_digest", e.ciphertextDigest());
        l.columns.put("data_key_id", e.dataKeyId());
        l.columns.put("workarea_id", e.workareaId());
        addPath(l, e.pathAtWrite());
      }
      default -> {
        if (l == null) {
          return;
        }
        l.retractions.add(
            "{\"seq\":"
                + e.seq()
                + ",\"kind\":\""
                + kind
                + "\",\"time\":"
                + (e.eventTimeMicros() == null ? "null" : e.eventTimeMicros().toString())
                + "}");
        l.columns.put("seq", e.seq());
        Object state = l.columns.get("state");
        boolean erased = "erased".equals(state);
        if (kind.equals("reassign")) {
          if (!erased) {
            l.columns.put("workarea_id", e.workareaId());
            addPath(l, e.pathAtWrite());
          }
        } else if (state != null && !erased) {
          l.columns.put(
              "state",
              switch (kind) {
                case "demote" -> "demoted";
                case "erase" -> "erased";
                default -> "simulation_ended";
              });
        }
      }
    }
  }

  private Lineage create(String key, OutboxEvent e) {
    Lineage l = new Lineage();
    for (String column :
        List.of(
            "artifact_id", "version", "seq", "workarea_id", "tenant_id", "state", "submitted_seq",
            "submitted_time", "promoted_seq", "promoted_time", "writer_identity", "principal",
            "ratified_by", "provenance_class", "plaintext_digest", "ciphertext_digest",
            "data_key_id")) {
      l.columns.put(column, null);
    }
    l.columns.put("artifact_id", e.artifactId());
    l.columns.put("version", e.artifactVersion());
    l.columns.put("seq", e.seq());
    l.columns.put("tenant_id", e.tenantId());
    l.columns.put("workarea_id", e.workareaId());
    lineage.put(key, l);
    return l;
  }

  private static void addPath(Lineage l, String path) {
    if (path != null && !l.paths.contains(path)) {
      l.paths.add(path);
    }
  }

  /** {@code gold/lineage}'s rows. */
  public Map<String, Map<String, Object>> lineage() {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    lineage.forEach(
        (key, l) -> {
          Map<String, Object> row = new HashMap<>(l.columns);
          StringBuilder paths = new StringBuilder("[");
          for (String p : l.paths) {
            paths.append(paths.length() > 1 ? "," : "").append('"').append(p).append('"');
          }
          row.put("paths", paths.append(']').toString());
          row.put("retractions", "[" + String.join(",", l.retractions) + "]");
          rows.put(key, row);
        });
    return rows;
  }

  /** {@code gold/workareas}'s rows (absent columns are null). */
  public Map<String, Map<String, Object>> workareas() {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Map.Entry<String, Map<String, Object>> w : workareas.entrySet()) {
      Map<String, Object> row = new HashMap<>();
      for (String column :
          List.of(
              "workarea_id", "seq", "tenant_id", "state", "path", "validated_by",
              "validated_seq", "validated_time", "invalidated_by", "invalidated_seq",
              "invalidated_time")) {
        row.put(column, w.getValue().get(column));
      }
      rows.put(w.getKey(), row);
    }
    return rows;
  }

  /** {@code gold/workarea_memories}'s rows. */
  public Map<String, Map<String, Object>> memories() {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    lineage.forEach(
        (key, l) -> {
          Map<String, Object> w = workareas.get((String) l.columns.get("workarea_id"));
          if (!"active".equals(l.columns.get("state"))
              || w == null
              || !"validated".equals(w.get("state"))) {
            return;
          }
          Map<String, Object> row = new HashMap<>();
          for (String column :
              List.of(
                  "workarea_id", "artifact_id", "version", "tenant_id", "promoted_seq",
                  "promoted_time", "writer_identity", "principal", "ratified_by",
                  "provenance_class", "plaintext_digest", "ciphertext_digest", "data_key_id")) {
            row.put(column, l.columns.get(column));
          }
          row.put("seq", Math.max((Long) l.columns.get("seq"), (Long) w.get("seq")));
          row.put("validated_seq", w.get("validated_seq"));
          rows.put(key, row);
        });
    return rows;
  }
}
