package org.oml.lakewriter.demo;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Realistic outbox traffic, written the way the authority's write path writes it: into a PostgreSQL
 * database that has the outbox contract applied.
 *
 * <p>The mix, per committed row: about 70% {@code journal} (a digest-only signed envelope, never a
 * body), about 20% {@code materialize} (a promotion of an artifact version that an earlier journal
 * row wrote: the body is Tink ciphertext of a ~1 KiB memory text, ratified by an identity other
 * than its writer), and about 10% retractions ({@code demote}, {@code erase}, {@code
 * simulation_end}, {@code reassign} with a new workarea) of versions materialized earlier. Early
 * on, when nothing is promotable yet, a row falls back to a kind that is possible, so short runs
 * lean towards journal rows.
 *
 * <p>Each promotion's wrapped data key goes into {@value #DATA_KEY_TABLE}, the authority's key
 * store, in the same transaction as its outbox row. The lake only sees the data-key id.
 *
 * <p>Transactions hold 1-10 rows of one tenant. Some roll back after inserting (their seqs become
 * gaps). One long-open transaction, unless disabled, inserts a journal row and its promotion before
 * any other traffic (so it holds the lowest seqs), and commits only after {@link
 * Options#longOpenDelay()} while the other threads keep committing: the case the horizon protocol
 * exists for. {@code seq}, {@code tx_id} and {@code event_time} are left to the database.
 *
 * <p>A retraction only targets a version whose promotion has committed or was inserted earlier in
 * the same transaction, and a promotion only a version whose journal write has: both therefore
 * always have a higher seq than what they refer to. Every artifact belongs to one worker thread,
 * which keeps this true with several threads.
 *
 * <p>Determinism: the content of each worker's stream (tenants, kinds, ids, texts, digests of
 * plaintexts, transaction sizes, which transactions roll back) depends only on the seed, the
 * options, the worker's index and whether the outbox sequence has been used before: on a fresh
 * outbox the same seed gives the same traffic; on a used one the artifact ids are salted with the
 * sequence's position, so that a second run never promotes an {@code (artifact_id, version)} that a
 * first run already promoted. Seqs interleave by timing when there is more than one thread, and key
 * material, ciphertexts and signatures are fresh on every run.
 *
 * <p>This class only wires the parts together: {@link TrafficThreads} runs the {@link
 * LongOpenTransaction} and the {@link TrafficWorker}s; a worker draws rows from a {@link
 * RowGenerator}, which asks a {@link TenantLedger} what may be promoted or retracted, signs journal
 * envelopes with the {@link JournalSigner} and writes {@link MemoryText}; {@link OutboxInserter}
 * holds the SQL, and {@link TrafficTally} the counts.
 */
public final class DemoTraffic {
  /** The authority's key store for the demo: wrapped data keys by data-key id. */
  public static final String DATA_KEY_TABLE = "oml_demo_data_keys";

  /** Opens a new connection; each thread of the demo uses its own. */
  @FunctionalInterface
  public interface ConnectionSource {
    Connection open() throws SQLException;
  }

  /**
   * What to generate.
   *
   * @param events committed outbox rows to write in total (rolled-back rows do not count)
   * @param tenants number of tenants: acme, globex, initech, umbrella, hooli, soylent, then
   *     tenant-07, tenant-08, ...
   * @param seed the seed of every random choice
   * @param threads worker threads, each with its own connection
   * @param longOpenDelay how long the long-open transaction stays open; zero disables it
   * @param rollbackRate the share of transactions that roll back, in [0, 0.5]; when it is above
   *     zero, the first transaction of worker 0 always rolls back, so a run has at least one gap
   */
  public record Options(
      int events,
      int tenants,
      long seed,
      int threads,
      Duration longOpenDelay,
      double rollbackRate) {
    public Options {
      if (events < 1) {
        throw new IllegalArgumentException("events must be at least 1: " + events);
      }
      if (tenants < 1 || tenants > 999) {
        throw new IllegalArgumentException("tenants must be in [1, 999]: " + tenants);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1: " + threads);
      }
      Objects.requireNonNull(longOpenDelay, "longOpenDelay");
      if (longOpenDelay.isNegative()) {
        throw new IllegalArgumentException("longOpenDelay must not be negative: " + longOpenDelay);
      }
      if (!(rollbackRate >= 0 && rollbackRate <= 0.5)) {
        throw new IllegalArgumentException("rollbackRate must be in [0, 0.5]: " + rollbackRate);
      }
    }

    /** 1,000 events, 4 tenants, seed 1, 2 threads, a 3 s long-open transaction, 5% rollbacks. */
    public static Options defaults() {
      return new Options(1000, 4, 1L, 2, Duration.ofSeconds(3), 0.05);
    }

    public Options withEvents(int v) {
      return new Options(v, tenants, seed, threads, longOpenDelay, rollbackRate);
    }

    public Options withTenants(int v) {
      return new Options(events, v, seed, threads, longOpenDelay, rollbackRate);
    }

    public Options withSeed(long v) {
      return new Options(events, tenants, v, threads, longOpenDelay, rollbackRate);
    }

    public Options withThreads(int v) {
      return new Options(events, tenants, seed, v, longOpenDelay, rollbackRate);
    }

    public Options withLongOpenDelay(Duration v) {
      return new Options(events, tenants, seed, threads, v, rollbackRate);
    }

    public Options withRollbackRate(double v) {
      return new Options(events, tenants, seed, threads, longOpenDelay, v);
    }
  }

