package org.oml.lakewriter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Sustained-mode benchmark of the lake writer (issue 6). Not a test: a {@code main}, see the
 * README's "Benchmark" section.
 *
 * <p>One embedded PostgreSQL. First the full lake writer's drain rate R is measured (B5 of {@link
 * DrainBenchmark}: COPY N events, run {@code LakeWriterJob.build} until the committed frontier
 * reaches the last seq) or taken from {@code --drain-rate}. Then, for each offered load (default
 * 25%, 50%, 75%, 90% of R), a fresh lake writer (new slot, writer id and lake; the outbox truncated
 * before its slot is created) is warmed up (one row per tenant and table kind, waited for), and a
 * paced generator inserts the drain mode's event mix for a fixed window in small transactions
 * (one multi-row {@code INSERT ... RETURNING seq}, autocommit). Measured:
 *
 * <ul>
 *   <li><b>Frontier lag, Delta</b>: for every generated row, its client-side commit time (wall
 *       clock when the autocommit INSERT returned) against the moment its tenant's {@code
 *       bronze/journal_events} table became visible at a txn version &ge; the row's seq. That
 *       moment is the mtime of the first {@code _delta_log/NNN.json} whose {@code
 *       txn(oml-lakewriter, v)} has v &ge; seq (the log store publishes a commit by hard link, so
 *       the file appears with its final content; its mtime is when it was written). Read after the
 *       window, not polled: resolution is the file system's timestamp granularity (a kernel tick,
 *       a few ms), and no poller competes for the 2 cores.
 *   <li><b>Frontier lag, frontier table</b>: the same rows against the first 100 ms poll of {@code
 *       oml_lake_frontier.frontier_seq} &ge; seq (every table of the batch committed). Resolution
 *       100 ms plus the query.
 *   <li><b>Slot lag</b>: {@code pg_current_wal_lsn() - confirmed_flush_lsn} of the writer's slot,
 *       polled every 100 ms.
 *   <li><b>Commit latency per table</b>: from the job's own log, captured in-process by a log4j
 *       appender: Flink's {@code CheckpointCoordinator} "Completed checkpoint N" and the committer's
 *       "batch (a, b] table T: COMMITTED" line, each stamped when logged. A table's commit latency
 *       is the time from the previous of those two events in the same commit round (the checkpoint
 *       completion for the first table, the previous table's line otherwise) to its own line: the
 *       Delta commit of that table alone. "ckpt to batch visible" is checkpoint completion to the
 *       batch's last table.
 *   <li><b>Horizon lag</b>: outbox head seq minus {@code oml_lake_horizon.stable_seq}, and the age
 *       of the oldest outbox row above the stable seq ({@code now() - event_time}), polled every
 *       100 ms.
 *   <li>Decomposition of the Delta frontier lag per row: commit to horizon stable &ge; seq (poll),
 *       to the last checkpoint completion before the visible commit, to the commit file.
 * </ul>
 */
public final class SustainedBenchmark {
  static final String PUBLICATION = DrainBenchmark.PUBLICATION;
  private static final String COMMITTER_LOGGER =
      "org.oml.lakewriter.delta.committer.DeltaCommitter";
  private static final String COORDINATOR_LOGGER =
      "org.apache.flink.runtime.checkpoint.CheckpointCoordinator";
  private static final Pattern COMMIT_LINE =
      Pattern.compile("^batch \\((-?\\d+), (\\d+)\\] table (\\S+): (\\w+) \\((\\d+) rows");
  private static final Pattern COMPLETED = Pattern.compile("^Completed checkpoint (\\d+) ");
  private static final Pattern TRIGGERED = Pattern.compile("^Triggering checkpoint (\\d+) ");
  private static final Pattern TXN =
      Pattern.compile("\"txn\":\\{[^}]*\"version\":(\\d+)");
  private static final Pattern ADD_MTIME = Pattern.compile("\"modificationTime\":(\\d+)");

  private final Options o;
  private EmbeddedPostgresServer pg;
  private long postmaster;
  private final Capture capture = new Capture();

  private SustainedBenchmark(Options o) {
    this.o = o;
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    quietLogs();
    int status = 0;
    try {
      new SustainedBenchmark(o).run();
    } catch (Throwable t) {
      t.printStackTrace();
      status = 1;
    }
    System.exit(status); // Flink and Debezium leave non-daemon threads behind
  }

  private void run() throws Exception {
    Path work = o.work != null ? o.work : Files.createTempDirectory("oml-sustained-bench");
    Files.createDirectories(work);
    log("work directory %s", work);
    capture.install();
    pg = EmbeddedPostgresServer.start();
    List<Level> levels = new ArrayList<>();
    Map<String, Object> drain = new LinkedHashMap<>();
    Map<String, Object> machine;
    try {
      try (Connection c = pg.connect()) {
        OutboxContract.apply(c, PUBLICATION);
        postmaster = Probe.parentPid(OutboxLoad.scalar(c, "SELECT pg_backend_pid()"));
      }
      machine = machine();
      double rate = o.drainRate;
      if (rate <= 0) {
        rate = measureDrain(work, drain);
      } else {
        drain.put("rows_per_s", rate);
        drain.put("source", "--drain-rate");
      }
      log("drain rate R = %,.0f rows/s", rate);
      if (!o.jvmWarmup.isZero()) {
        Level w = runLevel(0, 0.5, 0.5 * rate, o.jvmWarmup, work);
        log("JVM warm-up level (not reported): %s", w.summary());
        drain.put("jvm_warmup_level", w.json());
      }
      int n = 0;
      for (double f : o.loads) {
        n++;
        Level level = runLevel(n, f, f * rate, o.window, work);
        levels.add(level);
        log("load %.0f%%: %s", f * 100, level.summary());
      }
    } finally {
      pg.close();
    }
    report(machine, drain, levels, work);
    if (o.work == null) {
      FileUtils.deleteDirectory(work.toFile()); // gigabytes of lakes and state per run
    }
  }

  // ---------------------------------------------------------------- drain rate (B5 of the drain)

  private double measureDrain(Path work, Map<String, Object> out) throws Exception {
    String id = "sust_drain";
    long rows;
    long maxSeq;
    try (Connection c = pg.connect()) {
      resetOutbox(c, id);
      OutboxLoad.Result r = OutboxLoad.load(c, o.drainEvents, o.tenants, 1024, 5_000, 20240611L);
      rows = r.rows();
      maxSeq = OutboxLoad.scalar(c, "SELECT max(seq) FROM oml_outbox");
      log("drain: loaded %,d rows in %.1f s", rows, r.seconds());
    }
    long t0 = System.nanoTime();
    JobClient job = submit(id, work);
    boolean done = awaitFrontier(id, maxSeq, job, Duration.ofMinutes(15), null);
    double seconds = (System.nanoTime() - t0) / 1e9;
    cancel(job);
    if (!done) {
      throw new IllegalStateException("drain did not finish; pass --drain-rate");
    }
    double rate = rows / seconds;
    out.put("source", "measured: B5 drain of --drain-events, wall clock from job submission to"
        + " frontier >= max seq (includes MiniCluster start-up and the incremental snapshot)");
    out.put("events", rows);
    out.put("seconds", seconds);
    out.put("rows_per_s", rate);
    return rate;
  }

  // ------------------------------------------------------------------------------ one load level

  private Level runLevel(int n, double fraction, double offered, Duration window, Path work)
      throws Exception {
    String id = "sust_l" + n;
    Level level = new Level(fraction, offered);
    try (Connection c = pg.connect()) {
      resetOutbox(c, id);
    }
    JobClient job = submit(id, work);
    try {
      // warm-up: every tenant's bronze and silver table exists and the job is streaming
      long warm;
      try (Connection c = pg.connect()) {
        Generator g = new Generator(c, o.tenants, o.bodyBytes, 1, 7L);
        warm = g.warmUp();
      }
      if (!awaitFrontier(id, warm, job, Duration.ofMinutes(3), null)) {
        throw new IllegalStateException(id + ": warm-up rows never reached the frontier");
      }
      log("%s: warmed up (seq %d); offering %,.0f rows/s for %d s", id, warm, offered,
          window.toSeconds());
      capture.clear();
      System.gc();
      Probe.resetPeaks();
      double cpu0 = Probe.jvmCpuSeconds();
      double pg0 = Probe.postgresCpuSeconds(postmaster);
      long jit0 = java.lang.management.ManagementFactory.getCompilationMXBean()
          .getTotalCompilationTime();
      Generator g;
      try (Sampler proc = new Sampler(pg, id);
          Poller poller = new Poller(pg, id);
          Connection c = pg.connect()) {
        g = new Generator(c, o.tenants, o.bodyBytes, o.txnRows, 20240611L + n);
        long start = System.nanoTime();
        g.run(offered, window.toNanos());
        level.generatorSeconds = (System.nanoTime() - start) / 1e9;
        level.windowEndMillis = System.currentTimeMillis();
        level.lastSeq = g.lastSeq;
        level.rows = g.count;
        level.generatorBehindMax = g.behindMaxNanos / 1e9;
        level.done = awaitFrontier(id, g.lastSeq, job, o.tail, poller);
        level.tailSeconds = (System.currentTimeMillis() - level.windowEndMillis) / 1000.0;
        proc.sampleNow();
        level.jvmCpu = Probe.jvmCpuSeconds() - cpu0;
        level.jitSeconds = (java.lang.management.ManagementFactory.getCompilationMXBean()
            .getTotalCompilationTime() - jit0) / 1000.0;
        level.threads = Thread.activeCount();
        level.pgCpu = Probe.postgresCpuSeconds(postmaster) - pg0;
        level.walsenderCpu = proc.walsenderCpu();
        level.heapPeak = Math.max(proc.heapPeak, Probe.heapUsed());
        level.rssPeak = Probe.rssPeak();
        level.polls = poller.stop();
      }
      analyse(level, g, work.resolve("lake-" + id));
    } catch (Exception e) {
      level.error = String.valueOf(e);
      log("%s failed: %s", id, e);
    } finally {
      cancel(job);
    }
    return level;
  }

  private void analyse(Level level, Generator g, Path lake) throws Exception {
    // Delta visibility: per bronze table, the (txn version, mtime) of every commit file
    Map<String, long[][]> commits = new HashMap<>();
    for (int t = 0; t < o.tenants; t++) {
      String tenant = "tenant-" + t;
      commits.put(tenant, commitFiles(lake.resolve(tenant).resolve("bronze/journal_events")));
    }
    List<Poll> polls = level.polls;
    long[] pollT = polls.stream().mapToLong(p -> p.millis).toArray();
    List<Checkpoint> ckpts = capture.checkpoints();
    long[] ckptDone = ckpts.stream().mapToLong(k -> k.completedMillis).toArray();
    List<Double> delta = new ArrayList<>();
    // the same lag per minute of the level (by commit time), to see whether it grows
    long start = g.count == 0 ? 0 : g.commitMillis[0];
    Map<Integer, List<Double>> byMinute = new TreeMap<>();
    List<Double> frontier = new ArrayList<>();
    List<Double> toStable = new ArrayList<>();
    List<Double> stableToCkpt = new ArrayList<>();
    List<Double> ckptToVisible = new ArrayList<>();
    List<Double> stableToWritten = new ArrayList<>();
    List<Double> writtenToTrigger = new ArrayList<>();
    List<Double> writtenToDone = new ArrayList<>();
    List<double[]> parts = new ArrayList<>();
    long invisible = 0;
    for (int i = 0; i < g.count; i++) {
      long seq = g.seqs[i];
      long tc = g.commitMillis[i];
      long[][] cf = commits.get("tenant-" + g.tenants[i]);
      int vi = firstAtOrAbove(cf, seq);
      if (vi < 0) {
        invisible++;
      } else {
        long visible = cf[vi][1] / 1000;
        long written = cf[vi][2];
        delta.add((visible - tc) / 1000.0);
        byMinute
            .computeIfAbsent((int) ((tc - start) / 60_000), m -> new ArrayList<>())
            .add((visible - tc) / 1000.0);
        int k = lastAtOrBelow(ckptDone, visible);
        long stAt = firstPoll(polls, seq, true);
        if (k >= 0 && written > 0 && stAt > 0) {
          parts.add(new double[] {(visible - tc) / 1000.0, (stAt - tc) / 1000.0,
              (written - stAt) / 1000.0, (ckptDone[k] - written) / 1000.0,
              (visible - ckptDone[k]) / 1000.0});
        }
        if (k >= 0 && written > 0) {
          long trig = ckpts.get(k).triggeredMillis;
          writtenToDone.add((ckptDone[k] - written) / 1000.0);
          if (trig > 0) {
            writtenToTrigger.add((trig - written) / 1000.0);
          }
        }
        long stableAt = firstPoll(polls, seq, true);
        if (stableAt > 0 && written > 0) {
          stableToWritten.add((written - stableAt) / 1000.0);
        }
        long stable = firstPoll(polls, seq, true);
        if (stable > 0) {
          toStable.add((stable - tc) / 1000.0);
          if (k >= 0) {
            stableToCkpt.add((ckptDone[k] - stable) / 1000.0);
          }
        }
        if (k >= 0) {
          ckptToVisible.add((visible - ckptDone[k]) / 1000.0);
        }
      }
      long f = firstPoll(polls, seq, false);
      if (f > 0) {
        frontier.add((f - tc) / 1000.0);
      }
    }
    level.invisibleRows = invisible;
    level.deltaLag = Pct.of(delta);
    byMinute.forEach(
        (m, lags) -> {
          long from = start + m * 60_000L;
          level.lagByMinute.put(m, Pct.of(lags));
          level.checkpointsByMinute.put(
              m, (int) Arrays.stream(ckptDone).filter(t -> t >= from && t < from + 60_000).count());
        });
    level.frontierLag = Pct.of(frontier);
    level.toStable = Pct.of(toStable);
    level.stableToCkpt = Pct.of(stableToCkpt);
    level.ckptToVisible = Pct.of(ckptToVisible);
    level.stableToWritten = Pct.of(stableToWritten);
    // the slowest 1% of rows: mean of each part of their lag
    parts.sort((a, b) -> Double.compare(b[0], a[0]));
    int top = Math.max(1, parts.size() / 100);
    double[] mean = new double[5];
    for (int i = 0; i < Math.min(top, parts.size()); i++) {
      for (int j = 0; j < 5; j++) {
        mean[j] += parts.get(i)[j] / top;
      }
    }
    level.slowestPercent = parts.isEmpty() ? null : mean;
    level.writtenToTrigger = Pct.of(writtenToTrigger);
    level.writtenToDone = Pct.of(writtenToDone);
    // samples within the window only
    long end = level.windowEndMillis;
    List<Poll> window = polls.stream().filter(p -> p.millis <= end).toList();
    level.slotLag = Pct.of(window.stream().map(p -> (double) p.slotLagBytes).toList());
    level.restartLag = Pct.of(window.stream().map(p -> (double) p.restartLagBytes).toList());
    level.horizonRows = Pct.of(window.stream().map(p -> (double) (p.head - p.stable)).toList());
    level.horizonAge = Pct.of(window.stream().map(p -> p.horizonAgeSeconds).toList());
    level.tickAge = Pct.of(window.stream().map(p -> p.tickAgeSeconds).toList());
    // commit latency per table, from the captured log
    Map<String, List<Double>> perTable = new TreeMap<>();
    Map<String, List<Double>> perKind = new TreeMap<>();
    List<Double> batchVisible = new ArrayList<>();
    List<Double> ckptDuration = new ArrayList<>();
    for (Checkpoint k : ckpts) {
      if (k.triggeredMillis > 0) {
        ckptDuration.add((k.completedMillis - k.triggeredMillis) / 1000.0);
      }
    }
    long prev = Long.MIN_VALUE;
    boolean firstInRound = false;
    List<Double> firstOfRound = new ArrayList<>();
    List<Double> notFirst = new ArrayList<>();
    for (Capture.Line line : capture.lines()) {
      if (line.checkpoint >= 0) {
        prev = line.millis;
        firstInRound = true;
        continue;
      }
      if (prev == Long.MIN_VALUE) {
        continue; // committed before any captured checkpoint
      }
      double own = (line.millis - prev) / 1000.0;
      prev = line.millis;
      if (firstInRound) {
        firstOfRound.add(own);
        firstInRound = false;
      } else if (line.outcome.equals("COMMITTED")) {
        notFirst.add(own);
      }
      if (!line.outcome.equals("COMMITTED")) {
        continue;
      }
      perTable.computeIfAbsent(line.table, x -> new ArrayList<>()).add(own);
      String kind = line.table.substring(line.table.indexOf('/') + 1);
      perKind.computeIfAbsent(kind, x -> new ArrayList<>()).add(own);
    }
    // checkpoint completion -> last table of each batch
    Map<String, Long> lastOfBatch = new LinkedHashMap<>();
    for (Capture.Line line : capture.lines()) {
      if (line.checkpoint < 0 && line.outcome.equals("COMMITTED")) {
        lastOfBatch.put(line.batch, line.millis);
      }
    }
    for (long t : lastOfBatch.values()) {
      int k = lastAtOrBelow(ckptDone, t);
      if (k >= 0) {
        batchVisible.add((t - ckptDone[k]) / 1000.0);
      }
    }
    level.batches = lastOfBatch.size();
    level.firstOfRound = Pct.of(firstOfRound);
    level.notFirst = Pct.of(notFirst);
    level.checkpoints = ckpts.size();
    level.ckptDuration = Pct.of(ckptDuration);
    level.batchVisible = Pct.of(batchVisible);
    perTable.forEach((t, v) -> level.commitPerTable.put(t, Pct.of(v)));
    perKind.forEach((t, v) -> level.commitPerKind.put(t, Pct.of(v)));
    level.tables = DrainBenchmark.LakeStats.of(lake);
  }

  /** Sorted (txn version, mtime ms) of every commit file of a table. */
  static long[][] commitFiles(Path table) throws Exception {
    Path log = table.resolve("_delta_log");
    if (!Files.isDirectory(log)) {
      return new long[0][];
    }
    List<long[]> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(log)) {
      for (Path p : s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).toList()) {
        Matcher m = TXN.matcher(Files.readString(p));
        if (m.find()) {
          long mtime = Files.getLastModifiedTime(p).to(TimeUnit.MICROSECONDS);
          long added = -1;
          Matcher a = ADD_MTIME.matcher(Files.readString(p));
          while (a.find()) {
            added = Math.max(added, Long.parseLong(a.group(1)));
          }
          out.add(new long[] {Long.parseLong(m.group(1)), mtime, added});
        }
      }
    }
    out.sort((a, b) -> Long.compare(a[0], b[0]));
    return out.toArray(new long[0][]);
  }

  /** The index of the first commit with txn version >= seq, or -1. */
  private static int firstAtOrAbove(long[][] commits, long seq) {
    int lo = 0, hi = commits.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (commits[mid][0] >= seq) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo < commits.length ? lo : -1;
  }

  private static int lastAtOrBelow(long[] sorted, long t) {
    int lo = 0, hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }

  /** Time of the first poll whose stable seq (or frontier) is >= seq; -1 if none. */
  private static long firstPoll(List<Poll> polls, long seq, boolean stable) {
    int lo = 0, hi = polls.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      Poll p = polls.get(mid);
      if ((stable ? p.stable : p.frontier) >= seq) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo < polls.size() ? polls.get(lo).millis : -1;
  }

  // ------------------------------------------------------------------------------ job plumbing

  private void resetOutbox(Connection c, String slot) throws SQLException {
    DrainBenchmark.execute(c, "TRUNCATE oml_outbox");
    DrainBenchmark.execute(
        c, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
  }

  private JobClient submit(String id, Path work) throws Exception {
    LakeWriterConfig cfg = config(id, work.resolve("lake-" + id));
    Configuration conf = LakeWriterJob.flinkConfiguration(cfg, work.resolve("state-" + id));
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    LakeWriterJob.configure(env, cfg);
    LakeWriterJob.build(env, cfg);
    return env.executeAsync("sustained-bench " + id);
  }

  private void cancel(JobClient job) {
    try {
      job.cancel().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // already finished or failed
    }
    // the slot of a cancelled job is dropped so it does not hold WAL for the next levels
    try (Connection c = pg.connect()) {
      for (int i = 0; i < 50; i++) {
        try {
          DrainBenchmark.execute(
              c,
              "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT"
                  + " active");
          if (OutboxLoad.scalar(c, "SELECT count(*) FROM pg_replication_slots") == 0) {
            return;
          }
        } catch (SQLException e) {
          // raced with the walsender going away
        }
        Thread.sleep(200);
      }
    } catch (Exception e) {
      log("could not drop slots: %s", e);
    }
  }

  private LakeWriterConfig config(String id, Path lake) {
    Map<String, String> m = new HashMap<>();
    m.put(LakeWriterOptions.POSTGRES_URL.key(), pg.jdbcUrl());
    m.put(LakeWriterOptions.POSTGRES_USER.key(), EmbeddedPostgresServer.USER);
    m.put(LakeWriterOptions.LAKE_ROOT.key(), lake.toString());
    m.put(LakeWriterOptions.SLOT.key(), id);
    m.put(LakeWriterOptions.PUBLICATION.key(), PUBLICATION);
    m.put(LakeWriterOptions.WRITER_ID.key(), id);
    m.put(LakeWriterOptions.CHECKPOINT_INTERVAL.key(), o.checkpointInterval.toMillis() + "ms");
    m.put(LakeWriterOptions.TICK_PERIOD.key(), o.tickPeriod.toMillis() + "ms");
    if (o.minTickSpacing != null) {
      m.put(LakeWriterOptions.MIN_TICK_SPACING.key(), o.minTickSpacing.toMillis() + "ms");
    }
    m.put(LakeWriterOptions.BATCH_MAX_ROWS.key(), String.valueOf(o.batchMaxRows));
    m.put(LakeWriterOptions.STATE_BACKEND.key(), o.stateBackend);
    m.putAll(o.set);
    Function<String, String> noEnv = k -> null;
    return LakeWriterConfig.of(m, noEnv);
  }

  /** Waits until the committed frontier reaches seq; polls stay with the poller if given. */
  private boolean awaitFrontier(String id, long seq, JobClient job, Duration timeout, Poller p)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Connection c = pg.connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, id);
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getLong(1) >= seq) {
            return true;
          }
        }
        if (job.getJobStatus().get().isGloballyTerminalState()) {
          job.getJobExecutionResult().get();
          throw new IllegalStateException("job ended");
        }
        Thread.sleep(100);
      }
    }
    log("%s: frontier never reached %d", id, seq);
    return false;
  }

  // ------------------------------------------------------------------------------ the generator

  /** Paced inserts of the drain mode's mix, one multi-row autocommit INSERT per transaction. */
  static final class Generator {
    private final Connection c;
    private final int tenantCount;
    private final int txnRows;
    private final DrainMix mix;
    private final PreparedStatement insert;
    long count;
    long lastSeq;
    long behindMaxNanos;
    long[] seqs = new long[1 << 16];
    long[] commitMillis = new long[1 << 16];
    int[] tenants = new int[1 << 16];

    Generator(Connection c, int tenants, int bodyBytes, int txnRows, long seed) throws Exception {
      this.c = c;
      this.tenantCount = tenants;
      this.txnRows = txnRows;
      this.mix = new DrainMix(tenants, bodyBytes, seed, "");
      c.setAutoCommit(true);
      StringBuilder sql =
          new StringBuilder("INSERT INTO oml_outbox (" + DrainMix.COLUMNS + ") VALUES ");
      for (int r = 0; r < txnRows; r++) {
        sql.append(r == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      }
      insert = c.prepareStatement(sql.append(" RETURNING seq, tenant_id").toString());
    }

    /** One journal and one promotion per tenant, in one transaction; returns the max seq. */
    long warmUp() throws Exception {
      long max = 0;
      for (int t = 0; t < tenantCount; t++) {
        try (PreparedStatement one =
            c.prepareStatement(
                "INSERT INTO oml_outbox (" + DrainMix.COLUMNS + ") VALUES"
                    + " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),"
                    + " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq")) {
          ProducerPeak.bind(one, 0, mix.journal(t, "warm-j-" + t));
          ProducerPeak.bind(one, DrainMix.WIDTH, mix.materialize(t, "warm-m-" + t));
          try (ResultSet rs = one.executeQuery()) {
            while (rs.next()) {
              max = Math.max(max, rs.getLong(1));
            }
          }
        }
      }
      return max;
    }

    void run(double rowsPerSecond, long windowNanos) throws Exception {
      double interval = txnRows / rowsPerSecond * 1e9;
      long start = System.nanoTime();
      long end = start + windowNanos;
      for (long tx = 0; ; tx++) {
        long due = start + (long) (tx * interval);
        if (due >= end) {
          break;
        }
        long now = System.nanoTime();
        if (due > now) {
          LockSupport.parkNanos(due - now);
        } else {
          behindMaxNanos = Math.max(behindMaxNanos, now - due);
        }
        for (int r = 0; r < txnRows; r++) {
          ProducerPeak.bind(insert, r * DrainMix.WIDTH, mix.next());
        }
        try (ResultSet rs = insert.executeQuery()) {
          long committed = System.currentTimeMillis();
          while (rs.next()) {
            grow();
            long seq = rs.getLong(1);
            seqs[(int) count] = seq;
            commitMillis[(int) count] = committed;
            tenants[(int) count] = Integer.parseInt(rs.getString(2).substring(7));
            count++;
            lastSeq = Math.max(lastSeq, seq);
          }
        }
      }
    }

    private void grow() {
      if (count == seqs.length) {
        seqs = Arrays.copyOf(seqs, seqs.length * 2);
        commitMillis = Arrays.copyOf(commitMillis, commitMillis.length * 2);
        tenants = Arrays.copyOf(tenants, tenants.length * 2);
      }
    }
  }

  // ------------------------------------------------------------------------------ the poller

  record Poll(
      long millis,
      long slotLagBytes,
      long restartLagBytes,
      long head,
      long stable,
      double tickAgeSeconds,
      double horizonAgeSeconds,
      long frontier) {}

  /** Every 100 ms: slot lag, outbox head, horizon, its age, and the committed frontier. */
  static final class Poller implements AutoCloseable {
    private final Connection c;
    private final PreparedStatement ps;
    private final Thread thread;
    private final List<Poll> polls = new ArrayList<>();
    private volatile boolean running = true;

    Poller(EmbeddedPostgresServer pg, String id) throws Exception {
      c = pg.connect();
      ps =
          c.prepareStatement(
              "WITH h AS (SELECT stable_seq, ticked_at FROM oml_lake_horizon WHERE writer_id = ?)"
                  + " SELECT"
                  + " (SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
                  + "    FROM pg_replication_slots WHERE slot_name = ?),"
                  + " (SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint"
                  + "    FROM pg_replication_slots WHERE slot_name = ?),"
                  + " (SELECT coalesce(max(seq), 0) FROM oml_outbox),"
                  + " coalesce((SELECT stable_seq FROM h), 0),"
                  + " coalesce((SELECT extract(epoch FROM clock_timestamp() - ticked_at) FROM h),"
                  + "   -1)::float8,"
                  + " coalesce((SELECT extract(epoch FROM clock_timestamp() - o.event_time)"
                  + "    FROM oml_outbox o WHERE o.seq > coalesce((SELECT stable_seq FROM h), 0)"
                  + "    ORDER BY o.seq LIMIT 1), 0)::float8,"
                  + " coalesce((SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = ?),"
                  + "   0)");
      ps.setString(1, id);
      ps.setString(2, id);
      ps.setString(3, id);
      ps.setString(4, id);
      thread = new Thread(this::loop, "bench-poller");
      thread.setDaemon(true);
      thread.start();
    }

    private void loop() {
      long next = System.nanoTime();
      while (running) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          long now = System.currentTimeMillis();
          Poll p =
              new Poll(now, rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                  rs.getDouble(5), rs.getDouble(6), rs.getLong(7));
          synchronized (polls) {
            polls.add(p);
          }
        } catch (SQLException e) {
          if (!running) {
            return;
          }
        }
        next += 100_000_000L;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        } else {
          next = System.nanoTime();
        }
      }
    }

    List<Poll> stop() throws Exception {
      running = false;
      thread.join(2000);
      synchronized (polls) {
        return new ArrayList<>(polls);
      }
    }

    @Override
    public void close() throws Exception {
      stop();
      c.close();
    }
  }

  // ------------------------------------------------------------------------------ log capture

  record Checkpoint(long id, long triggeredMillis, long completedMillis) {}

  /** Captures the committer's per-table lines and the coordinator's checkpoint lines. */
  static final class Capture {
    record Line(long millis, long checkpoint, String batch, String table, String outcome) {}

    private final List<Line> lines = new ArrayList<>();
    private final Map<Long, Long> triggered = new HashMap<>();
    private final Map<Long, Long> completed = new TreeMap<>();

    void install() {
      LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
      org.apache.logging.log4j.core.config.Configuration config = ctx.getConfiguration();
      AbstractAppender appender =
          new AbstractAppender("bench-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
              accept(
                  event.getInstant().getEpochMillisecond(),
                  event.getLoggerName(),
                  event.getMessage().getFormattedMessage());
            }
          };
      appender.start();
      config.addAppender(appender);
      for (String name : List.of(COMMITTER_LOGGER, COORDINATOR_LOGGER)) {
        LoggerConfig lc = new LoggerConfig(name, org.apache.logging.log4j.Level.INFO, false);
        lc.addAppender(appender, org.apache.logging.log4j.Level.INFO, null);
        config.addLogger(name, lc);
      }
      ctx.updateLoggers();
    }

    synchronized void accept(long millis, String logger, String message) {
      if (logger.equals(COMMITTER_LOGGER)) {
        Matcher m = COMMIT_LINE.matcher(message);
        if (m.find()) {
          lines.add(new Line(millis, -1, m.group(2), m.group(3), m.group(4)));
        }
      } else {
        Matcher m = COMPLETED.matcher(message);
        if (m.find()) {
          long id = Long.parseLong(m.group(1));
          completed.put(id, millis);
          lines.add(new Line(millis, id, null, null, null));
          return;
        }
        m = TRIGGERED.matcher(message);
        if (m.find()) {
          triggered.put(Long.parseLong(m.group(1)), millis);
        }
      }
    }

    synchronized void clear() {
      lines.clear();
      triggered.clear();
      completed.clear();
    }

    synchronized List<Line> lines() {
      return new ArrayList<>(lines);
    }

    synchronized List<Checkpoint> checkpoints() {
      List<Checkpoint> out = new ArrayList<>();
      completed.forEach(
          (id, t) -> out.add(new Checkpoint(id, triggered.getOrDefault(id, -1L), t)));
      out.sort((a, b) -> Long.compare(a.completedMillis, b.completedMillis));
      return out;
    }
  }

  // ------------------------------------------------------------------------------ results

  /** p50, p99 and max of a sample, NaN when empty. */
  record Pct(double p50, double p99, double max, int n) {
    static Pct of(List<Double> values) {
      double[] v = values.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d))
          .sorted().toArray();
      if (v.length == 0) {
        return new Pct(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      return new Pct(at(v, 0.50), at(v, 0.99), v[v.length - 1], v.length);
    }

    private static double at(double[] v, double q) {
      int k = (int) Math.ceil(q * v.length) - 1;
      return v[Math.max(0, Math.min(v.length - 1, k))];
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("p50", p50);
      m.put("p99", p99);
      m.put("max", max);
      m.put("n", n);
      return m;
    }

    String s(String fmt) {
      return n == 0 ? "-" : String.format(Locale.ROOT, fmt + " / " + fmt, p50, p99);
    }
  }

  /** One offered load. */
  static final class Level {
    final double fraction;
    final double offered;
    boolean done;
    String error;
    long rows;
    long lastSeq;
    double generatorSeconds;
    double generatorBehindMax;
    double tailSeconds;
    long windowEndMillis;
    long invisibleRows;
    int batches;
    int checkpoints;
    double jvmCpu;
    double jitSeconds;
    int threads;
    double pgCpu;
    double walsenderCpu;
    long heapPeak;
    long rssPeak;
    List<Poll> polls = List.of();
    Pct deltaLag = Pct.of(List.of());
    final Map<Integer, Pct> lagByMinute = new TreeMap<>();
    final Map<Integer, Integer> checkpointsByMinute = new TreeMap<>();
    Pct frontierLag = Pct.of(List.of());
    Pct toStable = Pct.of(List.of());
    Pct stableToCkpt = Pct.of(List.of());
    Pct ckptToVisible = Pct.of(List.of());
    Pct stableToWritten = Pct.of(List.of());
    double[] slowestPercent;
    Pct writtenToTrigger = Pct.of(List.of());
    Pct writtenToDone = Pct.of(List.of());
    Pct slotLag = Pct.of(List.of());
    Pct restartLag = Pct.of(List.of());
    Pct horizonRows = Pct.of(List.of());
    Pct horizonAge = Pct.of(List.of());
    Pct tickAge = Pct.of(List.of());
    Pct ckptDuration = Pct.of(List.of());
    Pct batchVisible = Pct.of(List.of());
    Pct firstOfRound = Pct.of(List.of());
    Pct notFirst = Pct.of(List.of());
    final Map<String, Pct> commitPerTable = new TreeMap<>();
    final Map<String, Pct> commitPerKind = new TreeMap<>();
    Map<String, DrainBenchmark.LakeStats.Table> tables = new TreeMap<>();

    Level(double fraction, double offered) {
      this.fraction = fraction;
      this.offered = offered;
    }

    double achieved() {
      return generatorSeconds > 0 ? rows / generatorSeconds : Double.NaN;
    }

    String summary() {
      return String.format(
          Locale.ROOT,
          "%s offered %,.0f rows/s, achieved %,.0f rows/s (%,d rows); Delta lag p50/p99 %s s,"
              + " frontier-poll lag %s s; slot lag %s MiB; batch visible after ckpt %s s;"
              + " tail %.1f s; JVM %.1f CPU-s (JIT %.1f s), %d threads%s",
          done ? "done" : "NOT DONE", offered, achieved(), rows, deltaLag.s("%.2f"),
          frontierLag.s("%.2f"),
          slotLag.n == 0 ? "-" : String.format(Locale.ROOT, "%.1f / %.1f", slotLag.p50 / 1048576,
              slotLag.p99 / 1048576),
          batchVisible.s("%.2f"), tailSeconds, jvmCpu, jitSeconds, threads,
          error == null ? "" : " error: " + error);
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("load_fraction", fraction);
      m.put("offered_rows_per_s", offered);
      m.put("achieved_rows_per_s", achieved());
      m.put("rows", rows);
      m.put("generator_seconds", generatorSeconds);
      m.put("generator_behind_schedule_max_s", generatorBehindMax);
      m.put("done", done);
      m.put("error", error);
      m.put("tail_seconds_to_frontier", tailSeconds);
      m.put("rows_never_visible_in_bronze", invisibleRows);
      m.put("frontier_lag_delta_s", deltaLag.json());
      List<Map<String, Object>> minutes = new ArrayList<>();
      lagByMinute.forEach(
          (minute, lag) -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("minute", minute);
            x.put("frontier_lag_delta_s", lag.json());
            x.put("checkpoints_completed", checkpointsByMinute.get(minute));
            minutes.add(x);
          });
      m.put("by_minute", minutes);
      m.put("frontier_lag_frontier_table_poll_s", frontierLag.json());
      m.put("lag_commit_to_horizon_stable_s", toStable.json());
      m.put("lag_horizon_stable_to_checkpoint_completed_s", stableToCkpt.json());
      m.put("lag_checkpoint_completed_to_visible_s", ckptToVisible.json());
      m.put("lag_horizon_stable_to_bronze_file_written_s", stableToWritten.json());
      if (slowestPercent != null) {
        m.put("slowest_1pct_rows_mean_s", Map.of("total", slowestPercent[0],
            "commit_to_stable", slowestPercent[1], "stable_to_file_written",
            slowestPercent[2], "file_written_to_checkpoint_done", slowestPercent[3],
            "checkpoint_done_to_visible", slowestPercent[4]));
      }
      m.put("lag_bronze_file_written_to_checkpoint_triggered_s", writtenToTrigger.json());
      m.put("lag_bronze_file_written_to_checkpoint_completed_s", writtenToDone.json());
      m.put("slot_lag_confirmed_flush_bytes", slotLag.json());
      m.put("slot_lag_restart_bytes", restartLag.json());
      m.put("horizon_lag_rows", horizonRows.json());
      m.put("horizon_age_oldest_unstable_row_s", horizonAge.json());
      m.put("horizon_last_tick_age_s", tickAge.json());
      m.put("checkpoints", checkpoints);
      m.put("checkpoint_duration_s", ckptDuration.json());
      m.put("batches_committed", batches);
      m.put("checkpoint_completed_to_batch_visible_s", batchVisible.json());
      m.put("checkpoint_completed_to_first_table_committed_s", firstOfRound.json());
      m.put("commit_latency_tables_after_the_first_of_a_round_s", notFirst.json());
      Map<String, Object> kinds = new LinkedHashMap<>();
      commitPerKind.forEach((k, v) -> kinds.put(k, v.json()));
      m.put("commit_latency_per_kind_s", kinds);
      Map<String, Object> t = new LinkedHashMap<>();
      commitPerTable.forEach((k, v) -> t.put(k, v.json()));
      m.put("commit_latency_per_table_s", t);
      m.put("jvm_cpu_s", jvmCpu);
      m.put("jit_compilation_s", jitSeconds);
      m.put("live_threads_at_end", threads);
      m.put("postgres_cpu_s", pgCpu);
      m.put("walsender_cpu_s", walsenderCpu);
      m.put("heap_peak_bytes", heapPeak);
      m.put("rss_peak_bytes", rssPeak);
      Map<String, Object> lake = new LinkedHashMap<>();
      tables.forEach((k, v) -> lake.put(k, Map.of("parquet_files", v.files(), "parquet_bytes",
          v.bytes(), "log_files", v.logFiles())));
      m.put("lake", lake);
      return m;
    }
  }

  private void report(
      Map<String, Object> machine, Map<String, Object> drain, List<Level> levels, Path work)
      throws Exception {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT,
        "### Sustained: window %d s, %d tenants, %d B bodies, %d rows per transaction%n%n",
        o.window.toSeconds(), o.tenants, o.bodyBytes, o.txnRows));
    md.append(String.format(Locale.ROOT,
        "machine: %s cores, %s; Flink %s, Flink CDC %s, Delta Kernel %s, PostgreSQL %s;"
            + " checkpoint %d ms, tick %d ms (min spacing %s), batch.max-rows %d, state %s;"
            + " load avg at start %s%n%n",
        machine.get("nproc"), machine.get("java"), machine.get("flink"), machine.get("flink_cdc"),
        machine.get("delta_kernel"), machine.get("postgresql"), o.checkpointInterval.toMillis(),
        o.tickPeriod.toMillis(),
        o.minTickSpacing == null ? "default" : o.minTickSpacing.toMillis() + " ms",
        o.batchMaxRows, o.stateBackend, machine.get("load_average")));
    md.append(String.format(Locale.ROOT, "drain rate R = %,.0f rows/s (%s)%n%n",
        (Double) drain.get("rows_per_s"), drain.get("source")));
    md.append("| load | offered rows/s | achieved rows/s | frontier lag p50 / p99 s (Delta commit"
        + " file) | frontier lag p50 / p99 s (frontier table, 100 ms poll) | slot lag p50 / p99 /"
        + " max MiB | horizon lag rows p50 / p99 | horizon age p50 / p99 s | commit latency"
        + " bronze p50 / p99 s | commit latency silver p50 / p99 s | ckpt done → batch visible"
        + " p50 / p99 s | ckpt duration p50 / p99 s | tail s | done |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Level l : levels) {
      md.append(String.format(Locale.ROOT,
          "| %.0f%% | %,.0f | %,.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s |%n",
          l.fraction * 100, l.offered, l.achieved(), l.deltaLag.s("%.2f"), l.frontierLag.s("%.2f"),
          l.slotLag.n == 0 ? "-" : String.format(Locale.ROOT, "%.2f / %.2f / %.2f",
              l.slotLag.p50 / 1048576, l.slotLag.p99 / 1048576, l.slotLag.max / 1048576),
          l.horizonRows.s("%.0f"), l.horizonAge.s("%.2f"),
          l.commitPerKind.getOrDefault("bronze/journal_events", Pct.of(List.of())).s("%.3f"),
          l.commitPerKind.getOrDefault("silver/memories", Pct.of(List.of())).s("%.3f"),
          l.batchVisible.s("%.2f"), l.ckptDuration.s("%.2f"), l.tailSeconds,
          l.done ? "yes" : "NO" + (l.error == null ? "" : " (" + l.error + ")")));
    }
    md.append("\nWhere the Delta frontier lag goes (p50 / p99 s per row). Commit → horizon stable"
        + " ≥ seq [100 ms poll]; stable → its bronze Parquet file written (the add's"
        + " modificationTime: source decode + cut + writer); file → trigger of the checkpoint"
        + " that carried it (the last completed before the commit); file → that checkpoint's"
        + " completion; completion → its bronze commit file (notification + commits in path"
        + " order):\n\n");
    md.append("| load | commit → stable | stable → file written | file → ckpt triggered"
        + " | file → ckpt done | ckpt done → visible | checkpoints | batches | JVM CPU-s |"
        + " PG CPU-s | walsender CPU-s |\n|---:|---:|---:|---:|---:|---:|---:|---:"
        + "|---:|---:|---:|\n");
    for (Level l : levels) {
      md.append(String.format(Locale.ROOT, "| %.0f%% | %s | %s | %s | %s | %s | %d | %d | %.1f"
              + " (%.1f) | %.1f | %.1f |%n",
          l.fraction * 100, l.toStable.s("%.2f"), l.stableToWritten.s("%.2f"),
          l.writtenToTrigger.s("%.2f"), l.writtenToDone.s("%.2f"),
          l.ckptToVisible.s("%.2f"), l.checkpoints, l.batches, l.jvmCpu, l.jitSeconds, l.pgCpu,
          l.walsenderCpu));
    }
    md.append("\nFrontier lag p50 / p99 s (Delta commit file) of the rows committed in each"
        + " minute of the level, and the checkpoints completed in it (does it grow with the"
        + " tables' age?):\n\n| load | minute | rows | frontier lag p50 / p99 s |"
        + " checkpoints |\n|---:|---:|---:|---:|---:|\n");
    for (Level l : levels) {
      l.lagByMinute.forEach(
          (minute, lag) ->
              md.append(String.format(Locale.ROOT, "| %.0f%% | %d | %,d | %s | %d |%n",
                  l.fraction * 100, minute + 1, lag.n, lag.s("%.2f"),
                  l.checkpointsByMinute.get(minute))));
    }
    md.append("\nThe slowest 1% of rows (the p99 tail), mean s of each part: total = commit →"
        + " stable + stable → file written + file → ckpt done + ckpt done → visible:\n\n"
        + "| load | total | commit → stable | stable → file | file → ckpt done |"
        + " ckpt done → visible |\n|---:|---:|---:|---:|---:|---:|\n");
    for (Level l : levels) {
      double[] x = l.slowestPercent;
      if (x != null) {
        md.append(String.format(Locale.ROOT, "| %.0f%% | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
            l.fraction * 100, x[0], x[1], x[2], x[3], x[4]));
      }
    }
    md.append("\nCheckpoint completion → first table committed (notification + first commit),"
        + " p50 / p99 s:");
    levels.forEach(l -> md.append(String.format(Locale.ROOT, " %.0f%%: %s;", l.fraction * 100,
        l.firstOfRound.s("%.3f"))));
    md.append("\nOne Delta commit, tables after the first of a round, p50 / p99 s:");
    levels.forEach(l -> md.append(String.format(Locale.ROOT, " %.0f%%: %s;", l.fraction * 100,
        l.notFirst.s("%.3f"))));
    md.append("\n\nCommit latency per table, p50 / p99 s (time since the previous committer"
        + " event of the round; the first table of a round, tenant-0 bronze, includes the"
        + " checkpoint-complete notification):\n\n| table |");
    levels.forEach(l -> md.append(String.format(Locale.ROOT, " %.0f%% |", l.fraction * 100)));
    md.append("\n|---|").append("---:|".repeat(levels.size())).append('\n');
    java.util.SortedSet<String> names = new java.util.TreeSet<>();
    levels.forEach(l -> names.addAll(l.commitPerTable.keySet()));
    for (String t : names) {
      md.append("| ").append(t).append(" |");
      for (Level l : levels) {
        md.append(' ').append(l.commitPerTable.getOrDefault(t, Pct.of(List.of())).s("%.3f"))
            .append(" |");
      }
      md.append('\n');
    }
    Level half = levels.stream().filter(l -> Math.abs(l.fraction - 0.5) < 1e-9).findFirst()
        .orElse(null);
    if (half != null) {
      md.append(String.format(Locale.ROOT,
          "%nTarget: frontier lag p99 <= 2 s at 50%% load with a 1 s checkpoint interval:"
              + " measured p99 %.2f s (Delta commit file), %.2f s (frontier table) at checkpoint"
              + " %d ms: %s%n",
          half.deltaLag.p99, half.frontierLag.p99, o.checkpointInterval.toMillis(),
          half.deltaLag.p99 <= 2.0 ? "MET" : "MISSED"));
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("benchmark", "sustained");
    json.put("machine", machine);
    json.put("settings", o.toMap());
    json.put("drain", drain);
    List<Object> lj = new ArrayList<>();
    levels.forEach(l -> lj.add(l.json()));
    json.put("levels", lj);
    json.put("method", methodNotes());
    json.put("work_dir", work.toString());
    Files.createDirectories(o.out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path jsonFile = o.out.resolve("sustained-" + stamp + ".json");
    Path mdFile = o.out.resolve("sustained-" + stamp + ".md");
    Files.writeString(jsonFile, Report.json(json, 0) + "\n");
    Files.writeString(mdFile, md);
    System.out.println();
    System.out.println(md);
    System.out.println("JSON: " + jsonFile.toAbsolutePath());
    System.out.println("Markdown: " + mdFile.toAbsolutePath());
  }

  private static Map<String, Object> methodNotes() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("commit_time", "client wall clock (System.currentTimeMillis) when the autocommit"
        + " multi-row INSERT ... RETURNING returned, i.e. after COMMIT; every generated row");
    m.put("frontier_lag_delta", "mtime of the first _delta_log/NNN.json of the row's tenant"
        + " bronze/journal_events whose txn(oml-lakewriter, v) has v >= seq, minus the commit time;"
        + " read after the window; resolution: file system timestamp granularity (kernel tick)");
    m.put("frontier_lag_frontier_table", "first 100 ms poll of oml_lake_frontier.frontier_seq >="
        + " seq, minus the commit time; every table of the batch committed");
    m.put("slot_lag", "pg_current_wal_lsn() - confirmed_flush_lsn of the writer's slot, 100 ms"
        + " poll within the window (restart_lsn in the JSON)");
    m.put("horizon_lag", "max(oml_outbox.seq) - oml_lake_horizon.stable_seq, and now() -"
        + " event_time of the first outbox row above stable_seq, 100 ms poll within the window");
    m.put("commit_latency", "log4j appender on DeltaCommitter ('batch (a, b] table T: COMMITTED')"
        + " and CheckpointCoordinator ('Completed checkpoint N'); per table: time since the"
        + " previous of those events (the Delta commit of that table alone, ms resolution)");
    return m;
  }

  private Map<String, Object> machine() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nproc", Runtime.getRuntime().availableProcessors());
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("jvm_max_heap_bytes", Runtime.getRuntime().maxMemory());
    m.put("flink", org.apache.flink.runtime.util.EnvironmentInformation.getVersion());
    m.put("flink_cdc", DrainBenchmark.jarVersion(
        org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder.class,
        "flink-connector-postgres-cdc"));
    m.put("delta_kernel", DrainBenchmark.jarVersion(io.delta.kernel.Table.class,
        "delta-kernel-api"));
    try (Connection c = pg.connect();
        var st = c.createStatement();
        var rs = st.executeQuery("SHOW server_version")) {
      rs.next();
      m.put("postgresql", rs.getString(1));
    }
    m.put("load_average", Files.readString(Path.of("/proc/loadavg")).trim());
    m.put("started_at", Instant.now().toString());
    return m;
  }

  static void log(String format, Object... args) {
    DrainBenchmark.log(format, args);
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

  /** Command-line options. */
  static final class Options {
    double drainRate = 0;
    long drainEvents = 50_000;
    List<Double> loads = List.of(0.25, 0.50, 0.75, 0.90);
    Duration window = Duration.ofSeconds(60);
    Duration tail = Duration.ofMinutes(2);
    Duration jvmWarmup = Duration.ofSeconds(20);
    int tenants = 8;
    int bodyBytes = 1024;
    int txnRows = 10;
    Duration checkpointInterval = Duration.ofSeconds(1);
    Duration tickPeriod = Duration.ofSeconds(1);
    /** {@code horizon.min-tick-spacing}; null: the option's default. 0 s: early ticks off. */
    Duration minTickSpacing;
    int batchMaxRows = 10_000;
    String stateBackend = "rocksdb";
    Path out = Path.of("tests", "target", "bench");
    Path work;
    /** Further job options, {@code --set key=value}, e.g. {@code maintenance.compact.enabled=false}. */
    Map<String, String> set = new java.util.LinkedHashMap<>();

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        if (a.equals("--help") || a.equals("-h")) {
          System.out.println(
              "SustainedBenchmark [--drain-rate R (rows/s; else measured)]"
                  + " [--drain-events 50000] [--loads 0.25,0.5,0.75,0.9] [--window 60s]"
                  + " [--tail 2m] [--jvm-warmup 20s (unreported level at 50%, 0s: none)] [--tenants 8] [--body-bytes 1024] [--txn-rows 10]"
                  + " [--checkpoint-interval 1s] [--tick-period 1s] [--min-tick-spacing 100ms (0s: early ticks off)] [--batch-max-rows 10000]"
                  + " [--state-backend rocksdb] [--set job.option=value ...] [--out tests/target/bench] [--work DIR]");
          System.exit(0);
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = args[++i];
        switch (a) {
          case "--drain-rate" -> o.drainRate = Double.parseDouble(v);
          case "--drain-events" -> o.drainEvents = Long.parseLong(v.replace("_", ""));
          case "--loads" -> o.loads = Arrays.stream(v.split(",")).map(Double::parseDouble).toList();
          case "--window" -> o.window = DrainBenchmark.Options.duration(v);
          case "--tail" -> o.tail = DrainBenchmark.Options.duration(v);
          case "--jvm-warmup" -> o.jvmWarmup = DrainBenchmark.Options.duration(v);
          case "--tenants" -> o.tenants = Integer.parseInt(v);
          case "--body-bytes" -> o.bodyBytes = Integer.parseInt(v);
          case "--txn-rows" -> o.txnRows = Integer.parseInt(v);
          case "--checkpoint-interval" -> o.checkpointInterval = DrainBenchmark.Options.duration(v);
          case "--tick-period" -> o.tickPeriod = DrainBenchmark.Options.duration(v);
          case "--min-tick-spacing" -> o.minTickSpacing = DrainBenchmark.Options.duration(v);
          case "--batch-max-rows" -> o.batchMaxRows = Integer.parseInt(v);
          case "--state-backend" -> o.stateBackend = v;
          case "--out" -> o.out = Path.of(v);
          case "--set" -> {
            int eq = v.indexOf('=');
            if (eq <= 0) {
              throw new IllegalArgumentException("--set wants key=value, got " + v);
            }
            o.set.put(v.substring(0, eq), v.substring(eq + 1));
          }
          case "--work" -> o.work = Path.of(v);
          default -> throw new IllegalArgumentException("unknown option " + a + " (try --help)");
        }
      }
      return o;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("drain_rate_option", drainRate);
      m.put("drain_events", drainEvents);
      m.put("loads", loads);
      m.put("window_s", window.toSeconds());
      m.put("tail_timeout_s", tail.toSeconds());
      m.put("jvm_warmup_s", jvmWarmup.toSeconds());
      m.put("tenants", tenants);
      m.put("body_bytes", bodyBytes);
      m.put("rows_per_transaction", txnRows);
      m.put("mix", "~70% journal, ~20% materialize (sha256 of the body = ciphertext digest), ~10%"
          + " retract of an earlier promotion of the same tenant; same as the drain mode");
      m.put("checkpoint_interval_ms", checkpointInterval.toMillis());
      m.put("tick_period_ms", tickPeriod.toMillis());
      m.put(
          "min_tick_spacing_ms",
          (minTickSpacing == null ? LakeWriterOptions.MIN_TICK_SPACING.defaultValue() : minTickSpacing)
              .toMillis());
      m.put("batch_max_rows", batchMaxRows);
      m.put("state_backend", stateBackend);
      m.put("parallelism", 1);
      m.put("per_level", "fresh slot, writer id and lake; outbox truncated before the slot is"
          + " created; warm-up of one journal + one promotion per tenant waited for");
      return m;
    }
  }
}
