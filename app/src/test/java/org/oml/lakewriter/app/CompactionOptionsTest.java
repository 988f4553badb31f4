package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.compact.CompactionPolicy;

/** The compaction options (docs/compaction.md): defaults, and values that cannot work. */
class CompactionOptionsTest {
  private static Map<String, String> options(String... pairs) {
    Map<String, String> o = new HashMap<>();
    o.put("postgres.url", "jdbc:postgresql://db:5432/oml");
    o.put("lake.root", "/lake/");
    for (int i = 0; i < pairs.length; i += 2) {
      o.put(pairs[i], pairs[i + 1]);
    }
    return o;
  }

  @Test
  void onByDefaultWithDefaultsThatFitTogether() {
    CompactionPolicy p = LakeWriterConfig.of(options(), name -> null).compactionPolicy();
    assertThat(p.enabled()).isTrue();
    assertThat(p.minFiles()).isEqualTo(16);
    assertThat(p.smallFileBytes()).isEqualTo(32L << 20);
    assertThat(p.targetFileBytes()).isEqualTo(128L << 20);
    assertThat(p.keyedTargetFileBytes()).isEqualTo(64L << 10);
    assertThat(p.budget()).isEqualTo(Duration.ofSeconds(2));
    // A fifth of the checkpoint interval (10 s by default): with 1 s checkpoints a 2 s budget
    // would let compaction take twice the writer's time (seen at 64 tenants: lag p99 71 s).
    assertThat(
            LakeWriterConfig.of(options("checkpoint.interval", "1s"), name -> null)
                .compactionPolicy()
                .budget())
        .isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void theOptionsReachThePolicy() {
    CompactionPolicy p =
        LakeWriterConfig.of(
                options(
                    "maintenance.compact.enabled", "true",
                    "maintenance.compact.min-files", "4",
                    "maintenance.compact.small-file-size", "1mb",
                    "maintenance.compact.target-file-size", "8mb",
                    "maintenance.compact.keyed-target-file-size", "512kb",
                    "maintenance.compact.budget-per-checkpoint", "500ms"),
                name -> null)
            .compactionPolicy();
    assertThat(p)
        .isEqualTo(
            new CompactionPolicy(true, 4, 1L << 20, 8L << 20, 512L << 10, Duration.ofMillis(500)));
  }

  @Test
  void valuesThatCannotWorkAreRefusedNamingTheOption() {
    assertThatThrownBy(
            () ->
                LakeWriterConfig.of(
                    options(
                        "maintenance.compact.small-file-size", "256mb",
                        "maintenance.compact.target-file-size", "128mb"),
                    name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("maintenance.compact.small-file-size")
        .hasMessageContaining("must not exceed maintenance.compact.target-file-size");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(options("maintenance.compact.min-files", "1"), name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("maintenance.compact.min-files must be at least 2");
    assertThatThrownBy(
            () ->
                LakeWriterConfig.of(
                    options("maintenance.compact.budget-per-checkpoint", "0s"), name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("maintenance.compact.budget-per-checkpoint must be positive");
    assertThatThrownBy(
            () ->
                LakeWriterConfig.of(
                    options("maintenance.compact.keyed-target-file-size", "0b"), name -> null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(".keyed-target-file-size must be positive");
  }
}
