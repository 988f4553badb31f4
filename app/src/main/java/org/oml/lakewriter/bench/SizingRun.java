package org.oml.lakewriter.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.oml.lakewriter.app.SlotCreation;
import org.oml.lakewriter.contract.OutboxContract;

/**
 * What {@code lakewriter bench} runs: drain mode (B1, B2, B5 by default) and the producer's peak
 * rate on a PostgreSQL that may be the user's own, measured in one run so that the ratios compare
 * like with like.
 *
 * <p>It never touches the user's objects. Everything it needs is its own and named {@code
 * oml_bench_<8 hex>}: a scratch schema holding a fresh outbox contract (outbox, horizon, frontier,
 * lease, dead letters, the tick functions), a publication over that schema's two tables, and one
 * logical replication slot per mode ({@code oml_bench_<hex>_b1_r1}, ...). A schema or slot of that
 * name that already exists is refused, not reused. At the end, whether the run succeeded or not,
 * it drops the slots (waiting for the cancelled jobs' walsenders to go), the publication and the
 * schema with {@code CASCADE}, and reports what it created and removed.
 */
public final class SizingRun {
  /** Clients and rows per transaction of the producer's peak rate, as in {@code DrainBenchmark}. */
  public static final int PRODUCER_CLIENTS = 8;
  public static final int PRODUCER_TXN_ROWS = 10;
  private static final Duration SLOT_DROP_WAIT = Duration.ofSeconds(60);
  /** How long the teardown's drops wait for another session's locks on the scratch schema. */
  private static final Duration LOCK_WAIT = Duration.ofSeconds(60);
  private static final String LOCK_NOT_AVAILABLE = "55P03";
  /** How long a slot's creation may wait for the transactions running in the cluster. */
  private static final Duration SLOT_CREATE_WAIT = Duration.ofSeconds(60);

  /** A failure of the run that names the object or option and what to do; no stack trace needed. */
  public static final class Failure extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Failure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The run's shape. */
  public record Options(
      long events, int tenants, int bodyBytes, long warmupEvents, List<String> modes,
      Duration producerDuration, DrainModes.Settings settings) {}

  private final ProducerPeak.Connector connector;
  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final Options o;
  private final PrintStream progress;
  private final String name;
  private final Set<String> created = new LinkedHashSet<>();
  private final Set<String> removed = new LinkedHashSet<>();

