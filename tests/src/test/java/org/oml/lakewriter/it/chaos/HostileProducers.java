package org.oml.lakewriter.it.chaos;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Concurrent producers that write what the authority's write path writes, plus what goes wrong
 * there: promotions with their data key registered in the same transaction, journal events,
 * retractions of every kind, producer retries that repeat a promotion of an existing key (also
 * after it was demoted or erased), rolled-back transactions, and hostile rows (unknown kind, a
 * tenant id that is not a path, a body that does not match its digest, a NULL event time, an
 * unratified body). The seqs of committed hostile rows are recorded: exactly those may be dead
 * letters.
 */
final class HostileProducers implements AutoCloseable {
  static final List<String> TENANTS = List.of("acme", "globex", "initech", "umbrella", "hooli");
  private static final List<String> RETRACTIONS =
      List.of("demote", "erase", "simulation_end", "reassign");

  private final TestDatabase db;
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  private final Set<Long> hostileSeqs = ConcurrentHashMap.newKeySet();
  private final AtomicLong committedRows = new AtomicLong();
  private final AtomicLong rePromotions = new AtomicLong();
  private final List<Throwable> failures = new ArrayList<>();

  private final int maxRowsPerTransaction;
  private final int maxPauseMillis;
  private final long rowLimit;

  HostileProducers(TestDatabase db, int count, long seed) {
    this(db, count, seed, 4, 50, Long.MAX_VALUE);
  }

  /**
   * @param maxRowsPerTransaction each transaction writes 1 to this many rows
   * @param maxPauseMillis the pause after each transaction is up to this long (at least 10 ms)
   * @param rowLimit the producers stop by themselves once they have committed this many rows
   */
  HostileProducers(
      TestDatabase db,
      int count,
      long seed,
      int maxRowsPerTransaction,
      int maxPauseMillis,
      long rowLimit) {
    this.db = db;
    this.rowLimit = rowLimit;
    this.maxRowsPerTransaction = maxRowsPerTransaction;
    this.maxPauseMillis = Math.max(10, maxPauseMillis);
    for (int t = 0; t < count; t++) {
      Random random = new Random(seed + t);
      int id = t;
      threads.add(new Thread(() -> produce(id, random), "producer-" + t));
    }
  }

  void start() {
    threads.forEach(Thread::start);
  }

  /** Stops the producers and returns once every transaction has ended. */
  void stop() throws InterruptedException {
    writing.set(false);
    for (Thread t : threads) {
      t.join(30_000);
    }
    synchronized (failures) {
      if (!failures.isEmpty()) {
        throw new AssertionError("a producer failed", failures.get(0));
      }
    }
  }

  Set<Long> hostileSeqs() {
    return Set.copyOf(hostileSeqs);
  }

  long committedRows() {
    return committedRows.get();
  }

  long rePromotions() {
    return rePromotions.get();
  }

