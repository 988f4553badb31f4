package org.oml.lakewriter.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.connectors.base.options.StartupOptions;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.cdc.OutboxDeserializer;
import org.oml.lakewriter.cdc.OutboxSource;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.pipeline.OutboxPipeline;
import org.oml.lakewriter.serde.StreamTypes;
import org.oml.lakewriter.validate.EventValidator;

/**
 * The drain modes of the benchmark (issue 6), each draining its own replication slot, created
 * before the outbox was loaded, to the end of the loaded outbox:
 *
 * <ul>
 *   <li>B1: raw pgoutput through pgjdbc's replication stream, messages discarded;
 *   <li>B2w: Flink CDC's Postgres source, stream only from the slot ({@code committed} offsets),
 *       our deserializer, discarding sink: the WAL-decoding path, comparable with B1;
 *   <li>B2: the job's own source ({@code OutboxSource.create}, incremental snapshot first, then
 *       the stream), discarding sink: the path B3..B5 take, the denominator of B5/B2;
 *   <li>B3: B2 + the batch cut ({@code OutboxPipeline.batches}), discarding sink;
 *   <li>B4: B3 + Parquet files written by the Delta sink's writer, never committed;
 *   <li>B5: the full lake writer ({@code LakeWriterJob.build}) on a real lake directory.
 * </ul>
 *
 * <p>Used by {@code lakewriter bench} and by the hand-run benchmarks of the tests module; the
 * slot name doubles as the run id (writer id, sink counters, job name).
 */
public final class DrainModes {
  public static final List<String> ALL_MODES = List.of("B1", "B2w", "B2", "B3", "B4", "B5");
  public static final Map<String, String> DESCRIPTION =
      Map.of(
          "B1", "raw pgoutput (pgjdbc replication stream), discard",
          "B2w", "Flink CDC source, stream-only from the slot (WAL path) + deserializer, discard",
          "B2", "Flink CDC source as the job builds it (snapshot, then stream) + deserializer,"
              + " discard",
          "B3", "B2 + batch cut (horizon tick, completeness check), discard batches",
          "B4", "B3 + Parquet files via DeltaSinkWriter, no Delta commit",
          "B5", "full lake writer (LakeWriterJob.build), Delta 2PC on a local lake");

  /** The PostgreSQL, schema and publication the modes drain. */
  public record Target(
      String jdbcUrl, String user, String password, String schema, String publication) {}

  /**
   * The job's settings for B2..B5, and how long a mode may take.
   *
   * @param options further job options ({@code key -> value}, e.g. {@code cdc.max-batch-size}),
   *     set after the ones above; a key that starts with {@value #FLINK_PREFIX} is a Flink option
   *     instead (prefix dropped), set on the job's Flink configuration after {@code
   *     LakeWriterJob.flinkConfiguration}
   */
  public record Settings(
      Duration checkpointInterval, Duration tickPeriod, int batchMaxRows, String stateBackend,
      Duration timeout, Map<String, String> options) {
    public Settings {
      options = Map.copyOf(options);
    }

    public Settings(
        Duration checkpointInterval, Duration tickPeriod, int batchMaxRows, String stateBackend,
        Duration timeout) {
      this(checkpointInterval, tickPeriod, batchMaxRows, stateBackend, timeout, Map.of());
    }
  }

  private static final String PASSWORD_ENV = "OML_BENCH_PASSWORD";

  /** How long a cancelled job may take to end. */
  private static final Duration STOP_WAIT = Duration.ofMinutes(2);

  /** Marks a {@link Settings#options()} key as a Flink option, e.g. for a RocksDB A/B. */
  public static final String FLINK_PREFIX = "flink.";

  private DrainModes() {}

  /** How a mode ended: {@code done} false on timeout; {@code endNanos} before the job's cancel. */
  public record Drained(boolean done, long endNanos) {}

