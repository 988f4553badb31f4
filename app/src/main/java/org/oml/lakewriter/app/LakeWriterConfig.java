package org.oml.lakewriter.app;

import static org.oml.lakewriter.app.LakeWriterOptions.*;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.oml.lakewriter.cdc.CdcTuning;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.quarantine.JdbcTenantReplay;
import org.oml.lakewriter.jdbc.JdbcSettings;
import org.oml.lakewriter.keys.DataKeyCheck;
import org.oml.lakewriter.retry.BreakerPolicy;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.contract.OutboxContract;

/**
 * The lake writer's validated configuration: options from a properties file and the command line,
 * with unknown keys rejected and every value checked before anything starts. The password is read
 * from an environment variable or a file and is never printed.
 */
public final class LakeWriterConfig {
  private static final Pattern URL_PASSWORD =
      Pattern.compile("[?&]password=", Pattern.CASE_INSENSITIVE);

  private final Configuration conf;
  private final Map<String, String> hadoop;
  private final String password;
  private final URI postgres;

  private LakeWriterConfig(
      Configuration conf, Map<String, String> hadoop, String password, URI postgres) {
    this.conf = conf;
    this.hadoop = hadoop;
    this.password = password;
    this.postgres = postgres;
  }

  /** Reads a properties file, then applies the overrides on top of it. */
  public static LakeWriterConfig load(Path file, Map<String, String> overrides) {
    Map<String, String> all = new LinkedHashMap<>();
    if (file != null) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(file)) {
        p.load(in);
      } catch (IOException e) {
        throw new ConfigException(
            "cannot read the config file " + FileProblem.describe(file, e)
                + " (given with --config)", e);
      }
      p.stringPropertyNames().forEach(k -> all.put(k, p.getProperty(k).trim()));
    }
    all.putAll(overrides);
    return of(all, System::getenv);
  }

  /** Validates the options; {@code env} resolves the password variable. */
  public static LakeWriterConfig of(Map<String, String> options, Function<String, String> env) {
    Set<String> known = new HashSet<>();
    ALL.forEach(o -> known.add(o.key()));
    List<String> unknown = new ArrayList<>();
    Map<String, String> hadoop = new TreeMap<>();
    for (String key : options.keySet()) {
      if (key.startsWith(HADOOP_PREFIX)) {
        hadoop.put(key.substring(HADOOP_PREFIX.length()), options.get(key));
      } else if (!known.contains(key)) {
        unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigException(
          "unknown option(s) " + unknown + didYouMean(unknown, known) + "; known options are "
              + new java.util.TreeSet<>(known) + " and " + HADOOP_PREFIX + "*");
    }
    Configuration conf = Configuration.fromMap(options);
    for (ConfigOption<?> option : ALL) {
      try {
        conf.get(option);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "option " + option.key() + " has a bad value '" + options.get(option.key()) + "': "
                + e.getMessage(), e);
      }
    }
    URI postgres = parsePostgresUrl(require(conf, POSTGRES_URL));
    // Each URL parameter reaches every connection, the CDC source's included: refuse a name
    // pgjdbc would silently ignore (a misspelt sslmode) before anything connects.
    PostgresUrlParameters.check(JdbcSettings.parseQuery(postgres.getRawQuery()));
    // lake.root is required by the commands that touch the lake (run, verify, demo), not by
    // init-db or status: lakeRoot() names it when it is missing. A blank value is still an error.
    if (conf.get(LAKE_ROOT) != null) {
      require(conf, LAKE_ROOT);
    }
    identifier(conf, SLOT);
    identifier(conf, PUBLICATION);
    identifier(conf, WRITER_ID);
    identifier(conf, POSTGRES_SCHEMA);
    positive(conf.get(BATCH_MAX_ROWS), BATCH_MAX_ROWS);
    positive(conf.get(BATCH_MAX_BYTES).getBytes(), BATCH_MAX_BYTES);
    positive(conf.get(BODY_MAX_BYTES).getBytes(), BODY_MAX_BYTES);
    positive(conf.get(TICK_PERIOD).toMillis(), TICK_PERIOD);
    if (conf.get(MIN_TICK_SPACING).isNegative()) {
      throw new ConfigException(
          "option " + MIN_TICK_SPACING.key() + " must be 0 (early ticks off) or positive, not "
              + conf.get(MIN_TICK_SPACING));
    }
    positive(conf.get(CHECKPOINT_INTERVAL).toMillis(), CHECKPOINT_INTERVAL);
    positive(conf.get(LOG_CHECKPOINT_INTERVAL), LOG_CHECKPOINT_INTERVAL);
    int logCompaction = conf.get(LOG_COMPACTION_INTERVAL);
    if (logCompaction < 0 || logCompaction == 1) {
      throw new ConfigException(
          "option " + LOG_COMPACTION_INTERVAL.key() + " must be 0 (none) or at least 2, not "
              + logCompaction);
    }
    if (conf.get(LakeWriterOptions.CHECKPOINT_TIMEOUT).compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException(
          "option " + LakeWriterOptions.CHECKPOINT_TIMEOUT.key() + " must be at least 1 s, not "
              + conf.get(LakeWriterOptions.CHECKPOINT_TIMEOUT));
    }
    positive(conf.get(KEYS_LOOKUP_TIMEOUT).toMillis(), KEYS_LOOKUP_TIMEOUT);
    positive(conf.get(POSTGRES_CONNECT_TIMEOUT).toMillis(), POSTGRES_CONNECT_TIMEOUT);
    positive(conf.get(POSTGRES_SOCKET_TIMEOUT).toMillis(), POSTGRES_SOCKET_TIMEOUT);
    positive(conf.get(BREAKER_FAILURE_THRESHOLD), BREAKER_FAILURE_THRESHOLD);
    positive(conf.get(BREAKER_OPEN_WAIT).toMillis(), BREAKER_OPEN_WAIT);
    positive(conf.get(JOURNAL_RETRY_WINDOW).toMillis(), JOURNAL_RETRY_WINDOW);
    checkRetryOptions(conf);
    try {
      retryBudget(conf);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "options retry.*: " + e.getMessage() + "; see " + RETRY_MAX_ATTEMPTS.key() + ", "
              + RETRY_INITIAL_BACKOFF.key() + ", " + RETRY_MAX_BACKOFF.key() + ", "
              + RETRY_MAX_DURATION.key(), e);
    }
    validateSinkOptions(conf);
    compactionPolicy(conf);
    try {
      cdcTuning(conf);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("options cdc.*: " + e.getMessage(), e);
    }
    checkRunOptions(conf);
    checkLease(conf);
    if (!List.of("rocksdb", "hashmap").contains(conf.get(STATE_BACKEND))) {
      throw new ConfigException(
          "option " + STATE_BACKEND.key() + " is '" + conf.get(STATE_BACKEND)
              + "'; use rocksdb or hashmap");
    }
    return new LakeWriterConfig(conf, hadoop, password(conf, env), postgres);
  }

  private static String password(Configuration conf, Function<String, String> env) {
    String file = conf.get(POSTGRES_PASSWORD_FILE);
    if (file != null) {
      try {
        List<String> lines = Files.readAllLines(Path.of(file));
        return lines.isEmpty() ? "" : lines.get(0).trim();
      } catch (IOException e) {
        throw new ConfigException(
            "option " + POSTGRES_PASSWORD_FILE.key() + ": cannot read the password file "
                + FileProblem.describe(Path.of(file), e), e);
      }
    }
    String value = env.apply(conf.get(POSTGRES_PASSWORD_ENV));
    return value == null ? "" : value;
  }

  private static URI parsePostgresUrl(String url) {
    if (URL_PASSWORD.matcher(url).find()) {
      // Never echo this URL: it carries the password.
      throw new ConfigException(
          "option " + POSTGRES_URL.key() + " carries a password parameter; remove it and set the"
              + " password in the variable named by " + POSTGRES_PASSWORD_ENV.key() + " or in "
              + POSTGRES_PASSWORD_FILE.key());
    }
    if (!url.startsWith("jdbc:postgresql://")) {
      throw new ConfigException(
          "option " + POSTGRES_URL.key() + " is '" + url
              + "'; expected jdbc:postgresql://host:port/database");
    }
    URI uri;
    try {
      uri = new URI(url.substring("jdbc:".length()));
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "option " + POSTGRES_URL.key() + " is '" + url + "': " + e.getMessage(), e);
    }
    if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
      throw new ConfigException(
          "option " + POSTGRES_URL.key() + " is '" + url + "'; it needs a host and a database");
    }
    return uri;
  }

  private static String require(Configuration conf, ConfigOption<String> option) {
    String value = conf.get(option);
    if (value == null || value.isBlank()) {
      throw new ConfigException(
          "option " + option.key() + " is required: " + LakeWriterOptions.describe(option));
    }
    return value;
  }

  private static void identifier(Configuration conf, ConfigOption<String> option) {
    try {
      OutboxContract.requireIdentifier(option.key(), conf.get(option));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("option " + e.getMessage(), e);
    }
  }

  private static void positive(long value, ConfigOption<?> option) {
    if (value <= 0) {
      throw new ConfigException("option " + option.key() + " must be positive, not " + value);
    }
  }

  public <T> T get(ConfigOption<T> option) {
    return conf.get(option);
  }

  /** Whether {@code option} was given (file or command line), rather than left at its default. */
  public boolean isSet(ConfigOption<?> option) {
    return conf.contains(option);
  }

  public String jdbcUrl() {
    return conf.get(POSTGRES_URL);
  }

  public String user() {
    return conf.get(POSTGRES_USER);
  }

  /** The password, for connections only; never log it. */
  public String password() {
    return password;
  }

  /** The lake root as a URI; a plain path means the local filesystem. */
  public String lakeRoot() {
    String root = require(conf, LAKE_ROOT);
    return root.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")
        ? root
        : Path.of(root).toAbsolutePath().toUri().toString();
  }

  public Map<String, String> hadoopProperties() {
    return hadoop;
  }

  /**
   * The lake: its root, its filesystem's Hadoop entries, its tables' log checkpoint interval and
   * stagger, and their log compaction interval.
   */
  public LakeConfig lake() {
    return new LakeConfig(lakeRoot(), hadoopProperties())
        .withLogCheckpointInterval(conf.get(LOG_CHECKPOINT_INTERVAL))
        .withLogCheckpointsStaggered(conf.get(LOG_CHECKPOINT_STAGGER))
        .withLogCompactionInterval(conf.get(LOG_COMPACTION_INTERVAL));
  }

  public String writerId() {
    return conf.get(WRITER_ID);
  }

  /**
   * {@code state.dir}, or {@code .lakewriter/state/<writer.id>} when it is unset: a shared default
   * would let two configurations run from one directory restore each other's checkpoints.
   */
  public Path stateDir() {
    String dir = conf.get(STATE_DIR);
    return (dir == null ? Path.of(".lakewriter", "state", writerId()) : Path.of(dir))
        .toAbsolutePath();
  }

  /**
   * Driver properties of every connection to PostgreSQL: user, password, the connect and socket
   * timeouts, and the parameters of {@code postgres.url} (which {@link #jdbcUrl()} also carries).
   */
  public Properties connectionProperties() {
    Properties p = jdbcSettings().driverProperties(user(), password);
    // search_path = postgres.schema for every connection made with these properties (status,
    // verify, init-db, the frontier upsert), so their unqualified table names are the contract's.
    p.setProperty("currentSchema", conf.get(POSTGRES_SCHEMA));
    return p;
  }

  /**
   * The parameters of {@code postgres.url} and the side connections' timeouts, for every
   * connection the job opens: the CDC source (as Debezium properties), ticker, completeness
   * check, key check, frontier listener, journal and breaker status.
   */
  public JdbcSettings jdbcSettings() {
    return new JdbcSettings(
        JdbcSettings.parseQuery(postgres.getRawQuery()),
        conf.get(POSTGRES_CONNECT_TIMEOUT),
        conf.get(POSTGRES_SOCKET_TIMEOUT));
  }

  /** The circuit breaker of the cut's dependencies (the key registry). */
  public BreakerPolicy breakerPolicy() {
    return new BreakerPolicy(conf.get(BREAKER_FAILURE_THRESHOLD), conf.get(BREAKER_OPEN_WAIT));
  }

  public OutboxSourceOptions sourceOptions() {
    return new OutboxSourceOptions(
        postgres.getHost(),
        postgres.getPort() > 0 ? postgres.getPort() : 5432,
        postgres.getPath().substring(1),
        conf.get(POSTGRES_SCHEMA),
        user(),
        password,
        conf.get(SLOT),
        conf.get(PUBLICATION),
        writerId(),
        conf.get(TICK_PERIOD),
        (int) Math.min(Integer.MAX_VALUE, conf.get(BODY_MAX_BYTES).getBytes()),
        jdbcSettings(),
        cdcTuning());
  }

  /** Flink CDC's and Debezium's throughput knobs ({@code cdc.*}). */
  public CdcTuning cdcTuning() {
    return cdcTuning(conf);
  }

  private static CdcTuning cdcTuning(Configuration conf) {
    return new CdcTuning(
        conf.get(CDC_SNAPSHOT_SPLIT_SIZE),
        conf.get(CDC_SNAPSHOT_FETCH_SIZE),
        conf.get(CDC_MAX_BATCH_SIZE),
        conf.get(CDC_MAX_QUEUE_SIZE),
        conf.get(CDC_POLL_INTERVAL));
  }

  /** How long a row that fails a check transiently is retried before it is dead-lettered. */
  public RetryBudget retryBudget() {
    return retryBudget(conf);
  }

  private static RetryBudget retryBudget(Configuration conf) {
    return new RetryBudget(
        conf.get(RETRY_MAX_ATTEMPTS),
        conf.get(RETRY_MAX_DURATION),
        conf.get(RETRY_INITIAL_BACKOFF),
        conf.get(RETRY_MAX_BACKOFF));
  }

  /** The data-key check of promotions, or {@code null} when {@code keys.lookup-query} is unset. */
  public DataKeyCheck dataKeyCheck() {
    String query = conf.get(KEYS_LOOKUP_QUERY);
    return query == null || query.isBlank()
        ? null
        : new DataKeyCheck(
            sourceOptions(), query, conf.get(KEYS_LOOKUP_TIMEOUT), breakerPolicy());
  }

  public Duration checkpointInterval() {
    return conf.get(CHECKPOINT_INTERVAL);
  }

  public Duration checkpointTimeout() {
    return conf.get(LakeWriterOptions.CHECKPOINT_TIMEOUT);
  }

  /** The leader lease of this lake, held by {@code holder} (docs/leader-lease.md). */
  public org.oml.lakewriter.lease.LeaseSettings leaseSettings(
      org.oml.lakewriter.lease.LeaseHolder holder) {
    return new org.oml.lakewriter.lease.LeaseSettings(
        jdbcUrl(),
        connectionProperties(),
        lakeRoot(),
        writerId(),
        conf.get(SLOT),
        holder,
        conf.get(LakeWriterOptions.LEASE_DURATION),
        conf.get(LakeWriterOptions.LEASE_RENEW_PERIOD),
        conf.get(LakeWriterOptions.LEASE_SAFETY_MARGIN));
  }

  private static void checkLease(Configuration conf) {
    java.time.Duration duration = conf.get(LakeWriterOptions.LEASE_DURATION);
    java.time.Duration renew = conf.get(LakeWriterOptions.LEASE_RENEW_PERIOD);
    java.time.Duration margin = conf.get(LakeWriterOptions.LEASE_SAFETY_MARGIN);
    positive(renew.toMillis(), LakeWriterOptions.LEASE_RENEW_PERIOD);
    positive(margin.toMillis(), LakeWriterOptions.LEASE_SAFETY_MARGIN);
    if (renew.compareTo(duration.minus(margin)) >= 0) {
      throw new ConfigException(
          "option " + LakeWriterOptions.LEASE_RENEW_PERIOD.key() + " (" + renew + ") must be"
              + " shorter than " + LakeWriterOptions.LEASE_DURATION.key() + " - "
              + LakeWriterOptions.LEASE_SAFETY_MARGIN.key() + " (" + duration + " - " + margin
              + "), or a healthy writer would stop committing between two renewals");
    }
    if (conf.get(LakeWriterOptions.LEASE_WAIT).isNegative()) {
      throw new ConfigException(
          "option " + LakeWriterOptions.LEASE_WAIT.key() + " must not be negative");
    }
  }

  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>(conf.toMap());
    // Secrets handed to the lake filesystem (lake.hadoop.fs.s3a.secret.key, ...) stay hidden.
    shown.replaceAll(
        (k, v) -> GlobalConfiguration.isSensitive(k) ? GlobalConfiguration.HIDDEN_CONTENT : v);
    return "LakeWriterConfig" + shown;
  }

  // ---- Delta sink: commit retries and the tenants' quarantine (docs/quarantine.md) ----

  /** How the Delta committer retries transient failures before it fails over. */
  public CommitRetry commitRetry() {
    return commitRetry(conf);
  }

  /**
   * The outbox reader that replays a quarantined tenant; its rows go through the same key-registry
   * check as the cut's (none without {@code keys.lookup-query}).
   */
  public JdbcTenantReplay tenantReplay() {
    return new JdbcTenantReplay(
        sourceOptions(), conf.get(QUARANTINE_REPLAY_PAGE_ROWS), dataKeyCheck());
  }

  private static CommitRetry commitRetry(Configuration conf) {
    return new CommitRetry(
        conf.get(COMMIT_RETRY_MAX_DURATION),
        conf.get(COMMIT_RETRY_INITIAL_BACKOFF),
        conf.get(COMMIT_RETRY_MAX_BACKOFF));
  }

  private static void validateSinkOptions(Configuration conf) {
    checkBackoffs(
        conf, COMMIT_RETRY_INITIAL_BACKOFF, COMMIT_RETRY_MAX_BACKOFF, COMMIT_RETRY_MAX_DURATION,
        false);
    try {
      commitRetry(conf);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "options sink.commit-retry.*: " + e.getMessage() + "; see "
              + COMMIT_RETRY_MAX_DURATION.key() + ", " + COMMIT_RETRY_INITIAL_BACKOFF.key() + ", "
              + COMMIT_RETRY_MAX_BACKOFF.key(), e);
    }
    if (conf.get(QUARANTINE_MAX_REPLANS) < 0) {
      throw new ConfigException(
          "option " + QUARANTINE_MAX_REPLANS.key() + " must be 0 or more, got "
              + conf.get(QUARANTINE_MAX_REPLANS));
    }
    positive(conf.get(QUARANTINE_REPLAY_PAGE_ROWS), QUARANTINE_REPLAY_PAGE_ROWS);
  }

  /** The job's compaction policy (docs/compaction.md), validated. */
  public CompactionPolicy compactionPolicy() {
    return compactionPolicy(conf);
  }

  private static CompactionPolicy compactionPolicy(Configuration conf) {
    try {
      return new CompactionPolicy(
          conf.get(LakeWriterOptions.COMPACT_ENABLED),
          conf.get(LakeWriterOptions.COMPACT_MIN_FILES),
          conf.get(LakeWriterOptions.COMPACT_SMALL_FILE_SIZE).getBytes(),
          conf.get(LakeWriterOptions.COMPACT_TARGET_FILE_SIZE).getBytes(),
          conf.get(LakeWriterOptions.COMPACT_KEYED_TARGET_FILE_SIZE).getBytes(),
          conf.getOptional(LakeWriterOptions.COMPACT_BUDGET)
              .orElse(conf.get(CHECKPOINT_INTERVAL).dividedBy(5)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("options maintenance.compact.*: " + e.getMessage(), e);
    }
  }

  // ---- Messages that name the options and their configured values (the CLI, issue 17) ----

  /** {@code " (did you mean x?)"} per unknown key that has a near known key, else empty. */
  private static String didYouMean(List<String> unknown, Set<String> known) {
    List<String> hints = new ArrayList<>();
    for (String key : unknown) {
      OptionSuggestions.closest(key, known)
          .ifPresent(k -> hints.add(unknown.size() == 1 ? k : key + " -> " + k));
    }
    return hints.isEmpty() ? "" : " (did you mean " + String.join(", ", hints) + "?)";
  }

  /**
   * The retry budget of the cut, checked option by option so that the message names the
   * conflicting options and their configured values rather than dumping the budget record.
   */
  private static void checkRetryOptions(Configuration conf) {
    if (conf.get(RETRY_MAX_ATTEMPTS) < 1) {
      throw new ConfigException(
          "option " + RETRY_MAX_ATTEMPTS.key() + " must be at least 1 (the first attempt counts),"
              + " not " + conf.get(RETRY_MAX_ATTEMPTS));
    }
    checkBackoffs(conf, RETRY_INITIAL_BACKOFF, RETRY_MAX_BACKOFF, RETRY_MAX_DURATION, true);
  }

  /**
   * {@code 0 <= initial <= max} back-off (initial strictly positive when {@code initialPositive})
   * and a max duration that is not negative; each refusal names the options, their values and the
   * change that fixes it.
   */
  private static void checkBackoffs(
      Configuration conf,
      ConfigOption<Duration> initialOption,
      ConfigOption<Duration> maxOption,
      ConfigOption<Duration> durationOption,
      boolean initialPositive) {
    Duration initial = conf.get(initialOption);
    Duration max = conf.get(maxOption);
    Duration duration = conf.get(durationOption);
    for (ConfigOption<Duration> o : List.of(initialOption, maxOption, durationOption)) {
      if (conf.get(o).isNegative()) {
        throw new ConfigException(
            "option " + o.key() + " must not be negative, not " + conf.get(o));
      }
    }
    if (initialPositive && initial.isZero()) {
      throw new ConfigException(
          "option " + initialOption.key() + " must be positive (the first back-off doubles after"
              + " each attempt), not " + show(initial));
    }
    if (max.compareTo(initial) < 0) {
      throw new ConfigException(
          "option " + initialOption.key() + " = " + show(initial) + " is longer than "
              + maxOption.key() + " = " + show(max) + " (the cap of every back-off, which"
              + " doubles from " + initialOption.key() + "): lower " + initialOption.key()
              + " to " + show(max) + " or less, or raise " + maxOption.key() + " to at least "
              + show(initial) + " (" + durationOption.key() + " = " + show(duration) + " bounds"
              + " the whole retry)");
    }
  }

  private static String show(Duration d) {
    return org.apache.flink.util.TimeUtils.formatWithHighestUnit(d);
  }

  private static void checkRunOptions(Configuration conf) {
    positive(conf.get(SAVEPOINTS_RETAINED), SAVEPOINTS_RETAINED);
    if (conf.get(PROGRESS_INTERVAL).isNegative()) {
      throw new ConfigException(
          "option " + PROGRESS_INTERVAL.key() + " must not be negative (0 s: no progress lines)");
    }
  }
}
