package org.oml.lakewriter.delta;

import java.util.Comparator;
import java.util.Objects;

/**
 * The MERGE key of {@code silver/memories}: one promoted {@code (artifact_id, version)}. Ordered by
 * artifact id, then version, so that every plan built from a set of keys is deterministic.
 */
public record ArtifactKey(String artifactId, long version) implements Comparable<ArtifactKey> {
  private static final Comparator<ArtifactKey> ORDER =
      Comparator.comparing(ArtifactKey::artifactId).thenComparingLong(ArtifactKey::version);

  public ArtifactKey {
    Objects.requireNonNull(artifactId, "artifactId");
  }

  /** The key of a silver row, or null when the row lacks one (never true of rows we wrote). */
  public static ArtifactKey ofSilverRow(TableRow row) {
    Object id = row.value(LakeSchemas.SILVER_MEMORIES.indexOf("artifact_id"));
    Object version = row.value(LakeSchemas.SILVER_MEMORIES.indexOf("version"));
    return id instanceof String && version instanceof Long
        ? new ArtifactKey((String) id, (Long) version)
        : null;
  }

  @Override
  public int compareTo(ArtifactKey other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return artifactId + "@" + version;
  }
}
