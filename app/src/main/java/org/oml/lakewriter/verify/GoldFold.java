package org.oml.lakewriter.verify;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.gold.GoldJson;
import org.oml.lakewriter.delta.gold.GoldJson.RetractionEntry;

/**
 * What one tenant's three gold tables must hold, folded from the tenant's events alone, in seq
 * order: the rules of /work/brief/gold-rules.md, restated in docs/gold.md. It is a pure function
 * of the events it is fed (no clock, no lake, no writer code), written apart from the streaming
 * writer on purpose: {@code verify} feeds it the outbox (dead letters left out) and {@code maintain
 * rebuild-gold} feeds it bronze, and a bug in the writer must show up as a difference, not be
 * copied.
 *
 * <p>Feed only events that landed in bronze (valid, not a dead letter), each seq once, in
 * increasing seq order ({@link #apply} refuses a seq at or below the last one).
 *
 * <ul>
 *   <li>{@code gold/workareas}: a validation sets state {@value #VALIDATED}, path, validated_*;
 *       a revocation sets state {@value #INVALIDATED} and invalidated_*; both set seq.
 *   <li>{@code gold/lineage}, per (artifact_id, version): the first journal event creates the row
 *       (submitted_*, digests, its path); the first materialize promotes it (state {@code active},
 *       promoted_*, attribution, digests, workarea, path); every retraction of an existing row is
 *       appended to {@code retractions} and moves the state as silver's {@code StateTransitions}
 *       (erased is terminal); a reassign of a row not erased moves the workarea and appends its
 *       path. {@code paths} holds each non-null path once, in order of first appearance.
 *   <li>{@code gold/workarea_memories}: one row per lineage row in state {@code active} whose
 *       workarea has a row in state {@value #VALIDATED}: a function of the two tables above.
 * </ul>
 */
public final class GoldFold {
  public static final String VALIDATED = "validated";
  public static final String INVALIDATED = "invalidated";

  private static final String ACTIVE = "active";
  private static final String DEMOTED = "demoted";
  private static final String ERASED = "erased";
  private static final String SIMULATION_ENDED = "simulation_ended";

  /** The columns a memory copies from its lineage row, besides its key, seq and validated_seq. */
  private static final List<String> MEMORY_FROM_LINEAGE =
      List.of(
          "workarea_id", "tenant_id", "promoted_seq", "promoted_time", "writer_identity",
          "principal", "ratified_by", "provenance_class", "plaintext_digest",
          "ciphertext_digest", "data_key_id");

  /**
   * One event as the fold reads it: a bronze row's columns (or the same columns of an outbox row).
   * {@code eventTimeMicros} is the event time in microseconds since the epoch, or null.
   */
  public record Event(
      long seq,
      String kind,
      String tenantId,
      String artifactId,
      Long version,
      String workareaId,
      String pathAtWrite,
      String writerIdentity,
      String principal,
      String ratifiedBy,
      String provenanceClass,
      String plaintextDigest,
      String ciphertextDigest,
      String dataKeyId,
      Long eventTimeMicros) {
    public Event {
      Objects.requireNonNull(kind, "kind");
    }

    /**
     * An event from a row of {@code bronze/journal_events} as {@code LakeReader} returns it (or a
     * map with the same column names): {@code version}, {@code event_time} as an {@link Instant}
     * or as microseconds.
     */
    public static Event fromRow(Map<String, Object> row) {
      return new Event(
          (Long) row.get("seq"),
          (String) row.get("kind"),
          (String) row.get("tenant_id"),
          (String) row.get("artifact_id"),
          (Long) row.get("version"),
          (String) row.get("workarea_id"),
          (String) row.get("path_at_write"),
          (String) row.get("writer_identity"),
          (String) row.get("principal"),
          (String) row.get("ratified_by"),
          (String) row.get("provenance_class"),
          (String) row.get("plaintext_digest"),
          (String) row.get("ciphertext_digest"),
          (String) row.get("data_key_id"),
          micros(row.get("event_time")));
    }

    ArtifactKey key() {
      return artifactId == null || version == null ? null : new ArtifactKey(artifactId, version);
    }
  }

  /** A lineage row as the fold keeps it: columns by name, the two lists as lists. */
  private static final class Lineage {
    final Map<String, Object> columns = new LinkedHashMap<>();
    final List<String> paths = new ArrayList<>();
    final List<RetractionEntry> retractions = new ArrayList<>();

    Object get(String column) {
      return columns.get(column);
    }

    void appendPath(String path) {
      if (path != null && !paths.contains(path)) {
        paths.add(path);
      }
    }
  }

  private final TreeMap<ArtifactKey, Lineage> lineage = new TreeMap<>();
  private final TreeMap<String, Map<String, Object>> workareas = new TreeMap<>();
  /** The lineage keys whose row names each workarea now: what a validation brings in. */
  private final Map<String, Set<ArtifactKey>> keysOfWorkarea = new HashMap<>();

  private long lastSeq = Long.MIN_VALUE;

