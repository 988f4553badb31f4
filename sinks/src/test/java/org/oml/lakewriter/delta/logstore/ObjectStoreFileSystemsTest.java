package org.oml.lakewriter.delta.logstore;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;

/**
 * The README's lake roots beyond {@code file:} resolve to their Hadoop filesystems on the sinks'
 * class path (and so in {@code lakewriter run} and the job jar, which carry it). Before issue 16
 * both failed at once with {@code ClassNotFoundException: Class
 * org.apache.hadoop.fs.s3a.S3AFileSystem not found} (resp. {@code AzureBlobFileSystem}). No
 * endpoint is contacted: S3A connects lazily, and ABFS is only instantiated.
 */
class ObjectStoreFileSystemsTest {
  @Test
  void s3aRootsGetS3AWithTheProjectsOptionsAndItsConditionalCreate() throws Exception {
    Configuration conf =
        KernelEngines.hadoopConf(
            new LakeConfig(
                "s3a://lake-bucket/lake",
                java.util.Map.of(
                    "fs.s3a.endpoint", "http://127.0.0.1:9",
                    "fs.s3a.endpoint.region", "us-east-1",
                    "fs.s3a.path.style.access", "true",
                    "fs.s3a.access.key", "id",
                    "fs.s3a.secret.key", "secret",
                    "fs.s3a.impl.disable.cache", "true")));
    Path root = new Path("s3a://lake-bucket/lake");
    try (FileSystem fs = root.getFileSystem(conf)) {
      assertThat(fs.getClass().getName()).isEqualTo("org.apache.hadoop.fs.s3a.S3AFileSystem");
      assertThat(fs.hasPathCapability(root, S3ConditionalLogStore.CONDITIONAL_CREATE))
          .as("S3A sends If-None-Match: * on a conditional create")
          .isTrue();
    }
    assertThat(conf.get(S3ConditionalLogStore.CONF_KEY))
        .as("the engine's log store for s3a")
        .isEqualTo(S3ConditionalLogStore.class.getName());
  }

  /**
   * Only the class: ABFS's {@code initialize} probes the account over the network (and retries for
   * minutes when it cannot resolve it), which a test here must not do.
   */
  @Test
  void abfsRootsGetTheAzureBlobFileSystem() throws Exception {
    Configuration conf = new Configuration();
    Class<? extends FileSystem> abfs = FileSystem.getFileSystemClass("abfs", conf);
    assertThat(abfs.getName()).isEqualTo("org.apache.hadoop.fs.azurebfs.AzureBlobFileSystem");
    // Never initialized, so never closed (close() needs the store initialize() builds).
    assertThat(abfs.getDeclaredConstructor().newInstance().getScheme()).isEqualTo("abfs");
  }
}
