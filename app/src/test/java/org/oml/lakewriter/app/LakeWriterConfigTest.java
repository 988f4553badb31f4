package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.oml.lakewriter.cdc.OutboxSourceOptions;

/** Parsing and validation of the options, without any server. */
class LakeWriterConfigTest {
  private static final String URL = "jdbc:postgresql://db.internal:5433/oml";
  private static final Function<String, String> NO_ENV = name -> null;

  @TempDir Path tmp;

  private static Map<String, String> minimal() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", URL);
    options.put("lake.root", "s3a://bucket/lake");
    return options;
  }

  private static Map<String, String> with(String key, String value) {
    Map<String, String> options = minimal();
    options.put(key, value);
    return options;
  }

  @Test
  void defaults() {
    List<String> asked = new ArrayList<>();
    LakeWriterConfig cfg =
        LakeWriterConfig.of(
            minimal(),
            name -> {
              asked.add(name);
              return null;
            });

    assertThat(cfg.jdbcUrl()).isEqualTo(URL);
    assertThat(cfg.user()).isEqualTo("postgres");
    assertThat(asked).containsExactly("OML_PG_PASSWORD");
    assertThat(cfg.password()).isEmpty();
    assertThat(cfg.get(LakeWriterOptions.POSTGRES_SCHEMA)).isEqualTo("public");
    assertThat(cfg.get(LakeWriterOptions.SLOT)).isEqualTo("oml_lakewriter");
    assertThat(cfg.get(LakeWriterOptions.PUBLICATION)).isEqualTo("oml_lake_pub");
    assertThat(cfg.writerId()).isEqualTo("oml_lakewriter");
    assertThat(cfg.lakeRoot()).isEqualTo("s3a://bucket/lake");
    assertThat(cfg.hadoopProperties()).isEmpty();
    assertThat(cfg.get(LakeWriterOptions.BATCH_MAX_ROWS)).isEqualTo(10_000);
    assertThat(cfg.get(LakeWriterOptions.BATCH_MAX_BYTES)).isEqualTo(MemorySize.parse("64mb"));
    assertThat(cfg.get(LakeWriterOptions.BODY_MAX_BYTES)).isEqualTo(MemorySize.parse("16mb"));
    assertThat(cfg.get(LakeWriterOptions.TICK_PERIOD)).isEqualTo(Duration.ofSeconds(1));
    assertThat(cfg.checkpointInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(cfg.get(LakeWriterOptions.STATE_BACKEND)).isEqualTo("rocksdb");
    assertThat(cfg.stateDir())
        .isAbsolute()
        .isEqualTo(Path.of(".lakewriter/state/oml_lakewriter").toAbsolutePath());
    assertThat(cfg.get(LakeWriterOptions.SLOT_WAIT)).isEqualTo(Duration.ofSeconds(120));

    OutboxSourceOptions source = cfg.sourceOptions();
    assertThat(source.hostname()).isEqualTo("db.internal");
    assertThat(source.port()).isEqualTo(5433);
    assertThat(source.database()).isEqualTo("oml");
    assertThat(source.schema()).isEqualTo("public");
    assertThat(source.username()).isEqualTo("postgres");
    assertThat(source.slotName()).isEqualTo("oml_lakewriter");
    assertThat(source.publication()).isEqualTo("oml_lake_pub");
    assertThat(source.tickPeriod()).isEqualTo(Duration.ofSeconds(1));
    assertThat(source.maxBodyBytes()).isEqualTo(16 << 20);
  }

  /** Issue 11 items 8 and 14: URL parameters and timeouts reach every connection's settings. */
  @Test
  void urlParametersAndTimeoutsReachTheSourceOptionsAndEveryConnection() {
    Map<String, String> options =
        with("postgres.url", "jdbc:postgresql://db:5432/oml?sslmode=verify-full&socketTimeout=5");
    options.put("postgres.connect-timeout", "3s");
    LakeWriterConfig cfg = LakeWriterConfig.of(options, NO_ENV);

    assertThat(cfg.sourceOptions().jdbc().urlParameters())
        .containsEntry("sslmode", "verify-full")
        .containsEntry("socketTimeout", "5");
    assertThat(cfg.sourceOptions().jdbc().connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(cfg.connectionProperties())
        .containsEntry("sslmode", "verify-full")
        .containsEntry("socketTimeout", "5") // the URL's explicit value wins over the default
        .containsEntry("connectTimeout", "3");
    assertThat(cfg.dataKeyCheck()).isNull();
  }

  @Test
  void nonPositiveTimeoutsAreRejectedNamingTheOption() {
    Map<String, String> options = with("postgres.url", "jdbc:postgresql://db/oml");
    options.put("postgres.socket-timeout", "0s");
    assertThatThrownBy(() -> LakeWriterConfig.of(options, NO_ENV))
        .hasMessageContaining("postgres.socket-timeout must be positive");
  }

  @Test
  void defaultPortIs5432() {
    LakeWriterConfig cfg =
        LakeWriterConfig.of(with("postgres.url", "jdbc:postgresql://db/oml"), NO_ENV);
    assertThat(cfg.sourceOptions().port()).isEqualTo(5432);
  }

  @Test
  void commandLineOverridesFileValues() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("lakewriter.properties"),
            String.join(
                "\n",
                "# a comment",
                "postgres.url = " + URL,
                "lake.root = s3a://bucket/lake",
                "postgres.slot = file_slot   ",
                "batch.max-rows = 5",
                "horizon.tick-period = 250ms",
                ""));
    LakeWriterConfig fileOnly = LakeWriterConfig.load(file, Map.of());
    assertThat(fileOnly.get(LakeWriterOptions.SLOT)).isEqualTo("file_slot");
    assertThat(fileOnly.get(LakeWriterOptions.BATCH_MAX_ROWS)).isEqualTo(5);
    assertThat(fileOnly.get(LakeWriterOptions.TICK_PERIOD)).isEqualTo(Duration.ofMillis(250));

    LakeWriterConfig overridden =
        LakeWriterConfig.load(file, Map.of("batch.max-rows", "7", "postgres.user", "writer"));
    assertThat(overridden.get(LakeWriterOptions.BATCH_MAX_ROWS)).isEqualTo(7);
    assertThat(overridden.user()).isEqualTo("writer");
    assertThat(overridden.get(LakeWriterOptions.SLOT)).isEqualTo("file_slot");

    // An override also rescues a bad file value, and the command line alone is enough.
    Files.writeString(file, "postgres.url = " + URL + "\nlake.root = /x\nbatch.max-rows = -5\n");
    assertThatThrownBy(() -> LakeWriterConfig.load(file, Map.of()))
        .hasMessageContaining("batch.max-rows");
    assertThat(LakeWriterConfig.load(file, Map.of("batch.max-rows", "9")).get(
            LakeWriterOptions.BATCH_MAX_ROWS))
        .isEqualTo(9);
    assertThat(LakeWriterConfig.load(null, minimal()).jdbcUrl()).isEqualTo(URL);
  }

  @Test
  void cdcKnobsReachTheSourceAndBadOnesAreNamed() {
    Map<String, String> options = new java.util.HashMap<>(minimal());
    options.put("cdc.snapshot.split-size", "1000");
    options.put("cdc.max-batch-size", "512");
    options.put("cdc.max-queue-size", "2048");
    options.put("cdc.poll-interval", "20 ms");
    org.oml.lakewriter.cdc.CdcTuning cdc =
        LakeWriterConfig.of(options, NO_ENV).sourceOptions().cdc();
    assertThat(cdc.snapshotSplitSize()).isEqualTo(1000);
    assertThat(cdc.snapshotFetchSize())
        .isEqualTo(org.oml.lakewriter.cdc.CdcTuning.DEFAULT.snapshotFetchSize());
    assertThat(cdc.maxBatchSize()).isEqualTo(512);
    assertThat(cdc.maxQueueSize()).isEqualTo(2048);
    assertThat(cdc.pollInterval()).isEqualTo(java.time.Duration.ofMillis(20));

    options.put("cdc.max-queue-size", "512");
    assertThatThrownBy(() -> LakeWriterConfig.of(options, NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cdc.max-queue-size (512) must be larger than cdc.max-batch-size");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("cdc.snapshot.fetch-size", "0"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cdc.snapshot.fetch-size must be positive");
  }

  @Test
  void unreadableConfigFileIsNamed() {
    Path missing = tmp.resolve("missing.properties");
    assertThatThrownBy(() -> LakeWriterConfig.load(missing, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read the config file " + missing);
  }

  @Test
  void plainPathLakeRootBecomesAFileUri() throws Exception {
    Path absolute = tmp.resolve("lake");
    assertThat(LakeWriterConfig.of(with("lake.root", absolute.toString()), NO_ENV).lakeRoot())
        .isEqualTo(absolute.toUri().toString())
        .startsWith("file:/");
    assertThat(LakeWriterConfig.of(with("lake.root", "rel/lake"), NO_ENV).lakeRoot())
        .isEqualTo(Path.of("rel/lake").toAbsolutePath().toUri().toString());
    for (String uri :
        List.of(
            "file:///data/lake",
            "s3a://bucket/prefix",
            "abfs://container@account.dfs.core.windows.net/prefix")) {
      assertThat(LakeWriterConfig.of(with("lake.root", uri), NO_ENV).lakeRoot()).isEqualTo(uri);
    }
  }

  @Test
  void hadoopOptionsPassThroughWithoutThePrefix() {
    Map<String, String> options = minimal();
    options.put("lake.hadoop.fs.s3a.endpoint", "http://minio:9000");
    options.put("lake.hadoop.fs.s3a.path.style.access", "true");
    LakeWriterConfig cfg = LakeWriterConfig.of(options, NO_ENV);
    assertThat(cfg.hadoopProperties())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("fs.s3a.endpoint", "http://minio:9000", "fs.s3a.path.style.access", "true"));
  }

  @Test
  void passwordFromFileWinsOverTheVariable() throws Exception {
    Function<String, String> env = name -> name.equals("PG_PW") ? "from-env" : null;
    Map<String, String> options = with("postgres.password-env", "PG_PW");
    assertThat(LakeWriterConfig.of(options, env).password()).isEqualTo("from-env");

    Path file = Files.writeString(tmp.resolve("pw"), "  from-file  \nsecond line\n");
    options.put("postgres.password-file", file.toString());
    LakeWriterConfig cfg = LakeWriterConfig.of(options, env);
    assertThat(cfg.password()).isEqualTo("from-file");
    assertThat(cfg.connectionProperties()).containsEntry("password", "from-file");
    assertThat(cfg.sourceOptions().password()).isEqualTo("from-file");
    assertThat(cfg.toString()).doesNotContain("from-file").doesNotContain("from-env");

    options.put("postgres.password-file", tmp.resolve("no-such-file").toString());
    assertThatThrownBy(() -> LakeWriterConfig.of(options, env))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option postgres.password-file: cannot read");
  }

  @ParameterizedTest
  @CsvSource({
    "postgres.slot, Lake-Writer",
    "postgres.slot, oml;drop",
    "postgres.publication, 'pub name'",
    "writer.id, 9writer",
    "postgres.schema, Public",
  })
  void identifiersAreValidated(String key, String value) {
    assertThatThrownBy(() -> LakeWriterConfig.of(with(key, value), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option " + key + " '" + value + "' must match");
  }

  @Test
  void validIdentifiersPass() {
    Map<String, String> options = minimal();
    options.put("postgres.slot", "tenant_a_slot");
    options.put("postgres.publication", "pub_2");
    options.put("writer.id", "_w");
    assertThat(LakeWriterConfig.of(options, NO_ENV).get(LakeWriterOptions.SLOT))
        .isEqualTo("tenant_a_slot");
  }

  @Test
  void lakeRootIsRequiredOnlyByWhatUsesIt() {
    Map<String, String> noRoot = minimal();
    noRoot.remove("lake.root");
    LakeWriterConfig cfg = LakeWriterConfig.of(noRoot, NO_ENV);

    assertThat(cfg.jdbcUrl()).isEqualTo(noRoot.get("postgres.url"));
    assertThatThrownBy(cfg::lakeRoot)
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "option lake.root is required: Root of the lake: file:///..., s3a://bucket/prefix or"
                + " abfs://container@account/...; tables live under <lake.root>/<tenant>/.");
  }

  @Test
  void optionDescriptionsArePlainText() {
    for (var option : LakeWriterOptions.ALL) {
      assertThat(LakeWriterOptions.describe(option))
          .as(option.key())
          .isNotBlank()
          .doesNotContain("Description@")
          .doesNotContain("&lt;");
    }
  }

  @Test
  void stateDirDefaultsToOnePerWriterAndConnectionsUseTheSchema() {
    Map<String, String> options = minimal();
    options.put("writer.id", "w_7");
    options.put("postgres.schema", "lake");
    LakeWriterConfig cfg = LakeWriterConfig.of(options, NO_ENV);

    assertThat(cfg.stateDir()).isEqualTo(Path.of(".lakewriter", "state", "w_7").toAbsolutePath());
    assertThat(cfg.connectionProperties()).containsEntry("currentSchema", "lake");
  }

  @Test
  void requiredOptionsAreNamed() {
    Map<String, String> noUrl = minimal();
    noUrl.remove("postgres.url");
    assertThatThrownBy(() -> LakeWriterConfig.of(noUrl, NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option postgres.url is required");
    Map<String, String> blankRoot = with("lake.root", " ");
    assertThatThrownBy(() -> LakeWriterConfig.of(blankRoot, NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option lake.root is required")
        .hasMessageNotContaining("Description@")
        .hasMessageContaining(": Root of the lake: file:///..., s3a://bucket/prefix");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("postgres.url", "jdbc:postgresql://db/"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("option postgres.url")
        .hasMessageContaining("needs a host and a database");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("postgres.url", "jdbc:postgresql://db host/oml"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("option postgres.url is 'jdbc:postgresql://db host/oml'");
  }

  @Test
  void unknownKeysAndBadValuesAreNamed() {
    assertThatThrownBy(() -> LakeWriterConfig.of(with("lake.roots", "/x"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("unknown option(s) [lake.roots]");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("body.max-bytes", "0"), NO_ENV))
        .hasMessageStartingWith("option body.max-bytes must be positive");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("state.backend", "memory"), NO_ENV))
        .hasMessageStartingWith("option state.backend is 'memory'");
    assertThat(
            LakeWriterConfig.of(with("state.backend", "hashmap"), NO_ENV)
                .get(LakeWriterOptions.STATE_BACKEND))
        .isEqualTo("hashmap");
  }

  @Test
  void secretsAreMaskedInToString() {
    Map<String, String> options = minimal();
    options.put("lake.hadoop.fs.s3a.secret.key", "s3-secret");
    options.put("lake.hadoop.fs.azure.account.key.acct.dfs.core.windows.net", "azure-key");
    options.put("lake.hadoop.fs.s3a.endpoint", "http://minio:9000");
    LakeWriterConfig cfg = LakeWriterConfig.of(options, name -> "pg-secret");
    assertThat(cfg.toString())
        .contains("lake.hadoop.fs.s3a.endpoint=http://minio:9000")
        .contains("lake.hadoop.fs.s3a.secret.key=******")
        .doesNotContain("s3-secret")
        .doesNotContain("azure-key")
        .doesNotContain("pg-secret");
    // The values themselves still reach the filesystem.
    assertThat(cfg.hadoopProperties()).containsEntry("fs.s3a.secret.key", "s3-secret");
  }

  @Test
  void passwordInTheUrlIsRejected() {
    for (String url :
        List.of(
            "jdbc:postgresql://db/oml?password=hunter2",
            "jdbc:postgresql://db/oml?ssl=true&PASSWORD=hunter2")) {
      assertThatThrownBy(() -> LakeWriterConfig.of(with("postgres.url", url), NO_ENV))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("option postgres.url")
          .hasMessageContaining("postgres.password-env")
          .hasMessageNotContaining("hunter2");
    }
    assertThat(
            LakeWriterConfig.of(with("postgres.url", "jdbc:postgresql://db/oml?sslmode=require"), NO_ENV)
                .jdbcUrl())
        .endsWith("?sslmode=require");
  }

  // ---- Delta sink: commit retries and the tenants' quarantine (docs/quarantine.md) ----

  @Test
  void commitRetryAndQuarantineOptionsHaveDefaultsAndAreValidated() {
    LakeWriterConfig cfg = LakeWriterConfig.of(with("batch.max-rows", "5"), NO_ENV);
    assertThat(cfg.commitRetry())
        .isEqualTo(
            new org.oml.lakewriter.delta.committer.CommitRetry(
                java.time.Duration.ofMinutes(2),
                java.time.Duration.ofMillis(100),
                java.time.Duration.ofSeconds(5)));
    assertThat(cfg.get(LakeWriterOptions.QUARANTINE_MAX_REPLANS)).isEqualTo(3);
    assertThat(cfg.tenantReplay()).isNotNull();
    assertThatThrownBy(
            () ->
                LakeWriterConfig.of(
                    with("sink.commit-retry.initial-backoff", "10s"), NO_ENV)) // above max 5s
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.commit-retry.max-backoff");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("sink.quarantine.max-replans", "-1"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sink.quarantine.max-replans");
  }

  /**
   * Issue 12: early horizon ticks; 0 turns them off, a negative spacing is refused by name (by
   * Flink's duration parser; the config's own check stands behind it for a programmatic value).
   */
  @Test
  void minTickSpacingDefaultsTo100msAndMayBeZeroButNotNegative() {
    assertThat(LakeWriterConfig.of(with("lake.root", "/lake"), NO_ENV).get(
            LakeWriterOptions.MIN_TICK_SPACING))
        .isEqualTo(java.time.Duration.ofMillis(100));
    assertThat(LakeWriterConfig.of(with("horizon.min-tick-spacing", "0ms"), NO_ENV).get(
            LakeWriterOptions.MIN_TICK_SPACING))
        .isZero();
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("horizon.min-tick-spacing", "-5ms"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("horizon.min-tick-spacing");
  }

  @Test
  void theLakeCarriesTheLogSettingsAndRefusesALogCompactionOfOneCommit() {
    assertThat(LakeWriterConfig.of(minimal(), NO_ENV).lake().logCompactionInterval())
        .isEqualTo(10);
    Map<String, String> options = with("lake.log-compaction-interval", "0");
    options.put("lake.log-checkpoint-interval", "50");
    LakeWriterConfig set = LakeWriterConfig.of(options, NO_ENV);
    assertThat(set.lake().logCompactionInterval()).isZero();
    assertThat(set.lake().logCheckpointInterval()).isEqualTo(50);
    assertThat(LakeWriterConfig.of(minimal(), NO_ENV).lake().logCheckpointsStaggered())
        .as("each table at a phase of its own by default")
        .isTrue();
    assertThat(
            LakeWriterConfig.of(with("lake.log-checkpoint-stagger", "false"), NO_ENV)
                .lake()
                .logCheckpointsStaggered())
        .isFalse();
    for (String bad : List.of("1", "-3")) {
      assertThatThrownBy(
              () -> LakeWriterConfig.of(with("lake.log-compaction-interval", bad), NO_ENV))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("lake.log-compaction-interval must be 0 (none) or at least 2");
    }
  }

  @Test
  void aCheckpointExpiresAfterTheTimeoutNotFlinksTenMinutes() {
    var env =
        org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
            .getExecutionEnvironment();
    LakeWriterJob.configure(env, LakeWriterConfig.of(minimal(), NO_ENV));
    assertThat(env.getCheckpointConfig().getCheckpointTimeout()).isEqualTo(120_000L);
    LakeWriterJob.configure(
        env, LakeWriterConfig.of(with("checkpoint.timeout", "45s"), NO_ENV));
    assertThat(env.getCheckpointConfig().getCheckpointTimeout()).isEqualTo(45_000L);
    assertThatThrownBy(() -> LakeWriterConfig.of(with("checkpoint.timeout", "100ms"), NO_ENV))
        .hasMessageContaining("checkpoint.timeout must be at least 1 s");
  }
}