  /**
   * Applies one event; returns the gold tables whose content it changed (none for an event gold
   * ignores). A memory counts as changed when its row differs, seq included.
   */
  public Set<TableKind> apply(Event e) {
    if (e.seq() <= lastSeq) {
      throw new IllegalArgumentException(
          "gold fold: seq " + e.seq() + " is not after the last applied seq " + lastSeq
              + "; feed each seq once, in increasing order");
    }
    lastSeq = e.seq();
    Set<TableKind> changed = EnumSet.noneOf(TableKind.class);
    switch (e.kind()) {
      case "workarea_validated", "workarea_invalidated" -> {
        if (e.workareaId() == null) {
          return changed; // never in bronze (MISSING_FIELD)
        }
        Map<String, TableRow> before = memoriesOfWorkarea(e.workareaId());
        validation(e);
        changed.add(TableKind.GOLD_WORKAREAS);
        if (!before.equals(memoriesOfWorkarea(e.workareaId()))) {
          changed.add(TableKind.GOLD_WORKAREA_MEMORIES);
        }
      }
      default -> {
        ArtifactKey key = e.key();
        if (key == null) {
          return changed; // a journal event about no artifact: no lineage
        }
        TableRow before = memory(key);
        if (lineageEvent(key, e)) {
          changed.add(TableKind.GOLD_LINEAGE);
          if (!Objects.equals(before, memory(key))) {
            changed.add(TableKind.GOLD_WORKAREA_MEMORIES);
          }
        }
      }
    }
    return changed;
  }

  private void validation(Event e) {
    Map<String, Object> row =
        workareas.computeIfAbsent(
            e.workareaId(),
            id -> {
              Map<String, Object> created = new LinkedHashMap<>();
              created.put("workarea_id", id);
              created.put("tenant_id", e.tenantId());
              return created;
            });
    row.put("seq", e.seq());
    if (e.kind().equals("workarea_validated")) {
      row.put("state", VALIDATED);
      row.put("path", e.pathAtWrite());
      row.put("validated_by", e.writerIdentity());
      row.put("validated_seq", e.seq());
      row.put("validated_time", e.eventTimeMicros());
    } else {
      row.put("state", INVALIDATED);
      row.put("invalidated_by", e.writerIdentity());
      row.put("invalidated_seq", e.seq());
      row.put("invalidated_time", e.eventTimeMicros());
    }
  }

  /** Applies an event with a key to lineage; true if the row changed. */
  private boolean lineageEvent(ArtifactKey key, Event e) {
    Lineage row = lineage.get(key);
    switch (e.kind()) {
      case "journal" -> {
        if (row != null) {
          return false; // only the first journal event of a key writes lineage
        }
        row = create(key, e);
        row.columns.put("submitted_seq", e.seq());
        row.columns.put("submitted_time", e.eventTimeMicros());
        row.columns.put("plaintext_digest", e.plaintextDigest());
        row.columns.put("ciphertext_digest", e.ciphertextDigest());
        row.appendPath(e.pathAtWrite());
        return true;
      }
      case "materialize" -> {
        if (row != null && row.get("promoted_seq") != null) {
          return false; // a re-promotion changes nothing, as in silver
        }
        if (row == null) {
          row = create(key, e);
        }
        row.columns.put("seq", e.seq());
        row.columns.put("state", ACTIVE);
        row.columns.put("promoted_seq", e.seq());
        row.columns.put("promoted_time", e.eventTimeMicros());
        row.columns.put("writer_identity", e.writerIdentity());
        row.columns.put("principal", e.principal());
        row.columns.put("ratified_by", e.ratifiedBy());
        row.columns.put("provenance_class", e.provenanceClass());
        row.columns.put("plaintext_digest", e.plaintextDigest());
        row.columns.put("ciphertext_digest", e.ciphertextDigest());
        row.columns.put("data_key_id", e.dataKeyId());
        moveTo(key, row, e.workareaId());
        row.appendPath(e.pathAtWrite());
        return true;
      }
      case "demote", "erase", "simulation_end", "reassign" -> {
        if (row == null) {
          return false; // a retraction without a row: nothing (silver's RETRACT_WITHOUT_ROW)
        }
        row.retractions.add(new RetractionEntry(e.seq(), e.kind(), e.eventTimeMicros()));
        row.columns.put("seq", e.seq());
        Object state = row.get("state");
        if (e.kind().equals("reassign")) {
          if (!ERASED.equals(state)) {
            moveTo(key, row, e.workareaId());
            row.appendPath(e.pathAtWrite());
          }
        } else if (state != null && !ERASED.equals(state)) {
          row.columns.put("state", targetState(e.kind()));
        }
        return true;
      }
      default -> {
        return false; // a kind gold does not read
      }
    }
  }

  private static String targetState(String kind) {
    return switch (kind) {
      case "demote" -> DEMOTED;
      case "erase" -> ERASED;
      default -> SIMULATION_ENDED;
    };
  }

  private Lineage create(ArtifactKey key, Event e) {
    Lineage row = new Lineage();
    for (String column : LakeSchemas.GOLD_LINEAGE.names()) {
      row.columns.put(column, null);
    }
    row.columns.put("artifact_id", key.artifactId());
    row.columns.put("version", key.version());
    row.columns.put("seq", e.seq());
    row.columns.put("tenant_id", e.tenantId());
    lineage.put(key, row);
    moveTo(key, row, e.workareaId());
    return row;
  }

