package org.oml.lakewriter.verify;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.TableContents;

/**
 * Compares one tenant's three gold tables, row by row and column by column, with what {@link
 * GoldFold} says they must hold, and names each difference as a {@link Finding}. Used by {@code
 * verify} (events from the outbox, dead letters left out) and by {@code maintain rebuild-gold
 * --check} (events from bronze).
 *
 * <p>Each table is compared with the fold at the table's <em>own</em> txn version (a gold table
 * gets no commit when a batch changes nothing in it, so its version may lag its tenant's bronze).
 * A table below {@code bound} whose fold at {@code bound} differs from the fold at its version is
 * {@value #BEHIND}: it missed a batch (or is missing: an absent table is at version -1).
 *
 * <p>Finding names, one per kind of difference and table ({@code LINEAGE} = {@code gold/lineage},
 * key {@code artifact@version}; {@code MEMBERSHIP} = {@code gold/workarea_memories}, key {@code
 * artifact@version}; {@code WORKAREA} = {@code gold/workareas}, key the workarea id): {@code
 * GOLD_<T>_MISSING} (the fold has the key, the table not), {@code GOLD_<T>_EXTRA} (the reverse),
 * {@code GOLD_<T>_DUPLICATE} (several rows for one key), {@code GOLD_<T>_MISMATCH} (the message
 * lists every differing column with both values), and {@value #BEHIND}.
 */
public final class GoldCheck {
  public static final String BEHIND = "GOLD_BEHIND";

  private GoldCheck() {}

  /** The word for a table in its findings' names. */
  static String word(TableKind kind) {
    return switch (kind) {
      case GOLD_LINEAGE -> "LINEAGE";
      case GOLD_WORKAREA_MEMORIES -> "MEMBERSHIP";
      case GOLD_WORKAREAS -> "WORKAREA";
      default -> throw new IllegalArgumentException(kind + " is not a gold table");
    };
  }

  /** The key of a row of the table, as findings name it. */
  static String key(TableKind kind, Map<String, Object> row) {
    return kind == TableKind.GOLD_WORKAREAS
        ? String.valueOf(row.get("workarea_id"))
        : SilverFold.key(row.get("artifact_id"), row.get("version"));
  }

  /**
   * Folds {@code events} (one tenant's, in seq order, only those that landed in bronze) and
   * compares each gold table of {@code tenant} with the fold at the table's txn version. A table
   * below {@code bound} whose fold at {@code bound} differs from its fold at its own version is
   * {@value #BEHIND}.
   *
   * <p>Why the net difference and not any change in between: the writer commits a gold table
   * only for a batch whose net effect on it is not nothing (a memory that comes in and leaves in
   * the same batch is no commit), and where batches ended is not known here. An equal fold at
   * both seqs may hide a missed pair of batches that cancel out; a different one is certainly a
   * table behind.
   *
   * @param gold each gold table's contents, empty if the table does not exist
   */
  public static List<Finding> check(
      String tenant,
      Iterable<GoldFold.Event> events,
      Map<TableKind, Optional<TableContents>> gold,
      long bound) {
    GoldFold fold = new GoldFold();
    Map<TableKind, Long> version = new EnumMap<>(TableKind.class);
    for (TableKind kind : GoldFold.goldKinds()) {
      version.put(kind, gold.get(kind).map(TableContents::txnVersion).orElse(-1L));
    }
    Map<TableKind, List<TableRow>> atVersion = new EnumMap<>(TableKind.class);
    Map<TableKind, List<TableRow>> atBound = null;
    for (GoldFold.Event e : events) {
      for (TableKind kind : GoldFold.goldKinds()) {
        if (!atVersion.containsKey(kind) && e.seq() > version.get(kind)) {
          atVersion.put(kind, fold.rows(kind));
        }
      }
      if (atBound == null && e.seq() > bound) {
        atBound = snapshot(fold);
      }
      fold.apply(e);
    }
    for (TableKind kind : GoldFold.goldKinds()) {
      atVersion.computeIfAbsent(kind, fold::rows);
    }
    if (atBound == null) {
      atBound = snapshot(fold);
    }
    List<Finding> findings = new ArrayList<>();
    for (TableKind kind : GoldFold.goldKinds()) {
      TableId table = TableId.of(tenant, kind);
      List<Map<String, Object>> actual =
          gold.get(kind).map(TableContents::rows).orElse(List.of());
      findings.addAll(compare(table, atVersion.get(kind), actual));
      long v = version.get(kind);
      if (v < bound && !atVersion.get(kind).equals(atBound.get(kind))) {
        findings.add(behind(table, atVersion.get(kind), atBound.get(kind), v, bound,
            gold.get(kind).isEmpty()));
      }
    }
    return findings;
  }

