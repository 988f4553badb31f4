package org.oml.lakewriter.delta;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where the lake lives and how to reach it: the root URI ({@code file:/...}, {@code s3a://...},
 * {@code abfs://...}) and the Hadoop configuration entries for its filesystem. Serializable (plain
 * strings only) because it travels inside the sink to the task managers, where each task builds its
 * own Hadoop {@code Configuration}; that class is not serializable and holds no secrets of ours.
 */
public final class LakeConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String lakeRoot;
  private final TreeMap<String, String> hadoopProperties;

  public LakeConfig(String lakeRoot, Map<String, String> hadoopProperties) {
    Objects.requireNonNull(lakeRoot, "lakeRoot");
    if (lakeRoot.isBlank()) {
      throw new IllegalArgumentException("lake root is blank");
    }
    this.lakeRoot =
        lakeRoot.endsWith("/") ? lakeRoot.substring(0, lakeRoot.length() - 1) : lakeRoot;
    this.hadoopProperties = new TreeMap<>(hadoopProperties);
  }

  public static LakeConfig of(String lakeRoot) {
    return new LakeConfig(lakeRoot, Map.of());
  }

  /** The lake root without a trailing slash, as configured (not yet qualified). */
  public String lakeRoot() {
    return lakeRoot;
  }

  public Map<String, String> hadoopProperties() {
    return java.util.Collections.unmodifiableMap(hadoopProperties);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LakeConfig
        && ((LakeConfig) o).lakeRoot.equals(lakeRoot)
        && ((LakeConfig) o).hadoopProperties.equals(hadoopProperties);
  }

  @Override
  public int hashCode() {
    return Objects.hash(lakeRoot, hadoopProperties);
  }

  @Override
  public String toString() {
    // Property values may hold credentials (fs.s3a.secret.key): print the keys only.
    return "LakeConfig{root=" + lakeRoot + ", hadoopKeys=" + hadoopProperties.keySet() + "}";
  }
}
