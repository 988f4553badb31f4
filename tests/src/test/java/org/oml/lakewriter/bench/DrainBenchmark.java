package org.oml.lakewriter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder;
import org.apache.flink.util.FileUtils;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Drain-mode benchmark of the lake writer against baselines, all in one run, on one embedded
 * PostgreSQL and identical WAL (issue 6). Not a test: a {@code main}, see the README's
 * "Benchmark" section.
 *
 * <p>Every mode ({@link DrainModes}) drains its own replication slot, created before the outbox
 * is loaded once. After the modes, the producer's peak rate ({@link ProducerPeak}): 8 clients
 * insert the same mix into the same PostgreSQL as fast as they can, and B5 is compared with it.
 */
public final class DrainBenchmark {
  static final String PUBLICATION = "oml_lake_pub";
  static final List<String> ALL_MODES = DrainModes.ALL_MODES;
  static final int PRODUCER_CLIENTS = SizingRun.PRODUCER_CLIENTS;
  static final int PRODUCER_TXN_ROWS = SizingRun.PRODUCER_TXN_ROWS;

  private final Options o;
  private EmbeddedPostgresServer pg;
  private long maxSeq;
  private long rows;
  private long postmaster;

  private DrainBenchmark(Options o) {
    this.o = o;
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    quietLogs();
    int status = 0;
    try {
      new DrainBenchmark(o).run();
    } catch (Throwable t) {
      t.printStackTrace();
      status = 1;
    }
    System.exit(status); // Flink and Debezium leave non-daemon threads behind
  }