  /**
   * Writes until stopped. A lost connection (PostgreSQL restarting) is opened again; the hostile
   * seqs of a transaction whose commit failed are recorded too, since it may have committed
   * before the connection broke (a seq that never committed is in no table, and harms no check).
   */
  private void produce(int id, Random random) {
    List<String[]> promoted = new ArrayList<>(); // {tenant, artifact}
    int i = 0;
    while (writing.get()) {
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        for (; writing.get(); i++) {
          List<Long> hostile = new ArrayList<>();
          int rows = 1 + random.nextInt(maxRowsPerTransaction);
          int rePromoted = 0;
          try {
            for (int r = 0; r < rows; r++) {
              String tenant = TENANTS.get(random.nextInt(TENANTS.size()));
              int dice = random.nextInt(100);
              if (dice < 45) {
                OutboxWriter.journal(c, tenant, "j-" + id + "-" + i + "-" + r);
              } else if (dice < 70) {
                String artifact = "a-" + id + "-" + i + "-" + r;
                promote(c, tenant, artifact);
                promoted.add(new String[] {tenant, artifact});
              } else if (dice < 80 && !promoted.isEmpty()) {
                String[] key = promoted.get(random.nextInt(promoted.size()));
                promote(c, key[0], key[1]); // a producer retry: the same promotion again
                rePromoted++;
              } else if (dice < 94 && !promoted.isEmpty()) {
                String[] key = promoted.get(random.nextInt(promoted.size()));
                String kind = RETRACTIONS.get(random.nextInt(RETRACTIONS.size()));
                OutboxWriter.retract(c, key[0], kind, key[1], 1);
              } else {
                hostile.add(hostileRow(c, tenant, random.nextInt(5), id + "-" + i));
              }
            }
            if (random.nextInt(100) < 4) {
              c.rollback(); // a gap the horizon steps over
              String rolledBack = "a-" + id + "-" + i + "-";
              promoted.removeIf(k -> k[1].startsWith(rolledBack));
            } else {
              c.commit();
              if (committedRows.addAndGet(rows) >= rowLimit) {
                writing.set(false);
              }
              rePromotions.addAndGet(rePromoted);
            }
          } finally {
            hostileSeqs.addAll(hostile);
          }
          Thread.sleep(10 + random.nextInt(maxPauseMillis - 9));
        }
      } catch (SQLException e) {
        String state = String.valueOf(e.getSQLState());
        if (!state.startsWith("08") && !state.startsWith("57P")) {
          synchronized (failures) {
            failures.add(e); // not a lost connection: a producer bug
          }
          return;
        }
        i++; // the transaction's names are never reused
        sleepQuietly(200);
      } catch (Exception e) {
        synchronized (failures) {
          failures.add(e);
        }
        return;
      }
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A promotion whose data key is registered in the same transaction, as the authority does. */
  private static void promote(Connection c, String tenant, String artifact) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO oml_data_key VALUES (?) ON CONFLICT DO NOTHING")) {
      ps.setString(1, "dek-" + artifact);
      ps.executeUpdate();
    }
    OutboxWriter.materialize(c, tenant, artifact, 1, body(artifact));
  }

  static byte[] body(String artifact) {
    return ("ciphertext-of-" + artifact).getBytes(StandardCharsets.UTF_8);
  }

  private static long hostileRow(Connection c, String tenant, int which, String tag)
      throws SQLException {
    String sql =
        switch (which) {
          case 0 -> "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version)"
              + " VALUES ('" + tenant + "', 'frobnicate', 'x-" + tag + "', 1) RETURNING seq";
          case 1 -> "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
              + " writer_identity, plaintext_digest) VALUES ('Bad Tenant/../" + tag
              + "', 'journal', 'x', 1, 'mallory', 'abc') RETURNING seq";
          case 2 -> "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
              + " workarea_id, writer_identity, principal, ratified_by, plaintext_digest,"
              + " ciphertext_digest, body, data_key_id) VALUES ('" + tenant + "', 'materialize',"
              + " 'bad-digest-" + tag + "', 1, 'wa-1', 'alice', 'alice@x', 'bob', 'p',"
              + " '" + EventValidator.sha256Hex("other".getBytes(StandardCharsets.UTF_8))
              + "', 'tampered'::bytea, NULL) RETURNING seq";
          case 3 -> "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
              + " writer_identity, principal, plaintext_digest, envelope, event_time) VALUES ('"
              + tenant + "', 'journal', 'null-time-" + tag + "', 1, 'alice', 'alice@x', 'p',"
              + " '{}', NULL) RETURNING seq";
          default -> "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
              + " workarea_id, writer_identity, principal, ratified_by, plaintext_digest,"
              + " ciphertext_digest, body, data_key_id) VALUES ('" + tenant + "', 'materialize',"
              + " 'unratified-" + tag + "', 1, 'wa-1', 'alice', 'alice@x', 'alice', 'p', '"
              + EventValidator.sha256Hex("b".getBytes(StandardCharsets.UTF_8))
              + "', 'b'::bytea, NULL) RETURNING seq";
        };
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void close() throws InterruptedException {
    writing.set(false);
    for (Thread t : threads) {
      t.join(30_000);
    }
  }
}