  /**
   * What a run committed.
   *
   * @param committedByTenantAndKind committed rows per tenant, then per kind wire name (sorted)
   * @param committedRows committed rows in total: {@link Options#events()}
   * @param committedTransactions committed transactions, the long-open one included
   * @param rolledBackRows rows inserted by transactions that rolled back (seq gaps)
   * @param rolledBackTransactions transactions that rolled back
   * @param maxSeq the highest committed seq
   * @param longOpenSeq the lowest seq of the long-open transaction, or 0 when there was none
   * @param committedWhileLongOpen rows other threads committed while the long-open transaction was
   *     still open
   * @param elapsed wall time of the run
   */
  public record Summary(
      Map<String, Map<String, Long>> committedByTenantAndKind,
      long committedRows,
      long committedTransactions,
      long rolledBackRows,
      long rolledBackTransactions,
      long maxSeq,
      long longOpenSeq,
      long committedWhileLongOpen,
      Duration elapsed) {

    public Summary {
      Map<String, Map<String, Long>> copy = new TreeMap<>();
      committedByTenantAndKind.forEach(
          (tenant, kinds) -> copy.put(tenant, Collections.unmodifiableMap(new TreeMap<>(kinds))));
      committedByTenantAndKind = Collections.unmodifiableMap(copy);
    }

    /** Committed rows of one tenant and kind (wire name). */
    public long committed(String tenant, String kind) {
      return committedByTenantAndKind.getOrDefault(tenant, Map.of()).getOrDefault(kind, 0L);
    }

    /** Committed rows per kind, over all tenants. */
    public Map<String, Long> committedByKind() {
      Map<String, Long> byKind = new TreeMap<>();
      committedByTenantAndKind
          .values()
          .forEach(k -> k.forEach((kind, n) -> byKind.merge(kind, n, Long::sum)));
      return Collections.unmodifiableMap(byKind);
    }

    /** A few lines for a terminal. */
    public String describe() {
      StringBuilder sb = new StringBuilder();
      sb.append(
          String.format(
              "committed %d rows in %d transactions in %.1f s; rolled back %d rows in %d"
                  + " transactions; max seq %d%n",
              committedRows,
              committedTransactions,
              elapsed.toMillis() / 1000.0,
              rolledBackRows,
              rolledBackTransactions,
              maxSeq));
      if (longOpenSeq > 0) {
        sb.append(
            String.format(
                "long-open transaction held seq %d; %d rows committed meanwhile%n",
                longOpenSeq, committedWhileLongOpen));
      }
      committedByTenantAndKind.forEach(
          (tenant, kinds) -> sb.append(String.format("  %-12s %s%n", tenant, kinds)));
      return sb.toString();
    }
  }

  private final ConnectionSource connections;
  private final BodyEncryption encryption;
  private final Options options;
  private final TenantMix tenants;

  public DemoTraffic(ConnectionSource connections, BodyEncryption encryption, Options options) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.encryption = Objects.requireNonNull(encryption, "encryption");
    this.options = Objects.requireNonNull(options, "options");
    this.tenants = new TenantMix(options.tenants());
  }

  /** Traffic into the database at a JDBC URL. */
  public static DemoTraffic forJdbc(
      String jdbcUrl, String user, String password, BodyEncryption encryption, Options options) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    return new DemoTraffic(
        () -> DriverManager.getConnection(jdbcUrl, user, password), encryption, options);
  }

  /** The first {@code count} tenant ids; each matches {@link EventValidator#TENANT_ID}. */
  public static List<String> tenantIds(int count) {
    return TenantMix.tenantIds(count);
  }

  /** Creates the demo's data-key table if it is missing. */
  public static void createDataKeyTable(Connection connection) throws SQLException {
    OutboxInserter.createDataKeyTable(connection);
  }

  public Options options() {
    return options;
  }

  /** Writes the traffic and returns once every one of {@link Options#events()} rows committed. */
  public Summary run() throws SQLException, InterruptedException {
    long started = System.nanoTime();
    try (Connection c = connections.open()) {
      c.setAutoCommit(true);
      OutboxInserter.createDataKeyTableSerialized(c);
    }
    TrafficRun run = TrafficRun.begin(connections, encryption, options, tenants);
    int longOpenRows = LongOpenTransaction.rowsFor(options);
    // One spare thread for the long-open transaction, whether or not it runs.
    try (TrafficThreads threads = new TrafficThreads(options.threads() + 1)) {
      BooleanSupplier longOpen = () -> false;
      if (longOpenRows > 0) {
        LongOpenTransaction tx = new LongOpenTransaction(run);
        threads.startLongOpen(tx);
        longOpen = tx::isOpen;
      }
      startWorkers(threads, run, options.events() - longOpenRows, longOpen);
      return threads.awaitAll().toSummary(Duration.ofNanos(System.nanoTime() - started));
    }
  }

  /** Shares {@code rows} among the workers as evenly as possible; a worker with none never runs. */
  private void startWorkers(
      TrafficThreads threads, TrafficRun run, int rows, BooleanSupplier longOpen) {
    for (int w = 0; w < options.threads(); w++) {
      int quota = rows / options.threads() + (w < rows % options.threads() ? 1 : 0);
      if (quota > 0) {
        int index = w;
        threads.start(() -> new TrafficWorker(run, index, longOpen).run(quota));
      }
    }
  }
}
