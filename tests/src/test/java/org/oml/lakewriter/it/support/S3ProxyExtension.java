package org.oml.lakewriter.it.support;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.util.FileUtils;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;

/**
 * One {@link S3ProxyServer} with one bucket for a test class: started before its first test in a
 * directory of its own, stopped and deleted after its last.
 *
 * <pre>
 * &#64;RegisterExtension static final S3ProxyExtension S3 = S3ProxyExtension.bucket("lake");
 * </pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {
  private final String bucket;
  private final boolean afterALocalLake;
  private Path dir;
  private S3ProxyServer server;

  private S3ProxyExtension(String bucket, boolean afterALocalLake) {
    this.bucket = bucket;
    this.afterALocalLake = afterALocalLake;
  }

  public static S3ProxyExtension bucket(String bucket) {
    return new S3ProxyExtension(bucket, false);
  }

  /**
   * The same, in a JVM set up as if it had served a local lake before, as every other test in
   * the module's JVM does: Hadoop's cache then holds the project's local lake file system for
   * {@code file:}, which S3A's upload buffer must not get.
   */
  public S3ProxyExtension afterALocalLake() {
    return new S3ProxyExtension(bucket, true);
  }

  public String bucket() {
    return bucket;
  }

  public S3ProxyServer server() {
    if (server == null) {
      throw new IllegalStateException("S3Proxy runs only while the test class does");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("s3proxy-");
    if (afterALocalLake) {
      FileSystem.get(
          URI.create("file:///"),
          KernelEngines.hadoopConf(LakeConfig.of(dir.resolve("local-lake").toUri().toString())));
    }
    server = S3ProxyServer.start(dir);
    server.createBucket(bucket);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      server = null;
      FileUtils.deleteDirectory(dir.toFile());
    }
  }
}
