package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.junit.jupiter.api.Test;

/** The {@code flink run} path reads the cluster's state settings and never replaces them. */
class ClusterStateSettingsTest {
  private static LakeWriterConfig cfg(Map<String, String> extra) {
    Map<String, String> m = new HashMap<>();
    m.put("postgres.url", "jdbc:postgresql://localhost/db");
    m.put("lake.root", "/tmp/lake");
    m.putAll(extra);
    return LakeWriterConfig.of(m, k -> null);
  }

  /** A cluster set up as flink-conf/config.yaml sets it (no warning), then {@code overrides}. */
  private static Configuration rocksDbCluster(Map<String, String> overrides) {
    Configuration flink = new Configuration();
    flink.setString("state.backend.type", "rocksdb");
    flink.setString("state.checkpoints.dir", "file:///flink-data/checkpoints");
    flink.setString("state.backend.rocksdb.memory.partitioned-index-filters", "true");
    flink.setString("execution.checkpointing.num-retained", "2");
    overrides.forEach(flink::setString);
    return flink;
  }

  /** The one warning the cluster gets; fails on none or several. */
  private static String onlyWarning(Configuration flink) {
    List<String> warnings = ClusterStateSettings.of(flink).warnings(cfg(Map.of()));
    assertThat(warnings).hasSize(1);
    return warnings.get(0);
  }

  @Test
  void aSavepointPathOfTheSubmissionMeansRestoring() {
    Configuration flink = new Configuration();
    flink.setString("execution.savepoint.path", "file:///sp/savepoint-1");
    assertThat(ClusterStateSettings.of(flink).restorePath()).contains("file:///sp/savepoint-1");
    assertThat(ClusterStateSettings.of(new Configuration()).restorePath()).isEmpty();
  }

  @Test
  void theClustersBackendAndDirectoriesAreReportedAsTheyAre() {
    ClusterStateSettings s =
        ClusterStateSettings.of(
            rocksDbCluster(Map.of("state.savepoints.dir", "file:///flink-data/savepoints")));
    assertThat(s.describe(cfg(Map.of())))
        .contains("state.backend.type = rocksdb")
        .contains("state.checkpoints.dir = file:///flink-data/checkpoints")
        .contains("state.savepoints.dir = file:///flink-data/savepoints")
        .contains("fresh start");
    assertThat(s.warnings(cfg(Map.of()))).isEmpty();
  }

  @Test
  void aClusterWithoutDurableStateOrWithLakewriterOnlyOptionsIsNamed() {
    Configuration flink = new Configuration();
    flink.setString("execution.checkpointing.interval", "30s");
    ClusterStateSettings s = ClusterStateSettings.of(flink);
    assertThat(
            s.warnings(
                cfg(Map.of("state.dir", "/var/lib/lw", "checkpoint.interval", "5s"))))
        .anySatisfy(w -> assertThat(w).startsWith("CHECKPOINT_STORAGE_VOLATILE"))
        .anySatisfy(w -> assertThat(w).startsWith("HEAP_STATE_BACKEND"))
        .anySatisfy(w -> assertThat(w).startsWith("IGNORED_ON_CLUSTER: state.dir = /var/lib/lw"))
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("CHECKPOINT_INTERVAL_OVERRIDDEN")
                    .contains(Duration.ofSeconds(30).toString()));
  }

  @Test
  void aRocksDbClusterWithoutPartitionedIndexesIsNamed() {
    // Flink's default: whole index blocks.
    Configuration flink = rocksDbCluster(Map.of());
    flink.removeKey("state.backend.rocksdb.memory.partitioned-index-filters");
    assertThat(onlyWarning(flink))
        .startsWith("ROCKSDB_INDEX_NOT_PARTITIONED")
        .contains("state.backend.rocksdb.memory.partitioned-index-filters");
  }

  @Test
  void aClusterThatRetainsOneCheckpointIsNamed() {
    // Flink's default: one retained checkpoint.
    Configuration flink = rocksDbCluster(Map.of());
    flink.removeKey("execution.checkpointing.num-retained");
    assertThat(onlyWarning(flink))
        .startsWith("TOO_FEW_RETAINED_CHECKPOINTS")
        .contains("execution.checkpointing.num-retained = 1");
    assertThat(ClusterStateSettings.of(rocksDbCluster(Map.of())).warnings(cfg(Map.of())))
        .isEmpty();
    // The race is in RocksDB's incremental snapshots: a heap backend is warned about as such.
    flink.setString("state.backend.type", "hashmap");
    assertThat(onlyWarning(flink)).startsWith("HEAP_STATE_BACKEND");
  }

  @Test
  void lakewriterRunsOwnClusterPartitionsRocksDbIndexes() {
    Configuration conf = LakeWriterJob.flinkConfiguration(cfg(Map.of()), null);
    assertThat(conf.toMap())
        .containsEntry("state.backend.type", "rocksdb")
        .containsEntry("state.backend.rocksdb.memory.partitioned-index-filters", "true")
        .containsEntry("execution.checkpointing.num-retained", "2");
    // The session cluster's config.yaml that flink-conf/ ships sets it too.
    Configuration shipped =
        GlobalConfiguration.loadConfiguration(Path.of("..", "flink-conf").toString());
    assertThat(shipped.get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS)).isTrue();
    assertThat(ClusterStateSettings.of(shipped).warnings(cfg(Map.of())))
        .noneSatisfy(w -> assertThat(w).startsWith("ROCKSDB_INDEX_NOT_PARTITIONED"))
        .noneSatisfy(w -> assertThat(w).startsWith("TOO_FEW_RETAINED_CHECKPOINTS"));
  }

  @Test
  void acceptLostSlotIsAFlag() {
    assertThat(LakeWriterJob.flag(null)).isFalse();
    assertThat(LakeWriterJob.flag("__NO_VALUE_KEY")).isTrue();
    assertThat(LakeWriterJob.flag("true")).isTrue();
    assertThat(LakeWriterJob.flag("false")).isFalse();
    assertThatThrownBy(() -> LakeWriterJob.flag("yes")).hasMessageContaining("--accept-lost-slot");
  }
}