  private void run() throws Exception {
    Path work = o.work != null ? o.work : Files.createTempDirectory("oml-drain-bench");
    Files.createDirectories(work);
    log("work directory %s", work);
    pg = EmbeddedPostgresServer.start();
    try {
      Map<String, Object> load;
      try (Connection c = pg.connect()) {
        OutboxContract.apply(c, PUBLICATION);
        postmaster = Probe.parentPid(OutboxLoad.scalar(c, "SELECT pg_backend_pid()"));
      }
      if (o.warmupEvents > 0) {
        warmUp(work);
      }
      try (Connection c = pg.connect()) {
        for (int rep = 1; rep <= o.repeat; rep++) {
          for (String mode : o.modes) {
            slot(c, mode, rep);
            execute(
                c,
                "SELECT pg_create_logical_replication_slot('" + slot(c, mode, rep)
                    + "', 'pgoutput')");
          }
        }
        log("created %d slots; loading %,d events over %d tenants", o.repeat * o.modes.size(),
            o.events, o.tenants);
        OutboxLoad.Result r =
            OutboxLoad.load(c, o.events, o.tenants, o.bodyBytes, o.chunk, 20240611L);
        maxSeq = OutboxLoad.scalar(c, "SELECT max(seq) FROM oml_outbox");
        rows = OutboxLoad.scalar(c, "SELECT count(*) FROM oml_outbox");
        execute(c, "CHECKPOINT");
        long wal = OutboxLoad.scalar(
            c,
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), min(restart_lsn))::bigint"
                + " FROM pg_replication_slots");
        load = new LinkedHashMap<>();
        load.put("rows", rows);
        load.put("max_seq", maxSeq);
        load.put("journal", r.journal());
        load.put("materialize", r.materialize());
        load.put("retract", r.retract());
        load.put("body_bytes_total", r.bodyBytes());
        load.put("seconds", r.seconds());
        load.put("rows_per_s", rows / r.seconds());
        load.put("wal_bytes_per_slot", wal);
        log("loaded %,d rows (journal %,d, materialize %,d, retract %,d) in %.1f s (%,.0f rows/s);"
                + " %,d bytes of WAL per slot",
            rows, r.journal(), r.materialize(), r.retract(), r.seconds(), rows / r.seconds(), wal);
      }
      List<Run> runs = new ArrayList<>();
      for (int rep = 1; rep <= o.repeat; rep++) {
        for (String mode : o.modes) {
          Run run = runMode(mode, rep, work);
          runs.add(run);
          log("%s rep %d: %s", mode, rep, run.summary());
        }
      }
      Map<String, Object> producer = o.producerDuration.isZero() ? null : producerPeak();
      boolean floor = o.encodeFloor != null ? o.encodeFloor : o.events <= 200_000;
      Report.write(o, machine(), load, runs, producer, floor ? encodeFloor(runs, work) : null, work);
    } finally {
      try (Connection c = pg.connect()) {
        execute(
            c,
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT"
                + " active");
      } catch (SQLException e) {
        log("could not drop slots: %s", e.getMessage());
      }
      pg.close();
      if (o.work == null) {
        FileUtils.deleteDirectory(work.toFile()); // gigabytes of lakes and state per run
      }
    }
  }

  /**
   * Runs the full lake writer once over {@code warmupEvents} rows of their own, unreported, so that
   * the first measured mode does not pay the JVM's warm-up (class loading, JIT) that the later
   * ones are spared. Its slot is dropped and the outbox emptied before the measured slots exist,
   * so the measured WAL and snapshot hold only the measured load.
   */
  private void warmUp(Path work) throws Exception {
    String warmupSlot;
    try (Connection c = pg.connect()) {
      warmupSlot = slot(c, "B5", 0);
      execute(c, "SELECT pg_create_logical_replication_slot('" + warmupSlot + "', 'pgoutput')");
      OutboxLoad.load(c, o.warmupEvents, o.tenants, o.bodyBytes, o.chunk, 7L);
      maxSeq = OutboxLoad.scalar(c, "SELECT max(seq) FROM oml_outbox");
      rows = OutboxLoad.scalar(c, "SELECT count(*) FROM oml_outbox");
    }
    log("warm-up (not reported): B5 over %,d events", rows);
    log("warm-up: %s", runMode("B5", 0, work).summary());
    try (Connection c = pg.connect()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        try {
          execute(c, "SELECT pg_drop_replication_slot('" + warmupSlot + "')");
          break;
        } catch (SQLException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(200); // the walsender of the cancelled job is still going away
        }
      }
      execute(c, "TRUNCATE oml_outbox");
    }
  }

  static String slot(Connection c, String mode, int rep) {
    return DrainModes.slot("bench_", mode, rep);
  }

  /** Runs one mode to the end of the loaded outbox, measuring as it goes. */
  private Run runMode(String mode, int rep, Path work) throws Exception {
    String id = slot(null, mode, rep);
    Run run = new Run(mode, rep);
    System.gc();
    Probe.resetPeaks();
    try (Sampler sampler = new Sampler(pg, id)) {
      double cpu0 = Probe.jvmCpuSeconds();
      double pg0 = Probe.postgresCpuSeconds(postmaster);
      long t0 = System.nanoTime();
      long t1;
      try {
        DrainModes.Drained d =
            DrainModes.run(mode, id, target(), o.settings(), work, rows, maxSeq, sampler::sampleNow);
        run.done = d.done();
        t1 = d.endNanos();
        if (!d.done()) {
          log("%s timed out", id);
        }
      } catch (Exception e) {
        t1 = System.nanoTime();
        run.error = String.valueOf(e);
        log("%s failed: %s", id, e);
      }
      sampler.sampleNow();
      sampler.threads.sample();
      run.seconds = (t1 - t0) / 1e9;
      run.jvmCpu = Probe.jvmCpuSeconds() - cpu0;
      run.cpuByPart = sampler.threads.byPart();
      run.pgCpu = Probe.postgresCpuSeconds(postmaster) - pg0;
      if (mode.equals("B1")) {
        run.firstOutputSeconds = Double.NaN;
      } else if (BenchSinks.firstNanos(id) > 0) {
        run.firstOutputSeconds = (BenchSinks.firstNanos(id) - t0) / 1e9;
      }
      run.walsenderCpu = sampler.walsenderCpu();
      run.walsenderPid = sampler.lastPid;
      run.heapPeak = Math.max(sampler.heapPeak, Probe.heapUsed());
      run.heapAfterGcPeak = Probe.heapAfterGcPeak();
      run.rssPeak = Probe.rssPeak();
      run.rows = rows;
    }
    if (mode.equals("B4") || mode.equals("B5")) {
      run.tables = LakeStats.of(DrainModes.lake(work, id));
    }
    return run;
  }

  private DrainModes.Target target() {
    return new DrainModes.Target(
        pg.jdbcUrl(), EmbeddedPostgresServer.USER, "", "public", PUBLICATION);
  }

  /** {@link EncodeFloor} of the last B5 that drained everything, or null. */
  private static EncodeFloor.Result encodeFloor(List<Run> runs, Path work) throws Exception {
    Run last = Report.lastDone(runs, "B5");
    if (last == null) {
      return null;
    }
    EncodeFloor.Result floor =
        EncodeFloor.measure(DrainModes.lake(work, slot(null, "B5", last.rep)));
    log("encode floor: %,d live rows of %d tables encoded once, CPU-s per pass: %s", floor.rows(),
        floor.tables(),
        floor.cpuSeconds().stream().map(s -> String.format(Locale.ROOT, "%.2f", s)).toList());
    return floor;
  }

  /**
   * The producer's peak rate on this PostgreSQL, after the modes: {@link #PRODUCER_CLIENTS}
   * clients insert the drain mix in transactions of {@link #PRODUCER_TXN_ROWS} rows for {@code
   * --producer-duration}.
   */
  private Map<String, Object> producerPeak() throws Exception {
    log("producer peak: %d clients, %d rows per transaction, %s", PRODUCER_CLIENTS,
        PRODUCER_TXN_ROWS, o.producerDuration);
    ProducerPeak.Result r =
        ProducerPeak.run(pg::connect, "public", PRODUCER_CLIENTS, PRODUCER_TXN_ROWS, o.tenants,
            o.bodyBytes, o.producerDuration);
    log("producer peak: %,d rows in %.1f s, %,.0f rows/s", r.rows(), r.seconds(),
        r.rowsPerSecond());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("clients", r.clients());
    m.put("txn_rows", r.txnRows());
    m.put("rows", r.rows());
    m.put("seconds", r.seconds());
    m.put("rows_per_s", r.rowsPerSecond());
    return m;
  }

  private Map<String, Object> machine() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nproc", Runtime.getRuntime().availableProcessors());
    m.put("mem_total_bytes", Probe.statusKb(Path.of("/proc/meminfo"), "MemTotal:") * 1024);
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("jvm_max_heap_bytes", Runtime.getRuntime().maxMemory());
    m.put("jvm_args", java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    m.put("flink", org.apache.flink.runtime.util.EnvironmentInformation.getVersion());
    m.put("flink_cdc", jarVersion(PostgresSourceBuilder.class, "flink-connector-postgres-cdc"));
    m.put("delta_kernel", jarVersion(io.delta.kernel.Table.class, "delta-kernel-api"));
    m.put("pgjdbc", org.postgresql.util.DriverInfo.DRIVER_VERSION);
    try (Connection c = pg.connect()) {
      try (var st = c.createStatement();
          var rs = st.executeQuery("SHOW server_version")) {
        rs.next();
        m.put("postgresql", rs.getString(1));
      }
    }
    m.put("load_average", Files.readString(Path.of("/proc/loadavg")).trim());
    m.put("started_at", Instant.now().toString());
    return m;
  }

  static String jarVersion(Class<?> c, String artifact) {
    try {
      String path = c.getProtectionDomain().getCodeSource().getLocation().getPath();
      String file = path.substring(path.lastIndexOf('/') + 1);
      return file.startsWith(artifact + "-")
          ? file.substring(artifact.length() + 1).replace(".jar", "")
          : file;
    } catch (RuntimeException e) {
      return "unknown";
    }
  }

  static void execute(Connection c, String sql) throws SQLException {
    try (var st = c.createStatement()) {
      st.execute(sql);
    }
  }

  static void log(String format, Object... args) {
    System.err.printf(Locale.ROOT, "[bench %tT] " + format + "%n",
        Stream.concat(Stream.of(new java.util.Date()), Arrays.stream(args)).toArray());
  }

  private static void quietLogs() {
    try {
      org.apache.logging.log4j.core.config.Configurator.setLevel(
          "org.apache.flink.cdc", org.apache.logging.log4j.Level.WARN);
      org.apache.logging.log4j.core.config.Configurator.setLevel(
          "io.debezium", org.apache.logging.log4j.Level.WARN);
    } catch (Throwable t) {
      // another logging backend: leave it
    }
  }

  /** One mode, one repetition. */
  static final class Run {
    final String mode;
    final int rep;
    boolean done;
    String error;
    long rows;
    double seconds;
    double firstOutputSeconds = Double.NaN;
    double jvmCpu;
    /** {@link #jvmCpu} split by what the threads do. */
    Map<ThreadCpu.Part, Double> cpuByPart = Map.of();
    double pgCpu;
    double walsenderCpu;
    long walsenderPid;
    long heapPeak;
    long heapAfterGcPeak;
    long rssPeak;
    Map<String, LakeStats.Table> tables = new TreeMap<>();

    Run(String mode, int rep) {
      this.mode = mode;
      this.rep = rep;
    }

    double rowsPerSecond() {
      return done ? rows / seconds : Double.NaN;
    }

    /** CPU seconds of one part of the JVM's threads. */
    double cpu(ThreadCpu.Part part) {
      return cpuByPart.getOrDefault(part, 0.0);
    }

    /** JVM CPU seconds without the JIT compiler and the garbage collector. */
    double cpuWithoutJitAndGc() {
      return jvmCpu - cpu(ThreadCpu.Part.JIT) - cpu(ThreadCpu.Part.GC);
    }

    double perMillion(double cpu) {
      return cpu / rows * 1e6;
    }

    String summary() {
      return String.format(
          Locale.ROOT,
          "%s %,.0f rows/s in %.1f s; JVM %.1f CPU-s (JIT %.1f, GC %.1f), walsender %.1f"
              + " CPU-s, PG %.1f CPU-s; heap peak %d MiB (after GC %d MiB), RSS peak %d MiB%s",
          done ? "done" : "NOT DONE", rowsPerSecond(), seconds, jvmCpu, cpu(ThreadCpu.Part.JIT),
          cpu(ThreadCpu.Part.GC), walsenderCpu, pgCpu,
          heapPeak >> 20, heapAfterGcPeak >> 20, rssPeak >> 20,
          error == null ? "" : " error: " + error);
    }
  }

  /** Command-line options. */
  static final class Options {
    long events = 100_000;
    int tenants = 8;
    int bodyBytes = 1024;
    int chunk = 5_000;
    int repeat = 1;
    /** Drained once by an unreported B5 before anything is measured; 0 for no warm-up. */
    long warmupEvents = 20_000;
    List<String> modes = ALL_MODES;
    Duration checkpointInterval = Duration.ofSeconds(1);
    Duration tickPeriod = Duration.ofSeconds(1);
    int batchMaxRows = 10_000;
    String stateBackend = "rocksdb";
    Duration timeout = Duration.ofMinutes(15);
    /** How long the producer's peak rate is measured after the modes; 0 to skip it. */
    Duration producerDuration = Duration.ofSeconds(20);
    /** Measure the {@link EncodeFloor}; null: only up to 200,000 events (it holds the live rows). */
    Boolean encodeFloor;
    Path out = Path.of("tests", "target", "bench");
    Path work;
    /**
     * Further job options, {@code --set key=value}, e.g. {@code cdc.max-batch-size=8192}; {@code
     * --set flink.<key>=value} sets a Flink option instead.
     */
    Map<String, String> set = new LinkedHashMap<>();

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--help") || a.equals("-h")) {
          System.out.println(
              "DrainBenchmark [--quick] [--events N=100000] [--tenants 8] [--body-bytes 1024]"
                  + " [--repeat 1] [--modes B1,B2w,B2,B3,B4,B5] [--checkpoint-interval 1s]"
                  + " [--tick-period 1s] [--batch-max-rows 10000] [--state-backend rocksdb]"
                  + " [--copy-chunk 5000] [--warmup-events 20000] [--timeout 15m]"
                  + " [--producer-duration 20s, 0 to skip]"
                  + " [--encode-floor true|false, default true up to 200,000 events]"
                  + " [--set job.option=value ...] [--set flink.<flink option>=value ...] [--out tests/target/bench] [--work DIR]");
          System.exit(0);
        }
        if (a.equals("--quick")) {
          // About a minute on 2 cores: every mode once over 20,000 events after a short warm-up.
          o.events = 20_000;
          o.warmupEvents = 5_000;
          o.producerDuration = Duration.ofSeconds(10);
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = args[++i];
        switch (a) {
          case "--events" -> o.events = Long.parseLong(v.replace("_", ""));
          case "--tenants" -> o.tenants = Integer.parseInt(v);
          case "--body-bytes" -> o.bodyBytes = Integer.parseInt(v);
          case "--repeat" -> o.repeat = Integer.parseInt(v);
          case "--modes" -> o.modes = List.of(v.split(","));
          case "--checkpoint-interval" -> o.checkpointInterval = duration(v);
          case "--tick-period" -> o.tickPeriod = duration(v);
          case "--batch-max-rows" -> o.batchMaxRows = Integer.parseInt(v);
          case "--state-backend" -> o.stateBackend = v;
          case "--copy-chunk" -> o.chunk = Integer.parseInt(v);
          case "--warmup-events" -> o.warmupEvents = Long.parseLong(v.replace("_", ""));
          case "--timeout" -> o.timeout = duration(v);
          case "--producer-duration" -> o.producerDuration = duration(v);
          case "--encode-floor" -> o.encodeFloor = Boolean.parseBoolean(v);
          case "--out" -> o.out = Path.of(v);
          case "--work" -> o.work = Path.of(v);
          case "--set" -> {
            int eq = v.indexOf('=');
            if (eq <= 0) {
              throw new IllegalArgumentException("--set wants key=value, got " + v);
            }
            o.set.put(v.substring(0, eq), v.substring(eq + 1));
          }
          default -> throw new IllegalArgumentException("unknown option " + a + " (try --help)");
        }
      }
      for (String m : o.modes) {
        if (!ALL_MODES.contains(m)) {
          throw new IllegalArgumentException("unknown mode " + m + "; modes are " + ALL_MODES);
        }
      }
      return o;
    }

    DrainModes.Settings settings() {
      return new DrainModes.Settings(
          checkpointInterval, tickPeriod, batchMaxRows, stateBackend, timeout, set);
    }

    static Duration duration(String v) {
      return org.apache.flink.util.TimeUtils.parseDuration(v);
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("events", events);
      m.put("tenants", tenants);
      m.put("body_bytes", bodyBytes);
      m.put("mix", "~70% journal, ~20% materialize, ~10% retract (demote/erase/simulation_end/"
          + "reassign of an earlier promotion)");
      m.put("copy_chunk_rows_per_txn", chunk);
      m.put("warmup_events", warmupEvents);
      m.put("repeat", repeat);
      m.put("modes", modes);
      m.put("checkpoint_interval_ms", checkpointInterval.toMillis());
      m.put("tick_period_ms", tickPeriod.toMillis());
      m.put("batch_max_rows", batchMaxRows);
      m.put("producer_duration_ms", producerDuration.toMillis());
      m.put("producer", PRODUCER_CLIENTS + " clients, " + PRODUCER_TXN_ROWS
          + " rows per autocommit INSERT, the drain mix, as fast as they can");
      m.put("batch_max_bytes", "64mb (default)");
      m.put("state_backend", stateBackend);
      m.put("options", set);
      m.put("parallelism", 1);
      m.put("flink_source_path",
          "B2/B3/B4/B5: OutboxSource.create (StartupOptions.initial: incremental snapshot of the"
              + " loaded outbox, then the stream); B2w: same builder settings with"
              + " StartupOptions.committed (stream only, from the pre-created slot)");
      m.put("timing", "wall clock from job submission (B1: from connecting) to the end condition;"
          + " includes MiniCluster start-up");
      return m;
    }
  }

  /** Parquet files and bytes per table of a lake directory. */
  static final class LakeStats {
    record Table(long files, long bytes, long logFiles, long logBytes) {}

    static Map<String, Table> of(Path lake) throws Exception {
      Map<String, Table> tables = new TreeMap<>();
      if (!Files.isDirectory(lake)) {
        return tables;
      }
      List<Path> logs;
      try (Stream<Path> s = Files.walk(lake)) {
        logs = s.filter(p -> p.getFileName().toString().equals("_delta_log")).toList();
      }
      List<Path> roots = new ArrayList<>();
      logs.forEach(l -> roots.add(l.getParent()));
      // B4 writes no log: a table is then any directory holding parquet files directly
      if (roots.isEmpty()) {
        try (Stream<Path> s = Files.walk(lake)) {
          s.filter(p -> p.toString().endsWith(".parquet"))
              .map(Path::getParent)
              .distinct()
              .forEach(roots::add);
        }
      }
      roots.sort(Comparator.naturalOrder());
      for (Path root : roots) {
        long files = 0, bytes = 0, logFiles = 0, logBytes = 0;
        try (Stream<Path> s = Files.walk(root)) {
          for (Path p : s.filter(Files::isRegularFile).toList()) {
            long size = Files.size(p);
            if (root.relativize(p).startsWith("_delta_log")) {
              logFiles++;
              logBytes += size;
            } else if (p.toString().endsWith(".parquet")) {
              files++;
              bytes += size;
            }
          }
        }
        tables.put(lake.relativize(root).toString(), new Table(files, bytes, logFiles, logBytes));
      }
      return tables;
    }
  }
}
