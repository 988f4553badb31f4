package org.oml.lakewriter.verify;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one tenant's {@code silver/memories} must hold, folded from the outbox alone (the silver
 * rules of issue 11), so that {@code verify} can compare it key by key. Written apart from the
 * writer's MERGE code on purpose: a bug there must show up here as a finding, not be copied.
 *
 * <p>The caller feeds the tenant's outbox events in seq order, leaving out every seq that is in
 * the tenant's lake {@code dead_letter} table (a dead letter is sticky: never applied).
 *
 * <ol>
 *   <li>A {@code materialize} of a key without a row creates it: state {@value #ACTIVE}, its
 *       workarea, attribution, digests, data key and seq.
 *   <li>A {@code materialize} of a key with a row (any state) changes nothing.
 *   <li>A retraction of a key with a row applies the transitions below, in seq order.
 *   <li>A retraction of a key without a row changes nothing (no tombstone).
 * </ol>
 *
 * <pre>
 *   state \ retraction | demote      | erase       | simulation_end | reassign(w)
 *   active             | demoted     | erased      | simulation_ended | workarea = w
 *   demoted            | -           | erased      | simulation_ended | workarea = w
 *   simulation_ended   | demoted     | erased      | -              | workarea = w
 *   erased             | -           | -           | -              | -
 * </pre>
 *
 * A change sets the row's seq to the retraction's; a retraction that changes nothing (same state,
 * same workarea, or an erased row) leaves the row, seq included, as it is.
 */
public final class SilverFold {
  public static final String ACTIVE = "active";
  public static final String DEMOTED = "demoted";
  public static final String ERASED = "erased";
  public static final String SIMULATION_ENDED = "simulation_ended";

  /** The columns a promotion copies from its outbox row into silver, besides key, state, seq. */
  public static final List<String> COPIED =
      List.of(
          "tenant_id", "workarea_id", "path_at_write", "writer_identity", "principal",
          "ratified_by", "provenance_class", "event_time", "plaintext_digest",
          "ciphertext_digest", "data_key_id");

  /**
   * One outbox row as the fold reads it: its seq, kind, key, and (for a materialize) the values of
   * {@link #COPIED} by column name; a reassign needs {@code workarea_id} only.
   */
  public record Event(long seq, String kind, String artifactId, Long version,
      Map<String, Object> columns) {
    public Event {
      Objects.requireNonNull(kind, "kind");
      columns = columns == null ? Map.of() : columns;
    }

    String key() {
      return SilverFold.key(artifactId, version);
    }
  }

  private final Map<String, Map<String, Object>> rows = new TreeMap<>();

  /** The key as findings name it: {@code artifact@version}. */
  public static String key(Object artifactId, Object version) {
    return artifactId + "@" + version;
  }

  /** Applies one event; returns true if it changed what silver must hold. */
  public boolean apply(Event e) {
    if (e.artifactId() == null || e.version() == null) {
      return false; // a dead letter (MISSING_FIELD): never applied
    }
    Map<String, Object> row = rows.get(e.key());
    if (e.kind().equals("materialize")) {
      if (row != null) {
        return false;
      }
      Map<String, Object> created = new LinkedHashMap<>();
      created.put("artifact_id", e.artifactId());
      created.put("version", e.version());
      created.put("state", ACTIVE);
      created.put("seq", e.seq());
      for (String column : COPIED) {
        created.put(column, e.columns().get(column));
      }
      rows.put(e.key(), created);
      return true;
    }
    if (row == null || ERASED.equals(row.get("state"))) {
      return false;
    }
    String column;
    Object value;
    switch (e.kind()) {
      case "demote" -> {
        column = "state";
        value = DEMOTED;
      }
      case "erase" -> {
        column = "state";
        value = ERASED;
      }
      case "simulation_end" -> {
        column = "state";
        value = SIMULATION_ENDED;
      }
      case "reassign" -> {
        column = "workarea_id";
        value = e.columns().get("workarea_id");
      }
      default -> {
        return false; // journal events never reach silver
      }
    }
    if (Objects.equals(row.get(column), value)) {
      return false;
    }
    row.put(column, value);
    row.put("seq", e.seq());
    return true;
  }

  /** The rows silver must hold, by key, each as column name to value; a live view. */
  public Map<String, Map<String, Object>> rows() {
    return Collections.unmodifiableMap(rows);
  }

  /** A deep copy of {@link #rows()} as it stands now. */
  public Map<String, Map<String, Object>> snapshot() {
    Map<String, Map<String, Object>> copy = new TreeMap<>();
    rows.forEach((k, v) -> copy.put(k, new LinkedHashMap<>(v)));
    return copy;
  }
}
