package org.oml.lakewriter.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The producer's peak rate: {@code clients} connections insert the {@link DrainMix} into the
 * outbox as fast as they can, each in autocommit transactions of {@code txnRows} rows (one
 * multi-row {@code INSERT}), for a fixed time. The rate is the rows committed by all clients over
 * the wall time between the common start and the last client's end: the fastest this PostgreSQL
 * commits outbox rows of this mix, the yardstick of "B5 / producer peak".
 */
public final class ProducerPeak {
  /** What a client connection is opened with. */
  @FunctionalInterface
  public interface Connector {
    Connection connect() throws SQLException;
  }

  public record Result(int clients, int txnRows, long rows, double seconds) {
    public double rowsPerSecond() {
      return rows / seconds;
    }
  }

  /** How long past the run's end a client may take to finish its last insert. */
  private static final Duration STRAGGLER_WAIT = Duration.ofSeconds(60);

  private ProducerPeak() {}

  public static Result run(
      Connector connector, String schema, int clients, int txnRows, int tenants, int bodyBytes,
      Duration duration)
      throws Exception {
    List<Connection> connections = new ArrayList<>();
    List<PreparedStatement> inserts = new ArrayList<>();
    StringBuilder sql =
        new StringBuilder("INSERT INTO " + schema + ".oml_outbox (" + DrainMix.COLUMNS + ") VALUES ");
    for (int r = 0; r < txnRows; r++) {
      sql.append(r == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }
    try {
      for (int k = 0; k < clients; k++) {
        Connection c = connector.connect();
        connections.add(c);
        c.setAutoCommit(true);
        inserts.add(c.prepareStatement(sql.toString()));
      }
      AtomicLong rows = new AtomicLong();
      AtomicReference<Exception> failure = new AtomicReference<>();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      long[] end = new long[1];
      for (int k = 0; k < clients; k++) {
        PreparedStatement insert = inserts.get(k);
        DrainMix mix = new DrainMix(tenants, bodyBytes, 1000L + k, "p" + k + "-");
        Thread t =
            new Thread(
                () -> {
                  try {
                    start.await();
                    long deadline = end[0];
                    while (System.nanoTime() < deadline && failure.get() == null) {
                      for (int r = 0; r < txnRows; r++) {
                        bind(insert, r * DrainMix.WIDTH, mix.next());
                      }
                      insert.executeUpdate();
                      rows.addAndGet(txnRows);
                    }
                  } catch (Exception e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "producer-" + k);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      long t0 = System.nanoTime();
      end[0] = t0 + duration.toNanos();
      start.countDown();
      long joinDeadline = end[0] + STRAGGLER_WAIT.toNanos();
      for (Thread t : threads) {
        t.join(Math.max(1, (joinDeadline - System.nanoTime()) / 1_000_000));
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long stuck = threads.stream().filter(Thread::isAlive).count();
      if (stuck > 0) {
        for (PreparedStatement insert : inserts) {
          insert.cancel();
        }
        throw new IllegalStateException(
            "producer peak: " + stuck + " of " + clients + " clients were still inside an insert"
                + " into " + schema + ".oml_outbox " + STRAGGLER_WAIT + " after the end of the run"
                + " (a lock held elsewhere?); their statements were cancelled");
      }
      if (failure.get() != null) {
        throw new IllegalStateException(
            "producer peak: a client's insert into " + schema + ".oml_outbox failed: "
                + failure.get().getMessage(),
            failure.get());
      }
      return new Result(clients, txnRows, rows.get(), seconds);
    } finally {
      for (Connection c : connections) {
        c.close();
      }
    }
  }

  /** Binds one {@link DrainMix} row at parameter offset {@code off}. */
  public static void bind(PreparedStatement ps, int off, Object[] v) throws SQLException {
    for (int k = 0; k < v.length; k++) {
      int idx = off + k + 1;
      Object x = v[k];
      if (k == DrainMix.VERSION) {
        ps.setLong(idx, (Long) x);
      } else if (k == DrainMix.BODY) {
        if (x == null) {
          ps.setNull(idx, Types.BINARY);
        } else {
          ps.setBytes(idx, (byte[]) x);
        }
      } else if (x == null) {
        ps.setNull(idx, Types.VARCHAR);
      } else {
        ps.setString(idx, (String) x);
      }
    }
  }
}
