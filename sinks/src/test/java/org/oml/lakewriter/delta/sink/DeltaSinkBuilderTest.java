package org.oml.lakewriter.delta.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;

class DeltaSinkBuilderTest {
  @Test
  void namesAMissingLakeRootAndWhyItMatters() {
    assertThatThrownBy(() -> DeltaSink.builder().frontierListener(FrontierListener.NONE).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("lakeRoot")
        .hasMessageContaining("recovers");
  }

  @Test
  void namesAMissingFrontierListener() {
    assertThatThrownBy(() -> DeltaSink.builder().lakeRoot("file:/tmp/lake").build())
        .hasMessageContaining("frontierListener")
        .hasMessageContaining("FrontierListener.NONE");
  }

  @Test
  void refusesTwoLakes() {
    assertThatThrownBy(
            () ->
                DeltaSink.builder()
                    .lakeRoot("file:/tmp/lake")
                    .tableClientFactory(FakeDeltaTableClient::new)
                    .frontierListener(FrontierListener.NONE)
                    .build())
        .hasMessageContaining("exactly one lake");
  }

  @Test
  void namesAParallelismBelowOne() {
    assertThatThrownBy(() -> DeltaSink.builder().writeParallelism(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sink.write-parallelism must be at least 1, got 0");
    assertThatThrownBy(() -> DeltaSink.builder().commitParallelism(-1))
        .hasMessage("sink.commit-parallelism must be at least 1, got -1");
  }

  @Test
  void buildsASerializableSink() throws Exception {
    DeltaSink sink =
        DeltaSink.builder()
            .lakeRoot("file:/tmp/lake")
            .hadoopProperty("fs.s3a.secret.key", "do-not-print")
            .frontierListener(FrontierListener.NONE)
            .writeParallelism(3)
            .build();
    DeltaSink copy =
        InstantiationUtil.deserializeObject(
            InstantiationUtil.serializeObject(sink), getClass().getClassLoader());
    assertThat(copy.toString())
        .contains("file:/tmp/lake")
        .contains("writeParallelism=3")
        .doesNotContain("do-not-print");
    assertThat(copy.getCommittableSerializer().getVersion()).isEqualTo(3);
  }
}
