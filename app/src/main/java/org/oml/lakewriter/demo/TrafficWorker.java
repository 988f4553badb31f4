package org.oml.lakewriter.demo;

import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * One thread of traffic: its own connection, random stream, ledgers and artifacts, writing
 * transactions of 1-{@value #MAX_TX_ROWS} rows of one tenant until its quota of committed rows is
 * reached. Some transactions roll back after inserting, so their seqs become gaps.
 *
 * <p>Invariant: a ledger learns whether its transaction committed before the next transaction
 * starts, so a rolled-back row is never promoted or retracted; and the rollback choice, the size
 * and the tenant of each transaction are drawn from the worker's stream before its rows, in that
 * order, so that the same seed gives the same transactions.
 */
final class TrafficWorker {
  static final int MAX_TX_ROWS = 10;

  private final int index;
  private final DemoTraffic.Options options;
  private final DemoTraffic.ConnectionSource connections;
  private final TenantMix tenants;
  private final Random random;
  private final RowGenerator gen;
  private final BooleanSupplier longOpen;
  private final Map<String, TenantLedger> ledgers = new HashMap<>();

  /**
   * @param longOpen whether the long-open transaction is open right now
   */
  TrafficWorker(TrafficRun run, int index, BooleanSupplier longOpen) {
    this.index = index;
    this.options = run.options();
    this.connections = run.connections();
    this.tenants = run.tenants();
    // The worker's own choices and its generator's draw from one stream, interleaved.
    this.random = run.randomFor(index);
    this.gen = run.generator(index, random);
    this.longOpen = longOpen;
  }

  /** Writes transactions until {@code quota} rows committed. */
  TrafficTally run(int quota) throws SQLException, GeneralSecurityException {
    TrafficTally tally = new TrafficTally();
    try (Connection c = connections.open();
        OutboxInserter ins = new OutboxInserter(c)) {
      c.setAutoCommit(false);
      int remaining = quota;
      for (int txNo = 0; remaining > 0; txNo++) {
        if (Thread.currentThread().isInterrupted()) {
          throw new SQLException("demo traffic interrupted");
        }
        remaining -= transaction(c, ins, txNo, remaining, tally);
      }
    }
    return tally;
  }

  /** Writes one transaction and returns the rows it committed: 0 when it rolled back. */
  private int transaction(
      Connection c, OutboxInserter ins, int txNo, int remaining, TrafficTally tally)
      throws SQLException, GeneralSecurityException {
    boolean rollback = rollsBack(txNo);
    int size = Math.min(1 + random.nextInt(MAX_TX_ROWS), remaining);
    TenantLedger ledger = ledgers.computeIfAbsent(tenants.pick(random), TenantLedger::new);
    List<OutboxRow> rows = new ArrayList<>(size);
    List<Long> seqs = new ArrayList<>(size);
    try {
      for (int i = 0; i < size; i++) {
        OutboxRow row = gen.next(ledger);
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
    return settle(ledger, rollback, rows, seqs, tally);
  }

  /**
   * Worker 0's first transaction always rolls back when rollbacks are on, so a run has at least
   * one gap; no draw is taken when rollbacks are off or for that first transaction.
   */
  private boolean rollsBack(int txNo) {
    return options.rollbackRate() > 0
        && ((index == 0 && txNo == 0) || random.nextDouble() < options.rollbackRate());
  }

  /** Tells the ledger and the tally how the transaction ended; returns the rows it committed. */
  private int settle(
      TenantLedger ledger,
      boolean rolledBack,
      List<OutboxRow> rows,
      List<Long> seqs,
      TrafficTally tally) {
    if (rolledBack) {
      ledger.rollback();
      tally.noteRollback(rows.size());
      return 0;
    }
    ledger.commit();
    tally.noteCommit(rows, seqs, longOpen.getAsBoolean());
    return rows.size();
  }
}
