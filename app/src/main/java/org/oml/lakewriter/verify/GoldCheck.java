package org.oml.lakewriter.verify;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
 * gets no commit when a batch changes nothing in it, so its version may lag its tenant's bronze);
 * an event after that version and at or below {@code bound} that changes the table's content is
 * {@value #BEHIND}: the table missed a batch (or is missing: an absent table is at version -1).
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
   * compares each gold table of {@code tenant} with the fold at the table's txn version; an event
   * above that version and at or below {@code bound} that changes the table is {@value #BEHIND}.
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
    Set<TableKind> compared = new TreeSet<>();
    Set<TableKind> behind = new TreeSet<>();
    List<Finding> findings = new ArrayList<>();
    for (GoldFold.Event e : events) {
      for (TableKind kind : GoldFold.goldKinds()) {
        if (!compared.contains(kind) && e.seq() > version.get(kind)) {
          findings.addAll(compareAt(tenant, kind, fold, gold));
          compared.add(kind);
        }
      }
      Set<TableKind> changed = fold.apply(e);
      for (TableKind kind : changed) {
        if (e.seq() > version.get(kind) && e.seq() <= bound && behind.add(kind)) {
          findings.add(
              new Finding(
                  BEHIND,
                  TableId.of(tenant, kind).relativePath(),
                  subjectOf(kind, e),
                  "seq " + e.seq() + " (" + e.kind() + ") at or below " + bound
                      + " changes the table, whose txn version is " + version.get(kind)
                      + (gold.get(kind).isEmpty() ? " (the table is missing)" : "")));
        }
      }
    }
    for (TableKind kind : GoldFold.goldKinds()) {
      if (!compared.contains(kind)) {
        findings.addAll(compareAt(tenant, kind, fold, gold));
      }
    }
    return findings;
  }

  private static List<Finding> compareAt(
      String tenant, TableKind kind, GoldFold fold, Map<TableKind, Optional<TableContents>> gold) {
    List<Map<String, Object>> actual =
        gold.get(kind).map(TableContents::rows).orElse(List.of());
    return compare(TableId.of(tenant, kind), fold.rows(kind), actual);
  }

  private static String subjectOf(TableKind kind, GoldFold.Event e) {
    return kind == TableKind.GOLD_WORKAREAS || e.artifactId() == null
        ? String.valueOf(e.workareaId())
        : SilverFold.key(e.artifactId(), e.version());
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