  /**
   * Drains slot {@code id} in {@code mode} until all {@code rows} (B1, B2) or the batch / frontier
   * end {@code maxSeq} (B3..B5) are seen. {@code sample} runs once at the end condition.
   *
   * @throws Exception the job's failure, or the end of a job before the end of the outbox
   */
  public static Drained run(
      String mode, String id, Target target, Settings settings, Path work, long rows,
      long maxSeq, Runnable sample)
      throws Exception {
    if (!ALL_MODES.contains(mode)) {
      throw new IllegalArgumentException("unknown mode " + mode + "; modes are " + ALL_MODES);
    }
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    if (mode.equals("B1")) {
      RawPgoutputDrain.drain(
          target.jdbcUrl(), target.user(), target.password(), id, target.publication(), rows,
          sample, settings.timeout().toNanos());
      return new Drained(true, System.nanoTime());
    }
    BenchSinks.reset(id);
    Path lake = lake(work, id);
    LakeWriterConfig cfg = config(target, settings, id, lake);
    Configuration conf = LakeWriterJob.flinkConfiguration(cfg, work.resolve("state-" + id));
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    settings.options().forEach((k, v) -> {
      if (k.startsWith(FLINK_PREFIX)) {
        conf.setString(k.substring(FLINK_PREFIX.length()), v);
      }
    });
    // The cancelled jobs' Hadoop shutdown hooks touch their closed class loaders at JVM exit.
    conf.set(org.apache.flink.configuration.CoreOptions.CHECK_LEAKED_CLASSLOADER, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    LakeWriterJob.configure(env, cfg);
    graph(mode, env, cfg, id, lake);
    JobClient job = env.executeAsync("drain-bench " + id);
    Drained drained;
    try {
      drained = await(mode, id, target, deadline, job, rows, maxSeq, sample);
    } catch (Exception e) {
      try {
        stop(job, id);
      } catch (Exception s) {
        e.addSuppressed(s);
      }
      throw e;
    }
    stop(job, id);
    return drained;
  }

  /**
   * Cancels the job and waits until it has ended: only then are its connections (the walsender,
   * the side connections, any transaction they had open) gone, so that the caller can drop the
   * slot and the schema without waiting on them.
   *
   * @throws IllegalStateException the job did not end within {@link #STOP_WAIT}
   */
  private static void stop(JobClient job, String id) throws InterruptedException {
    try {
      job.cancel().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // already ended, or the wait below says so
    }
    try {
      job.getJobExecutionResult().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // cancelled (or failed): ended either way
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "drain-bench " + id + " (job " + job.getJobID() + ") did not end within " + STOP_WAIT
              + " of its cancel; its connections may still hold the slot and locks", e);
    }
  }

  /** Where mode run {@code id} writes its lake (B4, B5). */
  public static Path lake(Path work, String id) {
    return work.resolve("lake-" + id);
  }

  static LakeWriterConfig config(Target target, Settings s, String id, Path lake) {
    Map<String, String> m = new HashMap<>();
    m.put(LakeWriterOptions.POSTGRES_URL.key(), target.jdbcUrl());
    m.put(LakeWriterOptions.POSTGRES_USER.key(), target.user());
    m.put(LakeWriterOptions.POSTGRES_PASSWORD_ENV.key(), PASSWORD_ENV);
    m.put(LakeWriterOptions.POSTGRES_SCHEMA.key(), target.schema());
    m.put(LakeWriterOptions.LAKE_ROOT.key(), lake.toString());
    m.put(LakeWriterOptions.SLOT.key(), id);
    m.put(LakeWriterOptions.PUBLICATION.key(), target.publication());
    m.put(LakeWriterOptions.WRITER_ID.key(), id);
    m.put(LakeWriterOptions.CHECKPOINT_INTERVAL.key(), s.checkpointInterval().toMillis() + "ms");
    m.put(LakeWriterOptions.TICK_PERIOD.key(), s.tickPeriod().toMillis() + "ms");
    m.put(LakeWriterOptions.BATCH_MAX_ROWS.key(), String.valueOf(s.batchMaxRows()));
    m.put(LakeWriterOptions.STATE_BACKEND.key(), s.stateBackend());
    s.options().forEach((k, v) -> {
      if (!k.startsWith(FLINK_PREFIX)) {
        m.put(k, v);
      }
    });
    Function<String, String> env = k -> PASSWORD_ENV.equals(k) ? target.password() : null;
    return LakeWriterConfig.of(m, env);
  }

