package org.oml.lakewriter.delta;

import java.util.Objects;

/**
 * The MERGE key of {@code silver/memories}, {@code gold/lineage} and {@code
 * gold/workarea_memories}: one {@code (artifact_id, version)}. Ordered by
 * artifact id, then version, so that every plan built from a set of keys is deterministic.
 */
public record ArtifactKey(String artifactId, long version) implements Comparable<ArtifactKey> {
  public ArtifactKey {
    Objects.requireNonNull(artifactId, "artifactId");
  }

  /** The key of a silver row, or null when the row lacks one (never true of rows we wrote). */
  public static ArtifactKey ofSilverRow(TableRow row) {
    return of(TableKind.SILVER_MEMORIES, row);
  }

  /**
   * The key of a row of a table keyed on {@code (artifact_id, version)} (silver, {@code
   * gold/lineage}, {@code gold/workarea_memories}), or null when the row lacks one.
   */
  public static ArtifactKey of(TableKind kind, TableRow row) {
    int[] columns = KEY_COLUMNS.get(kind);
    if (columns == null) {
      throw new IllegalArgumentException(kind.path() + " is not keyed on (artifact_id, version)");
    }
    Object id = row.value(columns[0]);
    Object version = row.value(columns[1]);
    return id instanceof String && version instanceof Long
        ? new ArtifactKey((String) id, (Long) version)
        : null;
  }

  /** Whether the tables of this kind are keyed on {@code (artifact_id, version)}. */
  public static boolean keys(TableKind kind) {
    return KEY_COLUMNS.containsKey(kind);
  }

  private static final java.util.Map<TableKind, int[]> KEY_COLUMNS = keyColumns();

  private static java.util.Map<TableKind, int[]> keyColumns() {
    java.util.Map<TableKind, int[]> columns = new java.util.EnumMap<>(TableKind.class);
    for (TableKind kind :
        java.util.List.of(
            TableKind.SILVER_MEMORIES,
            TableKind.GOLD_LINEAGE,
            TableKind.GOLD_WORKAREA_MEMORIES)) {
      LakeSchemas.TableSchema schema = LakeSchemas.of(kind);
      columns.put(kind, new int[] {schema.indexOf("artifact_id"), schema.indexOf("version")});
    }
    return columns;
  }

  @Override
  public int compareTo(ArtifactKey other) {
    int byId = artifactId.compareTo(other.artifactId);
    return byId != 0 ? byId : Long.compare(version, other.version);
  }

  /**
   * Written out rather than the record's generated one (a method-handle chain per call): the
   * writer hashes a key several times per row (the lineage plan, the key index, the files' keys).
   */
  @Override
  public int hashCode() {
    return 31 * artifactId.hashCode() + Long.hashCode(version);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArtifactKey other
        && version == other.version
        && artifactId.equals(other.artifactId);
  }

  @Override
  public String toString() {
    return artifactId + "@" + version;
  }
}