  private static Map<TableKind, List<TableRow>> snapshot(GoldFold fold) {
    Map<TableKind, List<TableRow>> rows = new EnumMap<>(TableKind.class);
    for (TableKind kind : GoldFold.goldKinds()) {
      rows.put(kind, fold.rows(kind));
    }
    return rows;
  }

  /** {@value #BEHIND}, naming the first key whose row differs between the two folds. */
  private static Finding behind(TableId table, List<TableRow> atVersion, List<TableRow> atBound,
      long version, long bound, boolean missing) {
    TableSchema schema = LakeSchemas.of(table.kind());
    Map<String, TableRow> before = byKey(table.kind(), schema, atVersion);
    Map<String, TableRow> after = byKey(table.kind(), schema, atBound);
    TreeSet<String> keys = new TreeSet<>(before.keySet());
    keys.addAll(after.keySet());
    List<String> differing = new ArrayList<>();
    for (String key : keys) {
      if (!Objects.equals(before.get(key), after.get(key))) {
        differing.add(key);
      }
    }
    return new Finding(
        BEHIND,
        table.relativePath(),
        differing.get(0),
        "the events after its txn version " + version + (missing ? " (the table is missing)" : "")
            + " up to " + bound + " change " + differing.size() + " of its rows");
  }

  private static Map<String, TableRow> byKey(
      TableKind kind, TableSchema schema, List<TableRow> rows) {
    Map<String, TableRow> m = new TreeMap<>();
    for (TableRow row : rows) {
      m.put(key(kind, GoldFold.asReadRow(schema, row)), row);
    }
    return m;
  }

  /** Compares one gold table's rows (as {@code LakeReader} reads them) with the expected rows. */
  public static List<Finding> compare(
      TableId table, List<TableRow> expected, List<Map<String, Object>> actual) {
    TableKind kind = table.kind();
    TableSchema schema = LakeSchemas.of(kind);
    String where = table.relativePath();
    String prefix = "GOLD_" + word(kind) + "_";
    Map<String, Map<String, Object>> want = new TreeMap<>();
    for (TableRow row : expected) {
      Map<String, Object> m = GoldFold.asReadRow(schema, row);
      want.put(key(kind, m), m);
    }
    Map<String, List<Map<String, Object>>> got = new TreeMap<>();
    for (Map<String, Object> row : actual) {
      got.computeIfAbsent(key(kind, row), k -> new ArrayList<>()).add(row);
    }
    TreeSet<String> keys = new TreeSet<>(want.keySet());
    keys.addAll(got.keySet());
    List<Finding> findings = new ArrayList<>();
    for (String key : keys) {
      Map<String, Object> w = want.get(key);
      List<Map<String, Object>> g = got.getOrDefault(key, List.of());
      if (g.isEmpty()) {
        findings.add(new Finding(prefix + "MISSING", where, key,
            "the fold has a row (seq " + w.get("seq") + ") but the table has none"));
      } else if (w == null) {
        findings.add(new Finding(prefix + "EXTRA", where, key,
            "the table holds " + g.size() + " row(s) (seq " + g.get(0).get("seq")
                + ") but the fold has none"));
      } else {
        if (g.size() > 1) {
          findings.add(new Finding(prefix + "DUPLICATE", where, key,
              g.size() + " rows for one key"));
        }
        for (Map<String, Object> row : g) {
          String diff = differences(schema, w, row);
          if (!diff.isEmpty()) {
            findings.add(new Finding(prefix + "MISMATCH", where, key, diff));
          }
        }
      }
    }
    return findings;
  }

  /** {@code column (table: x, fold: y); ...} for every column that differs; empty if none. */
  static String differences(
      TableSchema schema, Map<String, Object> want, Map<String, Object> row) {
    Map<String, String> diffs = new LinkedHashMap<>();
    for (String column : schema.names()) {
      Object expected = want.get(column);
      Object actual = row.get(column);
      if (!Objects.equals(expected, actual)) {
        diffs.put(column, column + " (table: " + actual + ", fold: " + expected + ")");
      }
    }
    return String.join("; ", diffs.values());
  }
}
