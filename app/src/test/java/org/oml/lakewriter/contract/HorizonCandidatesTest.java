package org.oml.lakewriter.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.contract.OutboxContractTest.insert;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * Issue 11 item 6: only a transaction that can still hold an outbox seq holds the horizon. Each
 * test has its own database (and writer id) on one embedded PostgreSQL 17 with prepared
 * transactions enabled, so that the unrelated transactions of one test are another database's for
 * the next. Every prepared transaction a test leaves is rolled back after it.
 */
class HorizonCandidatesTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static EmbeddedPostgresServer pg;
  private String db;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @AfterEach
  void rollBackPreparedTransactions() throws SQLException {
    try (Connection c = pg.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT gid, database FROM pg_prepared_xacts")) {
      List<String[]> left = new ArrayList<>();
      while (rs.next()) {
        left.add(new String[] {rs.getString(1), rs.getString(2)});
      }
      for (String[] p : left) {
        try (Connection d = connect(p[1]);
            Statement s = d.createStatement()) {
          s.execute("ROLLBACK PREPARED '" + p[0] + "'");
        }
      }
    }
  }

  /** A fresh database with the contract applied; this test's outbox. */
  private Connection outbox() throws SQLException {
    if (db == null) {
      db = freshDatabase();
      try (Connection c = connect(db)) {
        OutboxContract.apply(c, "oml_lake_pub");
      }
    }
    return connect(db);
  }

  @Test
  void anOpenTransactionInAnotherDatabaseDoesNotHoldTheHorizon() throws SQLException {
    // The reproduction of the issue: a write in another database of the cluster.
    String other = freshDatabase();
    try (Connection ticker = outbox();
        Connection writer = outbox();
        Connection elsewhere = connect(other)) {
      exec(elsewhere, "CREATE TABLE report (n int)");
      elsewhere.setAutoCommit(false);
      exec(elsewhere, "INSERT INTO report VALUES (1)");
      long seq = insert(writer, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(seq);
      assertThat(pendingSeq(ticker, "w")).isNull();
      elsewhere.rollback();
    }
  }

  @Test
  void anIdleInTransactionSessionThatNeverWroteTheOutboxDoesNotHoldIt() throws SQLException {
    try (Connection ticker = outbox();
        Connection writer = outbox();
        Connection idle = outbox()) {
      idle.setAutoCommit(false);
      // A long report: it reads the outbox (AccessShareLock) and has an xid, then sits idle.
      exec(idle, "SELECT count(*) FROM oml_outbox");
      exec(idle, "UPDATE oml_lake_frontier SET frontier_seq = frontier_seq");
      exec(idle, "SELECT pg_current_xact_id()");
      long seq = insert(writer, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(seq);
      idle.rollback();
    }
  }

  @Test
  void anOrphanedPreparedTransactionDoesNotHoldIt() throws SQLException {
    try (Connection ticker = outbox()) {
      try (Connection preparer = outbox()) {
        exec(preparer, "CREATE TABLE side (n int)");
        preparer.setAutoCommit(false);
        exec(preparer, "INSERT INTO side VALUES (1)");
        exec(preparer, "PREPARE TRANSACTION 'orphan-side'");
      }
      // Its session is gone: only pg_prepared_xacts and pg_locks still know it.
      try (Connection writer = outbox()) {
        long seq = insert(writer, "t1");
        assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(seq);
      }
    }
  }

  @Test
  void aPreparedTransactionThatWroteTheOutboxHoldsItUntilCommitPrepared() throws SQLException {
    try (Connection ticker = outbox();
        Connection other = outbox()) {
      long before = insert(other, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(before);
      long held;
      long xid;
      try (Connection preparer = outbox()) {
        preparer.setAutoCommit(false);
        held = insert(preparer, "t1");
        xid = scalarLong(preparer, "SELECT pg_current_xact_id()::text::bigint");
        exec(preparer, "PREPARE TRANSACTION 'writes-outbox'");
      }
      long later = insert(other, "t1");
      for (int i = 0; i < 3; i++) {
        assertThat(OutboxContract.tick(ticker, "w")).isLessThan(held);
      }
      assertThat(pendingSeq(ticker, "w")).isGreaterThanOrEqualTo(later);
      assertThat(scalarLong(ticker, "SELECT count(*) FROM oml_lake_horizon_pending p,"
              + " unnest(p.xip) x WHERE x::text::bigint = " + xid))
          .as("the prepared transaction's xid is a candidate")
          .isEqualTo(1);
      exec(ticker, "COMMIT PREPARED 'writes-outbox'");
      assertThat(OutboxContract.tick(ticker, "w")).isGreaterThanOrEqualTo(later);
    }
  }

  @Test
  void aPreparedTransactionKeepsItsLocksUnderOneVirtualTransaction() throws SQLException {
    // What the candidate query relies on (PostgreSQL 17): the dummy process of a prepared
    // transaction shows both its relation lock and its xid lock, with a NULL pid, under one
    // virtualtransaction.
    try (Connection ticker = outbox()) {
      long xid;
      try (Connection preparer = outbox()) {
        preparer.setAutoCommit(false);
        insert(preparer, "t1");
        xid = scalarLong(preparer, "SELECT pg_current_xact_id()::text::bigint");
        exec(preparer, "PREPARE TRANSACTION 'pinned'");
      }
      assertThat(scalarLong(ticker,
              "SELECT count(*) FROM pg_locks r JOIN pg_locks x USING (virtualtransaction)"
                  + " WHERE r.locktype = 'relation' AND r.relation = 'oml_outbox'::regclass"
                  + " AND r.mode = 'RowExclusiveLock' AND r.pid IS NULL"
                  + " AND x.locktype = 'transactionid' AND x.mode = 'ExclusiveLock'"
                  + " AND x.transactionid::text::bigint = " + (xid % (1L << 32))))
          .isEqualTo(1);
    }
  }

  @Test
  void aPreparedOutboxWriterRecoveredAfterAServerRestartStillHoldsIt(@TempDir Path data)
      throws SQLException {
    // After a restart the prepared transaction's locks are rebuilt from its state file, under a
    // virtualtransaction of its own dummy process (-1/<xid>); it must still be a candidate.
    long held;
    EmbeddedPostgresServer server = EmbeddedPostgresServer.start(data);
    try (Connection c = server.connect()) {
      OutboxContract.apply(c, "oml_lake_pub");
      c.setAutoCommit(false);
      held = insert(c, "t1");
      exec(c, "PREPARE TRANSACTION 'survives-restart'");
    } finally {
      server.close();
    }
    server = EmbeddedPostgresServer.start(data);
    try (Connection ticker = server.connect();
        Connection other = server.connect()) {
      long later = insert(other, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isLessThan(held);
      exec(ticker, "COMMIT PREPARED 'survives-restart'");
      assertThat(OutboxContract.tick(ticker, "w")).isGreaterThanOrEqualTo(later);
    } finally {
      server.close();
    }
  }

  @Test
  void aRolledBackSubtransactionDoesNotHoldButAReleasedOneDoes() throws SQLException {
    try (Connection ticker = outbox();
        Connection writer = outbox();
        Connection other = outbox()) {
      writer.setAutoCommit(false);
      exec(writer, "SAVEPOINT a");
      long gone = insert(writer, "t1");
      exec(writer, "ROLLBACK TO SAVEPOINT a");
      long after = insert(other, "t1");
      // The transaction is still open, with an xid, but its row can never commit.
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(after).isGreaterThan(gone);

      exec(writer, "SAVEPOINT b");
      long kept = insert(writer, "t1");
      exec(writer, "RELEASE SAVEPOINT b");
      long later = insert(other, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isLessThan(kept);
      writer.commit();
      assertThat(OutboxContract.tick(ticker, "w")).isGreaterThanOrEqualTo(later);
    }
  }

  @Test
  void anUpgradeKeepsAPendingSeqOfTheOldTickAndThenStopsWaitingForUnrelatedTransactions()
      throws Exception {
    // A database on the contract as it was before the narrowing, with a seq pending behind an
    // unrelated transaction (the old candidates: every running xid of the cluster).
    db = freshDatabase();
    try (Connection c = connect(db);
        Statement st = c.createStatement()) {
      st.execute(resource("outbox-contract-a2126ec.sql"));
    }
    try (Connection ticker = connect(db);
        Connection writer = connect(db);
        Connection unrelated = connect(db)) {
      unrelated.setAutoCommit(false);
      exec(unrelated, "SELECT pg_current_xact_id()");
      long old = insert(writer, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isLessThan(old);
      assertThat(pendingSeq(ticker, "w")).isEqualTo(old);

      try (Connection c = connect(db)) {
        OutboxContract.apply(c, "oml_lake_pub");
        OutboxContract.verify(c, "oml_lake_pub");
      }
      // The old pending row keeps its meaning: its seq waits for its own (wider) candidates.
      assertThat(OutboxContract.tick(ticker, "w")).isLessThan(old);
      unrelated.rollback();
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(old);

      // From now on the unrelated transaction no longer counts.
      unrelated.setAutoCommit(false);
      exec(unrelated, "SELECT pg_current_xact_id()");
      long next = insert(writer, "t1");
      assertThat(OutboxContract.tick(ticker, "w")).isEqualTo(next);
      unrelated.rollback();
    }
  }

  @Test
  void aMixedConcurrentWorkloadNeverPassesASeqThatCommitsLater() throws Exception {
    // The property, checked at the source: once a tick returns H, every seq <= H that ever
    // commits is already visible. Writers commit, roll back, use savepoints and prepare
    // transactions; unrelated sessions (here and in another database) keep xids open.
    String other = freshDatabase();
    try (Connection c = connect(other)) {
      exec(c, "CREATE TABLE report (n int)");
    }
    outbox().close(); // create this test's database before the threads share it
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<?>> tasks = new ArrayList<>();
    ConcurrentSkipListSet<Long> committed = new ConcurrentSkipListSet<>();
    for (int w = 0; w < 4; w++) {
      int id = w;
      tasks.add(pool.submit(() -> write(id, stop, committed)));
    }
    tasks.add(pool.submit(() -> holdUnrelated(other, stop)));
    List<long[]> checks = new ArrayList<>(); // {stable}
    List<Set<Long>> visible = new ArrayList<>();
    try (Connection ticker = outbox()) {
      long until = System.nanoTime() + 4_000_000_000L;
      while (System.nanoTime() < until) {
        long stable = OutboxContract.tick(ticker, "w");
        Set<Long> seen = new TreeSet<>();
        try (PreparedStatement ps =
            ticker.prepareStatement("SELECT seq FROM oml_outbox WHERE seq <= ?")) {
          ps.setLong(1, stable);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              seen.add(rs.getLong(1));
            }
          }
        }
        checks.add(new long[] {stable});
        visible.add(seen);
        Thread.sleep(5);
      }
      stop.set(true);
      for (Future<?> f : tasks) {
        f.get();
      }
      pool.shutdown();
      long max = scalarLong(ticker, "SELECT last_value FROM oml_outbox_seq");
      long rose = checks.stream().mapToLong(c -> c[0]).max().orElse(0);
      assertThat(rose).as("the horizon rose while unrelated transactions stayed open")
          .isGreaterThan(max / 2);
      for (int i = 0; i < checks.size(); i++) {
        long stable = checks.get(i)[0];
        Set<Long> expected = committed.headSet(stable, true);
        assertThat(visible.get(i))
            .as("seqs <= %d visible right after the tick returned it", stable)
            .containsAll(expected);
      }
      assertThat(committed).hasSizeGreaterThan(100);
    }
  }

  private Void write(int id, AtomicBoolean stop, Set<Long> committed) throws Exception {
    Random random = new Random(id);
    int prepared = 0;
    try (Connection c = outbox()) {
      c.setAutoCommit(false);
      while (!stop.get()) {
        List<Long> tx = new ArrayList<>();
        int rows = 1 + random.nextInt(4);
        boolean savepoint = random.nextInt(5) == 0;
        for (int i = 0; i < rows; i++) {
          if (savepoint && i == rows - 1) {
            exec(c, "SAVEPOINT s");
            long s = insert(c, "t" + id);
            if (random.nextBoolean()) {
              exec(c, "ROLLBACK TO SAVEPOINT s");
            } else {
              exec(c, "RELEASE SAVEPOINT s");
              tx.add(s);
            }
          } else {
            tx.add(insert(c, "t" + id));
          }
          Thread.sleep(random.nextInt(8));
        }
        int outcome = random.nextInt(10);
        if (outcome == 0) {
          c.rollback();
        } else if (outcome == 1) {
          String gid = "p-" + id + "-" + prepared++;
          exec(c, "PREPARE TRANSACTION '" + gid + "'");
          c.setAutoCommit(true);
          Thread.sleep(random.nextInt(40));
          exec(c, "COMMIT PREPARED '" + gid + "'");
          committed.addAll(tx);
          c.setAutoCommit(false);
        } else {
          c.commit();
          committed.addAll(tx);
        }
      }
    }
    return null;
  }

  /** Keeps an xid open in this database and in another one, renewed now and then. */
  private Void holdUnrelated(String otherDb, AtomicBoolean stop) throws Exception {
    try (Connection here = outbox();
        Connection there = connect(otherDb)) {
      here.setAutoCommit(false);
      there.setAutoCommit(false);
      while (!stop.get()) {
        exec(here, "SELECT pg_current_xact_id()");
        exec(there, "INSERT INTO report VALUES (1)");
        Thread.sleep(700);
        here.rollback();
        there.rollback();
      }
    }
    return null;
  }

  private static Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(
        pg.jdbcUrl().replace("/" + EmbeddedPostgresServer.DATABASE, "/" + database),
        EmbeddedPostgresServer.USER,
        "");
  }

  private static String freshDatabase() throws SQLException {
    String name = "horizon_" + COUNTER.incrementAndGet();
    try (Connection c = pg.connect()) {
      exec(c, "CREATE DATABASE " + name);
    }
    return name;
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static long scalarLong(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Long pendingSeq(Connection c, String writer) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT pending_seq FROM oml_lake_horizon_pending WHERE writer_id = ?")) {
      ps.setString(1, writer);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = HorizonCandidatesTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
