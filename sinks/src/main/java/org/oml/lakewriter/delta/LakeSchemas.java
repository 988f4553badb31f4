package org.oml.lakewriter.delta;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The one place that declares the columns of every lake table, free of Delta Kernel types (the
 * {@code kernel} package translates them).
 *
 * <p>Invariants kept here:
 *
 * <ul>
 *   <li>The data-skipping keys come first and {@link TableSchema#indexedColumns()} covers exactly
 *       them ({@code delta.dataSkippingNumIndexedCols}), so per-file statistics never describe a
 *       body: Kernel's binary min/max are lossy copies of the value itself.
 *   <li>Only {@code silver/memories} has a {@code body} column; the gold tables never do. Bronze holds digests and the
 *       envelope; the dead letters hold the body's sha256 instead of the body.
 * </ul>
 */
public final class LakeSchemas {
  /** Column types we use; timestamps are microseconds since the epoch, UTC. */
  public enum ColumnType {
    STRING,
    LONG,
    INT,
    TIMESTAMP,
    BINARY
  }

  /** One column; only {@code seq} is declared non-null, every other column may be absent. */
  public record Column(String name, ColumnType type, boolean nullable) {
    public Column {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(type, "type");
    }
  }

  /** The columns of a table, in file order, and how many leading columns carry statistics. */
  public static final class TableSchema {
    private final List<Column> columns;
    private final int indexedColumns;
    /** Column name to position: the MERGEs set columns by name on every row they build. */
    private final Map<String, Integer> positions;

    public TableSchema(List<Column> columns, int indexedColumns) {
      this.columns = List.copyOf(columns);
      if (indexedColumns < 1 || indexedColumns > columns.size()) {
        throw new IllegalArgumentException("indexedColumns out of range: " + indexedColumns);
      }
      this.indexedColumns = indexedColumns;
      Map<String, Integer> byName = new HashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        byName.put(columns.get(i).name(), i);
      }
      this.positions = Map.copyOf(byName);
    }

    public List<Column> columns() {
      return columns;
    }

    public int indexedColumns() {
      return indexedColumns;
    }

    /** The position of a column, or an exception naming the column when it is not declared. */
    public int indexOf(String name) {
      Integer i = positions.get(name);
      if (i == null) {
        throw new IllegalArgumentException("no column " + name + " in " + names());
      }
      return i;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof TableSchema other
          && other.indexedColumns == indexedColumns
          && other.columns.equals(columns);
    }

    @Override
    public int hashCode() {
      return 31 * columns.hashCode() + indexedColumns;
    }

    @Override
    public String toString() {
      return "TableSchema" + names() + ", " + indexedColumns + " indexed";
    }

    public List<String> names() {
      return columns.stream().map(Column::name).toList();
    }
  }

  /** Every event of every kind; skipping keys: artifact_id, version, seq, kind. */
  public static final TableSchema BRONZE_JOURNAL_EVENTS =
      new TableSchema(
          List.of(
              str("artifact_id"),
              lng("version"),
              seq(),
              str("kind"),
              str("tenant_id"),
              lng("tx_id"),
              str("workarea_id"),
              str("path_at_write"),
              str("writer_identity"),
              str("principal"),
              str("ratified_by"),
              str("provenance_class"),
              str("plaintext_digest"),
              str("ciphertext_digest"),
              str("data_key_id"),
              str("envelope"),
              ts("event_time"),
              lng("requeue_of")),
          4);

  /**
   * One row per promoted (artifact_id, version); skipping keys: artifact_id, version, state, seq.
   */
  public static final TableSchema SILVER_MEMORIES =
      new TableSchema(
          List.of(
              str("artifact_id"),
              lng("version"),
              str("state"),
              seq(),
              str("tenant_id"),
              str("workarea_id"),
              str("path_at_write"),
              str("writer_identity"),
              str("principal"),
              str("ratified_by"),
              str("provenance_class"),
              ts("event_time"),
              str("plaintext_digest"),
              str("ciphertext_digest"),
              str("data_key_id"),
              new Column("body", ColumnType.BINARY, true)),
          4);

  /**
   * Rows that could not be applied; skipping keys: seq, error_class. The raw tenant id and kind are
   * not indexed: in {@code _invalid/dead_letter} they are untrusted strings of any length, and
   * statistics would copy them into the Delta log.
   */
  public static final TableSchema DEAD_LETTER =
      new TableSchema(
          List.of(
              seq(),
              str("error_class"),
              str("tenant_id"),
              str("kind"),
              str("message"),
              new Column("attempts", ColumnType.INT, true),
              ts("first_failure_time"),
              ts("last_failure_time"),
              lng("tx_id"),
              str("artifact_id"),
              lng("version"),
              str("workarea_id"),
              str("path_at_write"),
              str("writer_identity"),
              str("principal"),
              str("ratified_by"),
              str("provenance_class"),
              str("plaintext_digest"),
              str("ciphertext_digest"),
              str("body_sha256"),
              str("data_key_id"),
              str("envelope"),
              ts("event_time"),
              lng("requeue_of")),
          2);

  /**
   * One row per workarea with a validation event; skipping keys: workarea_id, seq. {@code seq} is
   * the validation or revocation that last changed the row (docs/gold.md).
   */
  public static final TableSchema GOLD_WORKAREAS =
      new TableSchema(
          List.of(
              str("workarea_id"),
              seq(),
              str("tenant_id"),
              str("state"),
              str("path"),
              str("validated_by"),
              lng("validated_seq"),
              ts("validated_time"),
              str("invalidated_by"),
              lng("invalidated_seq"),
              ts("invalidated_time")),
          2);

  /**
   * The chain of custody of each (artifact_id, version) that has a journal event or a promotion;
   * skipping keys: artifact_id, version, seq, workarea_id. {@code paths} and {@code retractions} are
   * JSON arrays (GoldJson). No body, ever.
   */
  public static final TableSchema GOLD_LINEAGE =
      new TableSchema(
          List.of(
              str("artifact_id"),
              lng("version"),
              seq(),
              str("workarea_id"),
              str("tenant_id"),
              str("state"),
              lng("submitted_seq"),
              ts("submitted_time"),
              lng("promoted_seq"),
              ts("promoted_time"),
              str("writer_identity"),
              str("principal"),
              str("ratified_by"),
              str("provenance_class"),
              str("plaintext_digest"),
              str("ciphertext_digest"),
              str("data_key_id"),
              str("paths"),
              str("retractions")),
          4);

  /**
   * The active memories of the validated workareas, one row per (artifact_id, version); skipping
   * keys: workarea_id, artifact_id, version, seq. No body, ever.
   */
  public static final TableSchema GOLD_WORKAREA_MEMORIES =
      new TableSchema(
          List.of(
              str("workarea_id"),
              str("artifact_id"),
              lng("version"),
              seq(),
              str("tenant_id"),
              lng("promoted_seq"),
              ts("promoted_time"),
              str("writer_identity"),
              str("principal"),
              str("ratified_by"),
              str("provenance_class"),
              str("plaintext_digest"),
              str("ciphertext_digest"),
              str("data_key_id"),
              lng("validated_seq")),
          4);

  private static final Map<TableKind, TableSchema> BY_KIND = new EnumMap<>(TableKind.class);

  static {
    BY_KIND.put(TableKind.BRONZE_JOURNAL_EVENTS, BRONZE_JOURNAL_EVENTS);
    BY_KIND.put(TableKind.SILVER_MEMORIES, SILVER_MEMORIES);
    BY_KIND.put(TableKind.DEAD_LETTER, DEAD_LETTER);
    BY_KIND.put(TableKind.GOLD_LINEAGE, GOLD_LINEAGE);
    BY_KIND.put(TableKind.GOLD_WORKAREA_MEMORIES, GOLD_WORKAREA_MEMORIES);
    BY_KIND.put(TableKind.GOLD_WORKAREAS, GOLD_WORKAREAS);
  }

  private LakeSchemas() {}

  public static TableSchema of(TableKind kind) {
    return BY_KIND.get(kind);
  }

  private static Column seq() {
    return new Column("seq", ColumnType.LONG, false);
  }

  private static Column str(String name) {
    return new Column(name, ColumnType.STRING, true);
  }

  private static Column lng(String name) {
    return new Column(name, ColumnType.LONG, true);
  }

  private static Column ts(String name) {
    return new Column(name, ColumnType.TIMESTAMP, true);
  }
}
