package org.oml.lakewriter.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletionService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.oml.lakewriter.event.EventKind;
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
 */
public final class DemoTraffic {
  /** The authority's key store for the demo: wrapped data keys by data-key id. */
  public static final String DATA_KEY_TABLE = "oml_demo_data_keys";

  private static final List<String> NAMED_TENANTS =
      List.of("acme", "globex", "initech", "umbrella", "hooli", "soylent");
  private static final int MAX_TX_ROWS = 10;
  private static final String INSERT_OUTBOX =
      "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
          + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
          + " plaintext_digest, ciphertext_digest, body, data_key_id, envelope)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq";
  private static final String INSERT_KEY =
      "INSERT INTO " + DATA_KEY_TABLE + " (data_key_id, artifact_id, wrapped) VALUES (?, ?, ?)";

  private static final ObjectMapper JSON = new ObjectMapper();

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
  private final List<String> tenantIds;
  private final double[] tenantWeights;

  public DemoTraffic(ConnectionSource connections, BodyEncryption encryption, Options options) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.encryption = Objects.requireNonNull(encryption, "encryption");
    this.options = Objects.requireNonNull(options, "options");
    this.tenantIds = tenantIds(options.tenants());
    // A mild skew, as in real life: the first tenants are the busiest.
    this.tenantWeights = new double[tenantIds.size()];
    double sum = 0;
    for (int i = 0; i < tenantWeights.length; i++) {
      sum += 1 / Math.sqrt(i + 1);
      tenantWeights[i] = sum;
    }
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
    List<String> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(
          i < NAMED_TENANTS.size() ? NAMED_TENANTS.get(i) : String.format("tenant-%02d", i + 1));
    }
    return List.copyOf(ids);
  }

  /** Creates the demo's data-key table if it is missing. */
  public static void createDataKeyTable(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + DATA_KEY_TABLE
              + " (data_key_id text PRIMARY KEY, artifact_id text NOT NULL, wrapped bytea NOT"
              + " NULL)");
    }
  }

  public Options options() {
    return options;
  }

  /** Writes the traffic and returns once every one of {@link Options#events()} rows committed. */
  public Summary run() throws SQLException, InterruptedException {
    long started = System.nanoTime();
    try (Connection c = connections.open()) {
      c.setAutoCommit(true);
      // Serialized: concurrent CREATE TABLE IF NOT EXISTS can fail on the catalog's unique index.
      try (Statement st = c.createStatement()) {
        st.execute("SELECT pg_advisory_lock(hashtext('" + DATA_KEY_TABLE + "'))");
        try {
          createDataKeyTable(c);
        } finally {
          st.execute("SELECT pg_advisory_unlock(hashtext('" + DATA_KEY_TABLE + "'))");
        }
      }
    }
    long salt = artifactIdSalt();
    Signer signer = Signer.create();
    boolean withLongOpen = !options.longOpenDelay().isZero();
    int longOpenRows = withLongOpen ? Math.min(2, options.events()) : 0;
    int workerRows = options.events() - longOpenRows;

    ExecutorService pool = Executors.newFixedThreadPool(options.threads() + 1, daemonThreads());
    CompletionService<Tally> done = new ExecutorCompletionService<>(pool);
    List<Future<Tally>> futures = new ArrayList<>();
    AtomicBoolean longOpen = new AtomicBoolean(false);
    try {
      if (withLongOpen) {
        CountDownLatch inserted = new CountDownLatch(1);
        Future<Tally> f =
            done.submit(() -> longOpenTransaction(longOpenRows, salt, signer, longOpen, inserted));
        futures.add(f);
        inserted.await();
        if (!longOpen.get()) {
          await(f); // it failed before its rows were in (throws), or has already committed
        }
      }
      for (int w = 0; w < options.threads(); w++) {
        int quota = workerRows / options.threads() + (w < workerRows % options.threads() ? 1 : 0);
        if (quota > 0) {
          int index = w;
          futures.add(done.submit(() -> new Worker(index, salt, signer, longOpen).run(quota)));
        }
      }
      // In completion order, so that the first failure ends the run at once.
      Tally total = new Tally();
      for (int i = 0; i < futures.size(); i++) {
        total.add(await(done.take()));
      }
      return total.toSummary(Duration.ofNanos(System.nanoTime() - started));
    } finally {
      for (Future<Tally> f : futures) {
        f.cancel(true);
      }
      pool.shutdownNow();
    }
  }

  /** 0 on a fresh outbox; otherwise derived from how far the sequence has gone. */
  private long artifactIdSalt() throws SQLException {
    try (Connection c = connections.open();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM oml_outbox_seq")) {
      rs.next();
      long used = rs.getLong(1);
      return used == 0 ? 0 : new Random(used).nextLong() | 1;
    }
  }

  private static Tally await(Future<Tally> f) throws SQLException, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException s) {
        throw s;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException("demo traffic failed", cause);
    }
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "demo-traffic-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * A journal write, and (when there is room for two rows) its promotion, inserted first and
   * committed only after the delay.
   */
  private Tally longOpenTransaction(
      int rows, long salt, Signer signer, AtomicBoolean open, CountDownLatch inserted)
      throws Exception {
    Tally tally = new Tally();
    try (Connection c = connections.open();
        Inserter ins = new Inserter(c)) {
      c.setAutoCommit(false);
      Generator gen =
          new Generator(-1, new Random(options.seed() * 0x9E3779B97F4A7C15L - 1), salt, signer);
      TenantState ts = new TenantState(tenantIds.get(0));
      Undo undo = new Undo();
      Row write = gen.journalWrite(ts, undo, null);
      long first = ins.insert(write);
      tally.noteRow(write, first);
      if (rows > 1) {
        Row promotion = gen.materialize(ts, undo, ts.promotable.size() - 1);
        tally.noteRow(promotion, ins.insert(promotion));
      }
      open.set(true);
      inserted.countDown();
      try {
        Thread.sleep(options.longOpenDelay().toMillis());
        c.commit();
      } finally {
        open.set(false);
      }
      tally.committedTransactions++;
      tally.longOpenSeq = first;
      return tally;
    } finally {
      inserted.countDown(); // also when it failed before its rows were in
    }
  }

  /** One thread of traffic: its own connection, random stream and artifacts. */
  private final class Worker {
    private final int index;
    private final Random random;
    private final Generator gen;
    private final AtomicBoolean longOpen;
    private final Map<String, TenantState> tenants = new HashMap<>();

    Worker(int index, long salt, Signer signer, AtomicBoolean longOpen) {
      this.index = index;
      this.random = new Random(options.seed() * 0x9E3779B97F4A7C15L + index);
      this.gen = new Generator(index, random, salt, signer);
      this.longOpen = longOpen;
    }

    Tally run(int quota) throws SQLException, GeneralSecurityException {
      Tally tally = new Tally();
      try (Connection c = connections.open();
          Inserter ins = new Inserter(c)) {
        c.setAutoCommit(false);
        int remaining = quota;
        for (int txNo = 0; remaining > 0; txNo++) {
          if (Thread.currentThread().isInterrupted()) {
            throw new SQLException("demo traffic interrupted");
          }
          boolean rollback =
              options.rollbackRate() > 0
                  && ((index == 0 && txNo == 0) || random.nextDouble() < options.rollbackRate());
          int size = Math.min(1 + random.nextInt(MAX_TX_ROWS), remaining);
          TenantState ts = tenants.computeIfAbsent(pickTenant(), TenantState::new);
          Undo undo = new Undo();
          List<Row> rows = new ArrayList<>(size);
          List<Long> seqs = new ArrayList<>(size);
          try {
            for (int i = 0; i < size; i++) {
              Row row = gen.next(ts, undo);
              rows.add(row);
              seqs.add(ins.insert(row));
            }
            if (rollback) {
              c.rollback();
            } else {
              c.commit();
            }
          } catch (SQLException | GeneralSecurityException | RuntimeException e) {
            c.rollback();
            throw e;
          }
          if (rollback) {
            undo.run();
            tally.rolledBackRows += size;
            tally.rolledBackTransactions++;
            continue;
          }
          boolean whileLongOpen = longOpen.get();
          for (int i = 0; i < size; i++) {
            tally.noteRow(rows.get(i), seqs.get(i));
          }
          tally.committedTransactions++;
          if (whileLongOpen) {
            tally.committedWhileLongOpen += size;
          }
          remaining -= size;
        }
      }
      return tally;
    }

    private String pickTenant() {
      double x = random.nextDouble() * tenantWeights[tenantWeights.length - 1];
      for (int i = 0; i < tenantWeights.length; i++) {
        if (x < tenantWeights[i]) {
          return tenantIds.get(i);
        }
      }
      return tenantIds.get(tenantIds.size() - 1);
    }
  }

  /** Builds rows from a random stream and keeps the tenant's state in step with them. */
  private final class Generator {
    private final int worker;
    private final Random random;
    private final long salt;
    private final Signer signer;
    private final Signature signature;
    private long artifactCounter;

    Generator(int worker, Random random, long salt, Signer signer) {
      this.worker = worker;
      this.random = random;
      this.salt = salt;
      this.signer = signer;
      this.signature = signer.newSignature();
    }

    Row next(TenantState ts, Undo undo) throws GeneralSecurityException {
      double r = random.nextDouble();
      if (r < 0.10 && !ts.live.isEmpty()) {
        return retract(ts, undo);
      }
      if (r < 0.30 && !ts.promotable.isEmpty()) {
        return materialize(ts, undo, random.nextInt(ts.promotable.size()));
      }
      if (r < 0.30 && !ts.live.isEmpty()) {
        return retract(ts, undo);
      }
      return journal(ts, undo);
    }

    private Row journal(TenantState ts, Undo undo) {
      double j = random.nextDouble();
      if (ts.artifacts.isEmpty() || j < 0.35) {
        return journalWrite(ts, undo, null);
      }
      Artifact a = ts.artifacts.get(random.nextInt(ts.artifacts.size()));
      if (j < 0.65) {
        return journalWrite(ts, undo, a);
      }
      // A read or a comment: attributed to someone, about the latest version, no new content.
      String op = j < 0.9 ? "read" : "comment";
      Identity actor = Identity.human(pick(HUMANS), ts.tenant);
      return journalRow(ts.tenant, op, a, a.latestVersion, actor, a.provenance, a.latestDigest);
    }

    /** A write of a new artifact ({@code existing == null}) or of a new version of one. */
    Row journalWrite(TenantState ts, Undo undo, Artifact existing) {
      Artifact a = existing;
      if (a == null) {
        String provenance = pickProvenance();
        UUID id = new UUID(random.nextLong() ^ salt, random.nextLong());
        a =
            new Artifact(
                "mem-" + id,
                newWorkarea(null),
                "/" + pick(AREAS) + "/" + pick(TOPICS) + "-" + (++artifactCounter) + ".md",
                provenance);
        Artifact added = a;
        ts.artifacts.add(added);
        undo.push(() -> ts.artifacts.remove(ts.artifacts.size() - 1));
      }
      Identity writer = writerFor(a.provenance, ts.tenant);
      long textSeed = random.nextLong();
      long version = a.latestVersion + 1;
      String text = memoryText(ts.tenant, a, version, writer, textSeed);
      String digest = EventValidator.sha256Hex(text.getBytes(StandardCharsets.UTF_8));
      Artifact target = a;
      long oldVersion = a.latestVersion;
      String oldDigest = a.latestDigest;
      a.latestVersion = version;
      a.latestDigest = digest;
      undo.push(
          () -> {
            target.latestVersion = oldVersion;
            target.latestDigest = oldDigest;
          });
      Written w = new Written(a, version, writer, textSeed, digest);
      ts.promotable.add(w);
      undo.push(() -> ts.promotable.remove(ts.promotable.size() - 1));
      return journalRow(ts.tenant, "write", a, version, writer, a.provenance, digest);
    }

    private Row journalRow(
        String tenant,
        String op,
        Artifact a,
        long version,
        Identity actor,
        String provenance,
        String plaintextDigest) {
      ObjectNode payload = JSON.createObjectNode();
      payload.put("tenant", tenant);
      payload.put("op", op);
      payload.put("artifact_id", a.id);
      payload.put("version", version);
      payload.put("actor", actor.identity);
      payload.put("plaintext_digest", "sha256:" + plaintextDigest);
      String payloadDigest =
          "sha256:" + EventValidator.sha256Hex(payload.toString().getBytes(StandardCharsets.UTF_8));
      ObjectNode envelope = JSON.createObjectNode();
      envelope.put("alg", "ed25519");
      envelope.put("kid", signer.keyId);
      envelope.put("op", op);
      envelope.put("payload_digest", payloadDigest);
      envelope.put("sig", signer.sign(signature, payloadDigest));
      return new Row(
          tenant,
          EventKind.JOURNAL,
          a.id,
          version,
          a.workarea,
          a.path,
          actor.identity,
          actor.principal,
          null,
          provenance,
          plaintextDigest,
          null,
          null,
          null,
          envelope.toString(),
          null);
    }

    /** Promotes the written version at {@code index} of the tenant's promotable list. */
    Row materialize(TenantState ts, Undo undo, int index) throws GeneralSecurityException {
      Written w = ts.promotable.remove(index);
      undo.push(() -> ts.promotable.add(index, w));
      ts.live.add(w);
      undo.push(() -> ts.live.remove(ts.live.size() - 1));
      Identity ratifier;
      do {
        ratifier = Identity.human(pick(HUMANS), ts.tenant);
      } while (ratifier.identity.equals(w.writer.identity)
          || ratifier.principal.equals(w.writer.principal));
      byte[] plaintext =
          memoryText(ts.tenant, w.artifact, w.version, w.writer, w.textSeed)
              .getBytes(StandardCharsets.UTF_8);
      BodyEncryption.EncryptedBody sealed = encryption.encrypt(w.artifact.id, plaintext);
      if (!sealed.plaintextDigest().equals(w.plaintextDigest)) {
        throw new IllegalStateException("memory text of " + w.artifact.id + " is not stable");
      }
      return new Row(
          ts.tenant,
          EventKind.MATERIALIZE,
          w.artifact.id,
          w.version,
          w.artifact.workarea,
          w.artifact.path,
          w.writer.identity,
          w.writer.principal,
          ratifier.identity,
          w.artifact.provenance,
          sealed.plaintextDigest(),
          sealed.ciphertextDigest(),
          sealed.ciphertext(),
          sealed.dataKeyId(),
          null,
          sealed.wrappedDataKey());
    }

    private Row retract(TenantState ts, Undo undo) {
      int index = random.nextInt(ts.live.size());
      double k = random.nextDouble();
      EventKind kind =
          k < 0.35
              ? EventKind.DEMOTE
              : k < 0.55
                  ? EventKind.ERASE
                  : k < 0.85 ? EventKind.REASSIGN : EventKind.SIMULATION_END;
      if (kind == EventKind.SIMULATION_END) {
        // A simulation's end retracts what the simulation wrote.
        List<Integer> simulated = new ArrayList<>();
        for (int i = 0; i < ts.live.size(); i++) {
          if ("simulation".equals(ts.live.get(i).artifact.provenance)) {
            simulated.add(i);
          }
        }
        if (simulated.isEmpty()) {
          kind = EventKind.DEMOTE;
        } else {
          index = simulated.get(random.nextInt(simulated.size()));
        }
      }
      Written w = ts.live.get(index);
      Artifact a = w.artifact;
      Identity actor =
          kind == EventKind.SIMULATION_END
              ? Identity.agent("sim-runner", w.writer.principalName, ts.tenant)
              : Identity.human(pick(HUMANS), ts.tenant);
      if (kind == EventKind.REASSIGN) {
        String old = a.workarea;
        a.workarea = newWorkarea(old);
        undo.push(() -> a.workarea = old);
      } else {
        int at = index;
        ts.live.remove(at);
        undo.push(() -> ts.live.add(at, w));
      }
      return new Row(
          ts.tenant,
          kind,
          a.id,
          w.version,
          a.workarea,
          a.path,
          actor.identity,
          actor.principal,
          null,
          a.provenance,
          null,
          null,
          null,
          null,
          null,
          null);
    }

    private String newWorkarea(String old) {
      String wa;
      do {
        wa = String.format("wa-%02d-%06x", Math.max(worker, 0), random.nextInt(1 << 24));
      } while (wa.equals(old));
      return wa;
    }

    private String pickProvenance() {
      double p = random.nextDouble();
      return p < 0.45 ? "human" : p < 0.80 ? "agent" : p < 0.90 ? "import" : "simulation";
    }

    private Identity writerFor(String provenance, String tenant) {
      String human = pick(HUMANS);
      switch (provenance) {
        case "human":
          return Identity.human(human, tenant);
        case "agent":
          return Identity.agent(pick(AGENTS), human, tenant);
        case "import":
          return Identity.service("importer", human, tenant);
        default:
          return Identity.agent("sim-runner", human, tenant);
      }
    }

    private <T> T pick(List<T> from) {
      return from.get(random.nextInt(from.size()));
    }
  }

  /** About 1 KiB of markdown, the same for the same inputs. */
  static String memoryText(
      String tenant, Artifact a, long version, Identity writer, long textSeed) {
    Random r = new Random(textSeed);
    String topic = TOPICS.get(r.nextInt(TOPICS.size()));
    StringBuilder sb = new StringBuilder(1200);
    sb.append("# ")
        .append(Character.toUpperCase(topic.charAt(0)))
        .append(topic.substring(1).replace('-', ' '))
        .append(" (")
        .append(tenant)
        .append(")\n\n");
    sb.append("Artifact ")
        .append(a.id)
        .append(", version ")
        .append(version)
        .append(", written by ")
        .append(writer.identity)
        .append(" for ")
        .append(writer.principal)
        .append(" at ")
        .append(a.path)
        .append(".\n\n");
    int target = 900 + r.nextInt(250);
    while (sb.length() < target) {
      sb.append(SUBJECTS.get(r.nextInt(SUBJECTS.size())))
          .append(' ')
          .append(VERBS.get(r.nextInt(VERBS.size())))
          .append(' ')
          .append(OBJECTS.get(r.nextInt(OBJECTS.size())))
          .append(' ')
          .append(QUALIFIERS.get(r.nextInt(QUALIFIERS.size())))
          .append(". ");
      if (r.nextInt(4) == 0) {
        sb.append("\n\n");
      }
    }
    return sb.append('\n').toString();
  }

  private static final List<String> HUMANS =
      List.of("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi");
  private static final List<String> AGENTS = List.of("scribe", "summarizer", "researcher");
  private static final List<String> AREAS =
      List.of("notes", "meetings", "decisions", "research", "runbooks", "customers");
  private static final List<String> TOPICS =
      List.of(
          "quarterly-planning",
          "billing-export",
          "incident-review",
          "vendor-evaluation",
          "onboarding-checklist",
          "pricing-experiment",
          "data-retention",
          "roadmap-sync",
          "support-escalation",
          "latency-budget");
  private static final List<String> SUBJECTS =
      List.of(
          "The team",
          "Finance",
          "The on-call engineer",
          "Legal",
          "The customer",
          "Our largest account",
          "The platform group",
          "Product");
  private static final List<String> VERBS =
      List.of(
          "agreed to revisit",
          "asked for a written summary of",
          "raised concerns about",
          "signed off on",
          "wants a second opinion on",
          "will own the follow-up on",
          "measured again",
          "postponed");
  private static final List<String> OBJECTS =
      List.of(
          "the retention window for audit logs",
          "the migration of nightly exports",
          "the p99 latency of the ingestion path",
          "the renewal terms",
          "the access review for contractors",
          "the rollout plan for the new schema",
          "the cost of the staging cluster",
          "the escalation runbook");
  private static final List<String> QUALIFIERS =
      List.of(
          "before the end of the quarter",
          "once the numbers from last week are in",
          "pending a decision from the steering group",
          "with a rollback plan attached",
          "after the next release",
          "as discussed in the last sync",
          "if the budget allows",
          "without further delay");

  /** Who acted: the identity that wrote or did it, and the principal it acted for. */
  record Identity(String identity, String principal, String principalName) {
    static Identity human(String name, String tenant) {
      return new Identity("user:" + name, name + "@" + tenant + ".example", name);
    }

    static Identity agent(String agent, String forHuman, String tenant) {
      return new Identity("agent:" + agent, forHuman + "@" + tenant + ".example", forHuman);
    }

    static Identity service(String service, String forHuman, String tenant) {
      return new Identity("svc:" + service, forHuman + "@" + tenant + ".example", forHuman);
    }
  }

  /** An artifact of one tenant, owned by one worker. */
  static final class Artifact {
    final String id;
    final String path;
    final String provenance;
    String workarea;
    long latestVersion;
    String latestDigest;

    Artifact(String id, String workarea, String path, String provenance) {
      this.id = id;
      this.workarea = workarea;
      this.path = path;
      this.provenance = provenance;
    }
  }

  /** A written version: promotable until promoted, then live until retracted (not reassign). */
  private record Written(
      Artifact artifact, long version, Identity writer, long textSeed, String plaintextDigest) {}

  /** One worker's view of one tenant. Lists keep insertion order, so runs are reproducible. */
  private static final class TenantState {
    final String tenant;
    final List<Artifact> artifacts = new ArrayList<>();
    final List<Written> promotable = new ArrayList<>();
    final List<Written> live = new ArrayList<>();

    TenantState(String tenant) {
      this.tenant = tenant;
    }
  }

  /** Undoes a rolled-back transaction's changes to the tenant state, newest first. */
  private static final class Undo {
    private final Deque<Runnable> steps = new ArrayDeque<>();

    void push(Runnable step) {
      steps.push(step);
    }

    void run() {
      while (!steps.isEmpty()) {
        steps.pop().run();
      }
    }
  }

  /** One outbox row to insert; {@code wrappedKey} goes to the key store, not the outbox. */
  private record Row(
      String tenant,
      EventKind kind,
      String artifactId,
      Long version,
      String workarea,
      String path,
      String writer,
      String principal,
      String ratifiedBy,
      String provenance,
      String plaintextDigest,
      String ciphertextDigest,
      byte[] body,
      String dataKeyId,
      String envelope,
      byte[] wrappedKey) {}

  /** Inserts rows on one connection, with statements prepared once (server-side after a few). */
  private static final class Inserter implements AutoCloseable {
    private final PreparedStatement outbox;
    private final PreparedStatement keys;

    Inserter(Connection connection) throws SQLException {
      this.outbox = connection.prepareStatement(INSERT_OUTBOX);
      this.keys = connection.prepareStatement(INSERT_KEY);
    }

    /** Inserts the row (and its wrapped key, in the same transaction) and returns its seq. */
    long insert(Row row) throws SQLException {
      if (row.wrappedKey() != null) {
        keys.setString(1, row.dataKeyId());
        keys.setString(2, row.artifactId());
        keys.setBytes(3, row.wrappedKey());
        keys.executeUpdate();
      }
      PreparedStatement ps = outbox;
      ps.setString(1, row.tenant());
      ps.setString(2, row.kind().wireName());
      ps.setString(3, row.artifactId());
      if (row.version() == null) {
        ps.setNull(4, Types.BIGINT);
      } else {
        ps.setLong(4, row.version());
      }
      ps.setString(5, row.workarea());
      ps.setString(6, row.path());
      ps.setString(7, row.writer());
      ps.setString(8, row.principal());
      ps.setString(9, row.ratifiedBy());
      ps.setString(10, row.provenance());
      ps.setString(11, row.plaintextDigest());
      ps.setString(12, row.ciphertextDigest());
      if (row.body() == null) {
        ps.setNull(13, Types.BINARY);
      } else {
        ps.setBytes(13, row.body());
      }
      ps.setString(14, row.dataKeyId());
      ps.setString(15, row.envelope());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }

    @Override
    public void close() throws SQLException {
      try {
        outbox.close();
      } finally {
        keys.close();
      }
    }
  }

  /** Per-thread counts, merged into the summary at the end. */
  private static final class Tally {
    final Map<String, Map<String, Long>> counts = new TreeMap<>();
    long committedRows;
    long committedTransactions;
    long rolledBackRows;
    long rolledBackTransactions;
    long maxSeq;
    long longOpenSeq;
    long committedWhileLongOpen;

    void noteRow(Row row, long seq) {
      counts
          .computeIfAbsent(row.tenant(), t -> new TreeMap<>())
          .merge(row.kind().wireName(), 1L, Long::sum);
      committedRows++;
      maxSeq = Math.max(maxSeq, seq);
    }

    void add(Tally o) {
      o.counts.forEach(
          (tenant, kinds) ->
              kinds.forEach(
                  (kind, n) ->
                      counts
                          .computeIfAbsent(tenant, t -> new TreeMap<>())
                          .merge(kind, n, Long::sum)));
      committedRows += o.committedRows;
      committedTransactions += o.committedTransactions;
      rolledBackRows += o.rolledBackRows;
      rolledBackTransactions += o.rolledBackTransactions;
      maxSeq = Math.max(maxSeq, o.maxSeq);
      longOpenSeq = Math.max(longOpenSeq, o.longOpenSeq);
      committedWhileLongOpen += o.committedWhileLongOpen;
    }

    Summary toSummary(Duration elapsed) {
      return new Summary(
          counts,
          committedRows,
          committedTransactions,
          rolledBackRows,
          rolledBackTransactions,
          maxSeq,
          longOpenSeq,
          committedWhileLongOpen,
          elapsed);
    }
  }

  /**
   * Signs journal envelopes with one Ed25519 key per run (JDK provider). The envelope carries the
   * payload's digest and the signature over it, never the payload.
   */
  private static final class Signer {
    final PrivateKey key;
    final String keyId;

    private Signer(KeyPair pair) {
      this.key = pair.getPrivate();
      this.keyId =
          "demo-ed25519-"
              + EventValidator.sha256Hex(pair.getPublic().getEncoded()).substring(0, 12);
    }

    static Signer create() {
      try {
        return new Signer(KeyPairGenerator.getInstance("Ed25519").generateKeyPair());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Ed25519 is part of every JDK 15+", e);
      }
    }

    Signature newSignature() {
      try {
        Signature s = Signature.getInstance("Ed25519");
        s.initSign(key);
        return s;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("Ed25519 is part of every JDK 15+", e);
      }
    }

    String sign(Signature s, String payloadDigest) {
      try {
        s.update(payloadDigest.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.sign());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("signing failed", e);
      }
    }
  }
}