  public SizingRun(
      ProducerPeak.Connector connector, String jdbcUrl, String user, String password, Options o,
      PrintStream progress) {
    this.connector = connector;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.o = o;
    this.progress = progress;
    this.name =
        "oml_bench_" + HexFormat.of().formatHex(new byte[] {
          (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt(),
          (byte) ThreadLocalRandom.current().nextInt(), (byte) ThreadLocalRandom.current().nextInt()
        });
  }

  /** The schema, publication and slot prefix of this run. */
  public String name() {
    return name;
  }

  /**
   * Runs the modes and the producer, then removes the run's objects.
   *
   * @return the JSON document of {@code lakewriter bench --json}
   */
  public Map<String, Object> run(Path work) throws Exception {
    long started = System.nanoTime();
    DrainModes.Target target = new DrainModes.Target(jdbcUrl, user, password, name, name);
    Map<String, Object> modes = new LinkedHashMap<>();
    Map<String, Object> producer = new LinkedHashMap<>();
    Map<String, Object> load = new LinkedHashMap<>();
    try {
      setUp();
      if (o.warmupEvents() > 0) {
        String slot = DrainModes.slot(name + "_", "B5", 0);
        createSlot(slot);
        long rows;
        long maxSeq;
        try (Connection c = connector.connect()) {
          OutboxLoad.load(c, name, o.warmupEvents(), o.tenants(), o.bodyBytes(), 5_000, 7L);
          rows = OutboxLoad.scalar(c, "SELECT count(*) FROM " + name + ".oml_outbox");
          maxSeq = OutboxLoad.scalar(c, "SELECT max(seq) FROM " + name + ".oml_outbox");
        }
        progress.printf(Locale.ROOT, "bench: warm-up (not reported): B5 over %,d events%n", rows);
        DrainModes.run("B5", slot, target, o.settings(), work, rows, maxSeq, () -> {});
        dropSlot(slot);
        try (Connection c = connector.connect();
            Statement st = c.createStatement()) {
          st.execute("TRUNCATE " + name + ".oml_outbox");
        }
      }
      for (String mode : o.modes()) {
        createSlot(DrainModes.slot(name + "_", mode, 1));
      }
      long rows;
      long maxSeq;
      try (Connection c = connector.connect()) {
        OutboxLoad.Result r =
            OutboxLoad.load(c, name, o.events(), o.tenants(), o.bodyBytes(), 5_000, 20240611L);
        rows = OutboxLoad.scalar(c, "SELECT count(*) FROM " + name + ".oml_outbox");
        maxSeq = OutboxLoad.scalar(c, "SELECT max(seq) FROM " + name + ".oml_outbox");
        load.put("rows", rows);
        load.put("journal", r.journal());
        load.put("materialize", r.materialize());
        load.put("retract", r.retract());
        load.put("copy_rows_per_s", rows / r.seconds());
      }
      progress.printf(Locale.ROOT, "bench: loaded %,d events over %d tenants%n", rows, o.tenants());
      for (String mode : o.modes()) {
        String slot = DrainModes.slot(name + "_", mode, 1);
        long t0 = System.nanoTime();
        DrainModes.Drained d =
            DrainModes.run(mode, slot, target, o.settings(), work, rows, maxSeq, () -> {});
        if (!d.done()) {
          throw new Failure(
              "bench: " + mode + " did not drain " + rows + " rows within "
                  + o.settings().timeout() + "; raise --timeout or lower --events", null);
        }
        double seconds = (d.endNanos() - t0) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("description", DrainModes.DESCRIPTION.get(mode));
        m.put("rows", rows);
        m.put("seconds", seconds);
        m.put("rows_per_s", rows / seconds);
        modes.put(mode, m);
        progress.printf(Locale.ROOT, "bench: %s %,.0f rows/s (%.1f s)%n", mode, rows / seconds,
            seconds);
        dropSlot(slot); // a drained slot no longer holds WAL back
      }
      if (!o.producerDuration().isZero()) {
        progress.printf(Locale.ROOT,
            "bench: producer peak, %d clients inserting %d rows per transaction for %s%n",
            PRODUCER_CLIENTS, PRODUCER_TXN_ROWS, o.producerDuration());
        ProducerPeak.Result p =
            ProducerPeak.run(connector, name, PRODUCER_CLIENTS, PRODUCER_TXN_ROWS, o.tenants(),
                o.bodyBytes(), o.producerDuration());
        producer.put("clients", p.clients());
        producer.put("txn_rows", p.txnRows());
        producer.put("rows", p.rows());
        producer.put("seconds", p.seconds());
        producer.put("rows_per_s", p.rowsPerSecond());
        progress.printf(Locale.ROOT, "bench: producer peak %,.0f rows/s%n", p.rowsPerSecond());
      }
    } catch (Exception e) {
      try {
        tearDown();
      } catch (Exception t) {
        e.addSuppressed(t);
      }
      throw e;
    }
    tearDown();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("events", o.events());
    doc.put("tenants", o.tenants());
    doc.put("body_bytes", o.bodyBytes());
    doc.put("checkpoint_interval_ms", o.settings().checkpointInterval().toMillis());
    doc.put("tick_period_ms", o.settings().tickPeriod().toMillis());
    doc.put("batch_max_rows", o.settings().batchMaxRows());
    doc.put("state_backend", o.settings().stateBackend());
    doc.put("load", load);
    doc.put("modes", modes);
    doc.put("producer_peak", producer);
    doc.put("ratios", ratios(modes, producer));
    doc.put("created", new ArrayList<>(created));
    doc.put("removed", new ArrayList<>(removed));
    doc.put("elapsed_s", (System.nanoTime() - started) / 1e9);
    return doc;
  }

  private static Map<String, Object> ratios(
      Map<String, Object> modes, Map<String, Object> producer) {
    Map<String, Object> r = new LinkedHashMap<>();
    Double b5 = rate(modes.get("B5"));
    Double b2 = rate(modes.get("B2"));
    Double b1 = rate(modes.get("B1"));
    Double peak = rate(producer);
    if (b5 != null && b2 != null) {
      r.put("B5/B2", b5 / b2);
    }
    if (b5 != null && b1 != null) {
      r.put("B5/B1", b5 / b1);
    }
    if (b5 != null && peak != null) {
      r.put("B5/producer_peak", b5 / peak);
    }
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Double rate(Object m) {
    return m instanceof Map<?, ?> map && map.get("rows_per_s") instanceof Double d ? d : null;
  }

  private void setUp() {
    try (Connection c = connector.connect()) {
      if (exists(c, "SELECT 1 FROM pg_namespace WHERE nspname = ?", name)
          || exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", name)) {
        throw new Failure(
            "bench: schema or publication " + name + " already exists; it is not this run's,"
                + " so it is left alone: run the bench again (another name is drawn)", null);
      }
      OutboxContract.apply(c, name, name);
    } catch (SQLException e) {
      throw new Failure(
          "bench: could not create the scratch schema and publication " + name + " as "
              + user + ": " + e.getMessage() + "; the user needs CREATE on the database",
          e);
    }
    created.add("schema " + name);
    created.add("publication " + name);
    progress.printf("bench: created schema %s (a scratch outbox contract) and publication %s%n",
        name, name);
  }

  private void createSlot(String slot) {
    try (Connection c = connector.connect()) {
      createSlotWithin(c, slot, SLOT_CREATE_WAIT);
    } catch (SQLException e) {
      throw new Failure(
          "bench: could not create replication slot " + slot + " as " + user + ": "
              + e.getMessage()
              + (SlotCreation.QUERY_CANCELED.equals(e.getSQLState())
                  ? ""
                  : "; the user needs the REPLICATION attribute, and the server wal_level=logical"
                      + " and a free max_replication_slots (the CDC source needs one more while"
                      + " it snapshots)"),
          e);
    }
    created.add("replication slot " + slot);
    progress.printf("bench: created replication slot %s%n", slot);
  }

  /**
   * Creates logical slot {@code slot}, waiting at most {@code wait}: PostgreSQL creates a logical
   * slot only once every transaction running in the cluster (any database) has ended, so a
   * transaction left open elsewhere would hold the bench for ever. When the wait runs out, the
   * error names the transactions that still run.
   */
  static void createSlotWithin(Connection c, String slot, Duration wait) throws SQLException {
    try {
      SlotCreation.create(c, slot, wait);
    } catch (SQLException e) {
      if (!SlotCreation.QUERY_CANCELED.equals(e.getSQLState())) {
        throw e;
      }
      throw new SQLException(
          "creating a logical slot waits for every transaction running in the cluster to end,"
              + " and after " + wait + " these still run: "
              + String.join("; ", SlotCreation.blockers(c)) + "; end them or run the bench when"
              + " they are done",
          e.getSQLState(), e);
    }
  }

  /** Drops a slot of this run, waiting for the walsender of a cancelled job to go. */
  private void dropSlot(String slot) throws Exception {
    long deadline = System.nanoTime() + SLOT_DROP_WAIT.toNanos();
    try (Connection c = connector.connect();
        PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      ps.setString(1, slot);
      while (true) {
        try {
          ps.executeQuery().close();
          break;
        } catch (SQLException e) {
          if (System.nanoTime() > deadline) {
            throw new Failure(
                "bench: could not drop replication slot " + slot + " within " + SLOT_DROP_WAIT
                    + ": " + e.getMessage() + "; drop it with SELECT pg_drop_replication_slot('"
                    + slot + "')", e);
          }
          Thread.sleep(200); // the walsender of the cancelled job is still going away
        }
      }
    }
    removed.add("replication slot " + slot);
    progress.printf("bench: dropped replication slot %s%n", slot);
  }

  /**
   * Drops every slot whose name starts with this run's name (the modes' and any the CDC source
   * left), then the publication and the schema; nothing if this run did not create its schema
   * (a name that existed before is never dropped). Failures are reported, and the first is thrown
   * once everything was tried.
   */
  private void tearDown() throws Exception {
    if (!created.contains("schema " + name)) {
      return; // the set-up did not get as far as creating anything, or the name was not ours
    }
    Exception first = null;
    List<String> slots = new ArrayList<>();
    try (Connection c = connector.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT slot_name FROM pg_replication_slots WHERE starts_with(slot_name, ?)")) {
      ps.setString(1, name + "_");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          slots.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      first = e;
    }
    for (String slot : slots) {
      try {
        dropSlot(slot);
      } catch (Exception e) {
        progress.println(e.getMessage());
        first = first == null ? e : first;
      }
    }
    for (String sql :
        List.of("DROP PUBLICATION IF EXISTS " + name, "DROP SCHEMA IF EXISTS " + name + " CASCADE")) {
      try (Connection c = connector.connect()) {
        dropWithin(c, sql, name, LOCK_WAIT);
        String what = sql.contains("PUBLICATION") ? "publication " + name : "schema " + name;
        removed.add(what);
        progress.printf("bench: dropped %s%n", what);
      } catch (SQLException e) {
        progress.printf("bench: could not run %s: %s%n", sql, e.getMessage());
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * Runs {@code drop} with its lock waits bounded by {@code wait}: a session that holds a lock on
   * the schema's tables (a transaction left open, a stuck client) makes it fail with the holders
   * named, instead of queueing behind them for ever.
   */
  static void dropWithin(Connection c, String drop, String schema, Duration wait)
      throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET lock_timeout = " + wait.toMillis());
      st.execute(drop);
    } catch (SQLException e) {
      if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      throw new SQLException(
          e.getMessage() + " (waited " + wait + "); " + lockHolders(c, schema), e.getSQLState(),
          e);
    }
  }

  /** The other sessions that hold locks on the tables of {@code schema}, one clause each. */
  private static String lockHolders(Connection c, String schema) throws SQLException {
    List<String> holders = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT a.pid, a.application_name, a.state, a.xact_start, left(a.query, 200),"
                + " string_agg(DISTINCT r.relname || ' ' || l.mode, ', ')"
                + " FROM pg_locks l JOIN pg_class r ON r.oid = l.relation"
                + " JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = ?"
                + " JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.granted AND l.pid <> pg_backend_pid()"
                + " GROUP BY 1, 2, 3, 4, 5 ORDER BY 1")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          holders.add(
              "pid " + rs.getInt(1) + " (application '" + rs.getString(2) + "', " + rs.getString(3)
                  + ", transaction since " + rs.getTimestamp(4) + ", last query: " + rs.getString(5)
                  + ") holds " + rs.getString(6));
        }
      }
    }
    return holders.isEmpty()
        ? "no session holds a lock on the tables of " + schema + " any more: run the drop again"
        : "held by " + String.join("; ", holders) + "; end those sessions"
            + " (SELECT pg_terminate_backend(pid)) and run the drop again";
  }

  private static boolean exists(Connection c, String sql, String arg) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