  private void moveTo(ArtifactKey key, Lineage row, String workarea) {
    Object old = row.get("workarea_id");
    if (old != null) {
      Set<ArtifactKey> keys = keysOfWorkarea.get(old);
      if (keys != null) {
        keys.remove(key);
      }
    }
    row.columns.put("workarea_id", workarea);
    if (workarea != null) {
      keysOfWorkarea.computeIfAbsent(workarea, w -> new TreeSet<>()).add(key);
    }
  }

  /** The memory the rules give for a key now, or null. */
  private TableRow memory(ArtifactKey key) {
    Lineage l = lineage.get(key);
    if (l == null || !ACTIVE.equals(l.get("state")) || l.get("workarea_id") == null) {
      return null;
    }
    Map<String, Object> w = workareas.get((String) l.get("workarea_id"));
    if (w == null || !VALIDATED.equals(w.get("state"))) {
      return null;
    }
    long seq = Math.max((Long) l.get("seq"), (Long) w.get("seq"));
    TableRow.Builder b =
        TableRow.builder(LakeSchemas.GOLD_WORKAREA_MEMORIES, seq)
            .set("artifact_id", key.artifactId())
            .set("version", key.version())
            .set("validated_seq", w.get("validated_seq"));
    for (String column : MEMORY_FROM_LINEAGE) {
      b.set(column, l.get(column));
    }
    return b.build();
  }

  private Map<String, TableRow> memoriesOfWorkarea(String workarea) {
    Map<String, TableRow> rows = new TreeMap<>();
    for (ArtifactKey key : keysOfWorkarea.getOrDefault(workarea, Set.of())) {
      TableRow m = memory(key);
      if (m != null) {
        rows.put(key.toString(), m);
      }
    }
    return rows;
  }

  /** {@code gold/lineage} as it must be now, ordered by (artifact_id, version). */
  public List<TableRow> lineageRows() {
    List<TableRow> rows = new ArrayList<>(lineage.size());
    for (Lineage l : lineage.values()) {
      TableRow.Builder b = TableRow.builder(LakeSchemas.GOLD_LINEAGE, (Long) l.get("seq"));
      l.columns.forEach(
          (column, value) -> {
            if (!column.equals("seq")) {
              b.set(column, value);
            }
          });
      b.set("paths", GoldJson.paths(l.paths));
      b.set("retractions", GoldJson.retractions(l.retractions));
      rows.add(b.build());
    }
    return rows;
  }

  /** {@code gold/workareas} as it must be now, ordered by workarea_id. */
  public List<TableRow> workareaRows() {
    List<TableRow> rows = new ArrayList<>(workareas.size());
    for (Map<String, Object> w : workareas.values()) {
      TableRow.Builder b = TableRow.builder(LakeSchemas.GOLD_WORKAREAS, (Long) w.get("seq"));
      w.forEach(
          (column, value) -> {
            if (!column.equals("seq")) {
              b.set(column, value);
            }
          });
      rows.add(b.build());
    }
    return rows;
  }

  /** {@code gold/workarea_memories} as it must be now, ordered by (artifact_id, version). */
  public List<TableRow> membershipRows() {
    List<TableRow> rows = new ArrayList<>();
    for (ArtifactKey key : lineage.keySet()) {
      TableRow m = memory(key);
      if (m != null) {
        rows.add(m);
      }
    }
    return rows;
  }

  /** The rows of one gold table as they must be now. */
  public List<TableRow> rows(TableKind kind) {
    return switch (kind) {
      case GOLD_LINEAGE -> lineageRows();
      case GOLD_WORKAREAS -> workareaRows();
      case GOLD_WORKAREA_MEMORIES -> membershipRows();
      default -> throw new IllegalArgumentException(kind + " is not a gold table");
    };
  }

  /** The gold tables, in the order a tenant's tables commit (by path). */
  public static List<TableKind> goldKinds() {
    return List.of(
        TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES, TableKind.GOLD_WORKAREAS);
  }

  /**
   * A row as {@code LakeReader} returns rows: column name to value, timestamps as {@link Instant}.
   * How fold rows are compared with a table's.
   */
  public static Map<String, Object> asReadRow(TableSchema schema, TableRow row) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < schema.columns().size(); i++) {
      LakeSchemas.Column c = schema.columns().get(i);
      Object v = row.value(i);
      if (c.type() == LakeSchemas.ColumnType.TIMESTAMP && v != null) {
        long micros = (Long) v;
        v = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
            Math.floorMod(micros, 1_000_000L) * 1_000L);
      }
      m.put(c.name(), v);
    }
    return m;
  }

  /** Microseconds since the epoch of an {@link Instant} or a {@code Long}; null stays null. */
  public static Long micros(Object time) {
    if (time == null) {
      return null;
    }
    if (time instanceof Instant t) {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000L);
    }
    if (time instanceof Long l) {
      return l;
    }
    throw new IllegalArgumentException("event_time is neither an Instant nor microseconds: " + time);
  }
}
