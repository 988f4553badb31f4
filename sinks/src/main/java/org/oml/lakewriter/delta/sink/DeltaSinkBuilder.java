package org.oml.lakewriter.delta.sink;

import java.util.Map;
import java.util.TreeMap;
import org.oml.lakewriter.delta.DeltaTableClientFactory;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelTableClientFactory;

/**
 * Builds a {@link DeltaSink}. Either a lake root (the common case: Kernel's default engine over
 * Hadoop's filesystem) or a custom {@link DeltaTableClientFactory} (tests, fault injection), and a
 * frontier listener, which must be named even when it is {@link FrontierListener#NONE}.
 *
 * <pre>{@code
 * DeltaSink sink = DeltaSink.builder()
 *     .lakeRoot("s3a://lake/oml")
 *     .hadoopProperty("fs.s3a.endpoint", "http://minio:9000")
 *     .frontierListener(new JdbcFrontierListener(url, props, "writer-1"))
 *     .build();
 * }</pre>
 */
public final class DeltaSinkBuilder {
  private String lakeRoot;
  private final Map<String, String> hadoopProperties = new TreeMap<>();
  private DeltaTableClientFactory tableClientFactory;
  private FrontierListener frontierListener;

  DeltaSinkBuilder() {}

  /** The lake root URI ({@code file:/...}, {@code s3a://...}, {@code abfs://...}). */
  public DeltaSinkBuilder lakeRoot(String lakeRoot) {
    this.lakeRoot = lakeRoot;
    return this;
  }

  /** A Hadoop configuration entry for the lake's filesystem (credentials, endpoints, log store). */
  public DeltaSinkBuilder hadoopProperty(String key, String value) {
    hadoopProperties.put(key, value);
    return this;
  }

  public DeltaSinkBuilder hadoopProperties(Map<String, String> properties) {
    hadoopProperties.putAll(properties);
    return this;
  }

  /** Replaces the Kernel client, e.g. with a decorator that injects faults. */
  public DeltaSinkBuilder tableClientFactory(DeltaTableClientFactory factory) {
    this.tableClientFactory = factory;
    return this;
  }

  /** Where the committer reports the frontier; {@link FrontierListener#NONE} for nowhere. */
  public DeltaSinkBuilder frontierListener(FrontierListener listener) {
    this.frontierListener = listener;
    return this;
  }

  public DeltaSink build() {
    if (lakeRoot == null && tableClientFactory == null) {
      throw new IllegalStateException(
          "DeltaSink needs lakeRoot(\"file:/...\" or \"s3a://...\"): every tenant's tables live"
              + " under it, and each start recovers the tables' txn versions from it");
    }
    if (lakeRoot != null && tableClientFactory != null) {
      throw new IllegalStateException(
          "DeltaSink got both lakeRoot and tableClientFactory: set one, so that there is exactly"
              + " one lake the writer recovers from and commits to");
    }
    if (tableClientFactory != null && !hadoopProperties.isEmpty()) {
      throw new IllegalStateException(
          "hadoopProperty(..) only configures the lakeRoot client; a custom tableClientFactory"
              + " brings its own configuration");
    }
    if (frontierListener == null) {
      throw new IllegalStateException(
          "DeltaSink needs frontierListener(..): it is what `lakewriter status` shows as progress;"
              + " pass FrontierListener.NONE to publish no frontier on purpose");
    }
    DeltaTableClientFactory clients =
        tableClientFactory != null
            ? tableClientFactory
            : new KernelTableClientFactory(new LakeConfig(lakeRoot, hadoopProperties));
    return new DeltaSink(clients, frontierListener);
  }
}
