package org.oml.lakewriter.delta.logstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What {@link S3ConditionalLogStore} decides without a server: its registration, its refusal of a
 * filesystem that would commit unconditionally, and the statuses it reads from S3A's failures. Its
 * behaviour against a store that enforces {@code If-None-Match} is in the tests module ({@code
 * it/s3}, a real S3-compatible server).
 */
class S3ConditionalLogStoreTest {
  @TempDir Path dir;

  @Test
  void theEnginesConfigurationRegistersItForS3aUnlessAnotherIsNamed() {
    Configuration conf = KernelEngines.hadoopConf(LakeConfig.of("s3a://b/lake"));
    assertThat(conf.get("io.delta.kernel.logStore.s3a.impl"))
        .isEqualTo(S3ConditionalLogStore.class.getName());
    Configuration other =
        KernelEngines.hadoopConf(
            new LakeConfig(
                "s3a://b/lake",
                java.util.Map.of(S3ConditionalLogStore.CONF_KEY, "com.example.OtherLogStore")));
    assertThat(other.get(S3ConditionalLogStore.CONF_KEY)).isEqualTo("com.example.OtherLogStore");
  }

  @Test
  void aFilesystemWithoutConditionalCreateIsRefusedByName() throws Exception {
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path path =
        new org.apache.hadoop.fs.Path(dir.resolve("_delta_log/00000000000000000000.json").toUri());
    S3ConditionalLogStore store = new S3ConditionalLogStore(conf);
    assertThatThrownBy(() -> store.write(path, List.of("{}").iterator(), false, conf))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("does not offer the path capability " + S3ConditionalLogStore.CONDITIONAL_CREATE)
        .hasMessageContaining("fs.s3a.create.conditional.enabled");
    assertThat(dir.resolve("_delta_log")).as("nothing was written").doesNotExist();
  }

  @Test
  void statusesAreReadFromTheSdkCauseWhateverS3aWrappedThemIn() {
    AwsServiceException precondition = S3Exception.builder().statusCode(412).message("p").build();
    AwsServiceException conflict = S3Exception.builder().statusCode(409).message("c").build();
    assertThat(S3Status.of(new IOException("put", precondition))).isEqualTo(412);
    assertThat(
            S3Status.of(
                new org.apache.hadoop.fs.s3a.RemoteFileChangedException("p", "put", "412")))
        .isEqualTo(412);
    assertThat(S3Status.of(new IOException(new IOException("wrapped", conflict)))).isEqualTo(409);
    assertThat(S3Status.of(new IOException("no status"))).isEqualTo(-1);
  }

  @Test
  void partialWritesAreNeverVisibleOnS3() {
    Configuration conf = new Configuration();
    assertThat(
            new S3ConditionalLogStore(conf)
                .isPartialWriteVisible(new org.apache.hadoop.fs.Path("s3a://b/t/_delta_log/x"), conf))
        .isFalse();
  }
}
