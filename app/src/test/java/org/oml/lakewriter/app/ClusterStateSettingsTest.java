package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
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

  @Test
  void aSavepointPathOfTheSubmissionMeansRestoring() {
    Configuration flink = new Configuration();
    flink.setString("execution.savepoint.path", "file:///sp/savepoint-1");
    assertThat(ClusterStateSettings.of(flink).restorePath()).contains("file:///sp/savepoint-1");
    assertThat(ClusterStateSettings.of(new Configuration()).restorePath()).isEmpty();
  }

  @Test
  void theClustersBackendAndDirectoriesAreReportedAsTheyAre() {
    Configuration flink = new Configuration();
    flink.setString("state.backend.type", "rocksdb");
    flink.setString("state.checkpoints.dir", "file:///flink-data/checkpoints");
    flink.setString("state.savepoints.dir", "file:///flink-data/savepoints");
    flink.setString("state.backend.rocksdb.memory.partitioned-index-filters", "true");
    flink.setString("execution.checkpointing.num-retained", "2");
    ClusterStateSettings s = ClusterStateSettings.of(flink);
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
    Configuration flink = new Configuration();
    flink.setString("state.backend.type", "rocksdb");
    flink.setString("state.checkpoints.dir", "file:///flink-data/checkpoints");
    flink.setString("execution.checkpointing.num-retained", "2");
    assertThat(ClusterStateSettings.of(flink).warnings(cfg(Map.of())))
        .singleElement()
        .satisfies(
            w -> assertThat(w)
                .startsWith("ROCKSDB_INDEX_NOT_PARTITIONED")
                .contains("state.backend.rocksdb.memory.partitioned-index-filters"));
  }

  @Test
  void aClusterThatRetainsOneCheckpointIsNamed() {
    Configuration flink = new Configuration();
    flink.setString("state.backend.type", "rocksdb");
    flink.setString("state.checkpoints.dir", "file:///flink-data/checkpoints");
    flink.setString("state.backend.rocksdb.memory.partitioned-index-filters", "true");
    // Flink's default: one retained checkpoint.
    assertThat(ClusterStateSettings.of(flink).warnings(cfg(Map.of())))
        .singleElement()
        .satisfies(
            w -> assertThat(w)
                .startsWith("TOO_FEW_RETAINED_CHECKPOINTS")
                .contains("execution.checkpointing.num-retained = 1"));
    flink.setString("execution.checkpointing.num-retained", "2");
    assertThat(ClusterStateSettings.of(flink).warnings(cfg(Map.of()))).isEmpty();
    // The race is in RocksDB's incremental snapshots: a heap backend is warned about as such.
    flink.setString("execution.checkpointing.num-retained", "1");
    flink.setString("state.backend.type", "hashmap");
    assertThat(ClusterStateSettings.of(flink).warnings(cfg(Map.of())))
        .singleElement()
        .satisfies(w -> assertThat(w).startsWith("HEAP_STATE_BACKEND"));
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