  @SuppressWarnings("deprecation")
  private static void graph(
      String mode, StreamExecutionEnvironment env, LakeWriterConfig cfg, String id, Path lake) {
    OutboxSourceOptions src = cfg.sourceOptions();
    int maxRows = cfg.get(LakeWriterOptions.BATCH_MAX_ROWS);
    long maxBytes = cfg.get(LakeWriterOptions.BATCH_MAX_BYTES).getBytes();
    switch (mode) {
      case "B2w" -> env.fromSource(streamOnlySource(src), WatermarkStrategy.noWatermarks(), "cdc")
          .returns(StreamTypes.OUTBOX_CHANGE)
          .setParallelism(1)
          .addSink(new BenchSinks.CountingChanges(id))
          .setParallelism(1);
      case "B2" -> env.fromSource(
              OutboxSource.create(src), WatermarkStrategy.noWatermarks(), OutboxPipeline.SOURCE_UID)
          .returns(StreamTypes.OUTBOX_CHANGE)
          .setParallelism(1)
          .addSink(new BenchSinks.CountingChanges(id))
          .setParallelism(1);
      case "B3" -> OutboxPipeline.batches(env, src, maxRows, maxBytes)
          .addSink(new BenchSinks.BatchEnds(id))
          .setParallelism(1);
      case "B4" -> OutboxPipeline.batches(env, src, maxRows, maxBytes)
          .addSink(new BenchSinks.ParquetOnly(id, lake.toUri().toString()))
          .setParallelism(1);
      case "B5" -> LakeWriterJob.build(env, cfg);
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
  }

  /**
   * The job's source settings (see {@code OutboxSource}), but reading only the stream from the
   * slot's confirmed LSN: Flink CDC decoding the same WAL that B1 reads.
   */
  static org.apache.flink.api.connector.source.Source<OutboxChange, ?, ?> streamOnlySource(
      OutboxSourceOptions o) {
    Properties p = new Properties();
    p.setProperty("publication.name", o.publication());
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("binary.handling.mode", "bytes");
    return PostgresSourceBuilder.PostgresIncrementalSource.<OutboxChange>builder()
        .hostname(o.hostname())
        .port(o.port())
        .database(o.database())
        .schemaList(o.schema())
        .tableList(
            o.schema() + "." + OutboxSource.OUTBOX_TABLE,
            o.schema() + "." + OutboxSource.HORIZON_TABLE)
        .username(o.username())
        .password(o.password() == null ? "" : o.password())
        .slotName(o.slotName())
        .decodingPluginName("pgoutput")
        .startupOptions(StartupOptions.committed())
        .heartbeatInterval(o.tickPeriod())
        .debeziumProperties(p)
        .deserializer(
            new OutboxDeserializer(
                OutboxSource.OUTBOX_TABLE,
                OutboxSource.HORIZON_TABLE,
                o.writerId(),
                new EventValidator(o.maxBodyBytes())))
        .build();
  }

  /** Polls the mode's end condition; false on timeout, throws on a failed job. */
  private static Drained await(
      String mode, String id, Target target, long deadline, JobClient job, long rows,
      long maxSeq, Runnable sample)
      throws Exception {
    Properties p = new Properties();
    p.setProperty("user", target.user());
    if (target.password() != null) {
      p.setProperty("password", target.password());
    }
    try (Connection c = DriverManager.getConnection(target.jdbcUrl(), p);
        PreparedStatement frontier =
            c.prepareStatement(
                "SELECT frontier_seq FROM " + target.schema()
                    + ".oml_lake_frontier WHERE writer_id = ?")) {
      frontier.setString(1, id);
      while (System.nanoTime() < deadline) {
        boolean reached =
            switch (mode) {
              case "B2", "B2w" -> BenchSinks.count(id) >= rows;
              case "B3", "B4" -> BenchSinks.count(id) >= maxSeq;
              default -> {
                try (ResultSet rs = frontier.executeQuery()) {
                  yield rs.next() && rs.getLong(1) >= maxSeq;
                }
              }
            };
        if (reached) {
          long end = System.nanoTime();
          sample.run();
          return new Drained(true, end);
        }
        if (job.getJobStatus().get().isGloballyTerminalState()) {
          job.getJobExecutionResult().get(); // throws the job's failure
          throw new IllegalStateException("job ended before the end of the outbox");
        }
        Thread.sleep(50);
      }
    }
    return new Drained(false, System.nanoTime());
  }

  /** The slot (and run id) of a mode in a repetition, under a prefix unique to the run. */
  public static String slot(String prefix, String mode, int rep) {
    return prefix + mode.toLowerCase(Locale.ROOT) + "_r" + rep;
  }
}
