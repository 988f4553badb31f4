package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.util.FileUtils;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.bench.DrainModes;
import org.oml.lakewriter.bench.SizingRun;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lakewriter bench}: drain mode and the producer's peak rate, on the user's PostgreSQL
 * ({@code postgres.url}, {@code postgres.user}, the password option) or an embedded one, so that
 * an operator can size a deployment with the tool itself. See {@link SizingRun} for what it
 * creates and removes; the user's outbox, publication and slots are never touched.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Measures drain rates (B1 raw pgoutput, B2 the CDC source, B5 the full lake writer) and"
            + " the producer's peak rate (8 clients inserting the drain mix) on one PostgreSQL,"
            + " in one run. On your database it works in a scratch schema, publication and"
            + " replication slots of its own (oml_bench_<hex>), dropped at the end; it never"
            + " touches your outbox. Needs a user that may CREATE SCHEMA, CREATE PUBLICATION"
            + " and create replication slots. Progress goes to stderr.")
final class BenchCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(names = "--embedded", description = "Start an embedded PostgreSQL instead of connecting.")
  boolean embedded;

  @Option(
      names = "--quick",
      description = "Short run: 20,000 events, 5,000 warm-up events, a 10 s producer.")
  boolean quick;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Option(names = "--events", description = "Outbox rows drained per mode (default 100000).")
  Long events;

  @Option(names = "--tenants", description = "Tenants (default: ${DEFAULT-VALUE}).")
  int tenants = 8;

  @Option(names = "--body-bytes", description = "Promotion body size (default: ${DEFAULT-VALUE}).")
  int bodyBytes = 1024;

  @Option(
      names = "--warmup-events",
      description = "Events of an unreported B5 warm-up (default 20000; 0 for none).")
  Long warmupEvents;

  @Option(
      names = "--modes",
      split = ",",
      description = "Drain modes, of B1,B2w,B2,B3,B4,B5 (default: ${DEFAULT-VALUE}).")
  List<String> modes = List.of("B1", "B2", "B5");

  @Option(
      names = "--producer-duration",
      description = "How long the producer's peak is measured (default 20s; 0s for none).")
  String producerDuration;

  @Option(names = "--timeout", description = "Longest drain of one mode (default: ${DEFAULT-VALUE}).")
  String timeout = "15m";

  @Option(
      names = "--dir",
      description =
          "Where the lakes and Flink state go, kept afterwards (default: a temp dir, removed at"
              + " the end).")
  Path dir;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    long n = events != null ? events : quick ? 20_000 : 100_000;
    long warmup = warmupEvents != null ? warmupEvents : quick ? 5_000 : 20_000;
    Duration producer =
        producerDuration != null ? duration("--producer-duration", producerDuration)
            : Duration.ofSeconds(quick ? 10 : 20);
    validate(n, warmup);
    if (dir != null) {
      return runIn(dir.toAbsolutePath(), n, warmup, producer);
    }
    // The lakes and state of a 100k-event run take gigabytes: a temp dir does not outlive the run.
    Path work = Files.createTempDirectory("lakewriter-bench");
    try {
      return runIn(work, n, warmup, producer);
    } finally {
      FileUtils.deleteDirectory(work.toFile());
    }
  }

  private int runIn(Path work, long n, long warmup, Duration producer) throws Exception {
    PrintStream progress = json ? System.err : System.out;
    if (embedded) {
      try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start()) {
        progress.printf("bench: embedded PostgreSQL on port %d%n", pg.port());
        Map<String, String> o = new LinkedHashMap<>(config.overrides);
        o.put(LakeWriterOptions.POSTGRES_URL.key(), pg.jdbcUrl());
        o.put(LakeWriterOptions.POSTGRES_USER.key(), EmbeddedPostgresServer.USER);
        LakeWriterConfig cfg = LakeWriterConfig.load(config.configFile, o);
        return run(cfg, n, warmup, producer, work, progress, "embedded");
      }
    }
    LakeWriterConfig cfg = config.load();
    return run(cfg, n, warmup, producer, work, progress, "postgres.url");
  }

  private int run(
      LakeWriterConfig cfg, long n, long warmup, Duration producer, Path work,
      PrintStream progress, String where)
      throws Exception {
    // The benchmark's 1 s checkpoint interval unless the configuration sets one: with the
    // default 10 s, a short drain would measure mostly the wait for the first checkpoint.
    Duration checkpoint =
        cfg.isSet(LakeWriterOptions.CHECKPOINT_INTERVAL)
            ? cfg.get(LakeWriterOptions.CHECKPOINT_INTERVAL)
            : Duration.ofSeconds(1);
    DrainModes.Settings settings =
        new DrainModes.Settings(
            checkpoint,
            cfg.get(LakeWriterOptions.TICK_PERIOD),
            cfg.get(LakeWriterOptions.BATCH_MAX_ROWS),
            cfg.get(LakeWriterOptions.STATE_BACKEND),
            duration("--timeout", timeout));
    SizingRun.Options options =
        new SizingRun.Options(n, tenants, bodyBytes, warmup, modes, producer, settings);
    var props = cfg.connectionProperties();
    SizingRun bench =
        new SizingRun(
            () -> DriverManager.getConnection(cfg.jdbcUrl(), props),
            cfg.jdbcUrl(),
            cfg.user(),
            cfg.password(),
            options,
            progress);
    progress.printf("bench: on %s, scratch objects named %s, work directory %s%n",
        where.equals("embedded") ? "an embedded PostgreSQL" : "postgres.url", bench.name(), work);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("postgres", where);
    try {
      doc.putAll(bench.run(work));
    } catch (SizingRun.Failure e) {
      System.err.println("lakewriter " + e.getMessage());
      for (Throwable t : e.getSuppressed()) {
        System.err.println("lakewriter " + t.getMessage());
      }
      return 1;
    }
    if (json) {
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
    } else {
      print(doc, System.out);
    }
    return 0;
  }

  @SuppressWarnings("unchecked")
  private static void print(Map<String, Object> doc, PrintStream out) {
    out.println();
    out.printf(Locale.ROOT, "%,d events over %d tenants%n", doc.get("events"), doc.get("tenants"));
    ((Map<String, Object>) doc.get("modes"))
        .forEach(
            (mode, m) ->
                out.printf(Locale.ROOT, "  %-4s %,10.0f rows/s  %s%n", mode,
                    ((Map<String, Object>) m).get("rows_per_s"),
                    ((Map<String, Object>) m).get("description")));
    Map<String, Object> p = (Map<String, Object>) doc.get("producer_peak");
    if (!p.isEmpty()) {
      out.printf(Locale.ROOT, "  producer peak %,10.0f rows/s  (%s clients, %s rows per"
          + " transaction)%n", p.get("rows_per_s"), p.get("clients"), p.get("txn_rows"));
    }
    ((Map<String, Object>) doc.get("ratios"))
        .forEach((k, v) -> out.printf(Locale.ROOT, "  %-18s %.2f%n", k, v));
  }

  private void validate(long n, long warmup) {
    if (n < 1) {
      throw new ParameterException(spec.commandLine(), "--events must be at least 1, not " + n);
    }
    if (tenants < 1) {
      throw new ParameterException(
          spec.commandLine(), "--tenants must be at least 1, not " + tenants);
    }
    if (warmup < 0) {
      throw new ParameterException(
          spec.commandLine(), "--warmup-events must be 0 or more, not " + warmup);
    }
    for (String m : modes) {
      if (!DrainModes.ALL_MODES.contains(m)) {
        throw new ParameterException(
            spec.commandLine(), "--modes: unknown mode " + m + "; modes are " + DrainModes.ALL_MODES);
      }
    }
  }

  private Duration duration(String option, String value) {
    try {
      return org.apache.flink.util.TimeUtils.parseDuration(value);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), option + ": '" + value + "' is not a duration (e.g. 10s, 2m)");
    }
  }
}
