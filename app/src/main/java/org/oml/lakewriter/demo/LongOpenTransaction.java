package org.oml.lakewriter.demo;

import java.sql.Connection;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The transaction the horizon protocol exists for: a journal write and (when the run has room for
 * two rows) its promotion, inserted before any other traffic and committed only after {@link
 * DemoTraffic.Options#longOpenDelay()}, while the workers keep committing higher seqs.
 *
 * <p>Invariant: {@link #awaitInserted()} returns once the rows are in or the transaction has
 * ended, whichever comes first, so the run can start the workers only after it and they never
 * take a lower seq; and {@link #isOpen()} is true exactly while the rows are in and not yet
 * committed (or failed), which is what "committed while long-open" counts.
 */
final class LongOpenTransaction implements Callable<TrafficTally> {
  private final TrafficRun run;
  private final int rows;
  private final AtomicBoolean open = new AtomicBoolean(false);
  private final CountDownLatch inserted = new CountDownLatch(1);

  LongOpenTransaction(TrafficRun run) {
    this.run = run;
    this.rows = rowsFor(run.options());
  }

  /** The rows it commits, out of {@link DemoTraffic.Options#events()}; 0 when it is disabled. */
  static int rowsFor(DemoTraffic.Options options) {
    return options.longOpenDelay().isZero() ? 0 : Math.min(2, options.events());
  }

  @Override
  public TrafficTally call() throws Exception {
    TrafficTally tally = new TrafficTally();
    try (Connection c = run.connections().open();
        OutboxInserter ins = new OutboxInserter(c)) {
      c.setAutoCommit(false);
      long first = insertRows(ins, tally);
      open.set(true);
      inserted.countDown();
      try {
        Thread.sleep(run.options().longOpenDelay().toMillis());
        c.commit();
      } finally {
        open.set(false);
      }
      tally.noteLongOpenCommit(first);
      return tally;
    } finally {
      inserted.countDown(); // also when it failed before its rows were in
    }
  }

  /** Inserts the rows and returns the first (lowest) seq. */
  private long insertRows(OutboxInserter ins, TrafficTally tally) throws Exception {
    RowGenerator gen = run.generator(-1, run.randomFor(-1));
    // Its own ledger: no worker can promote or retract what this transaction wrote.
    TenantLedger ledger = new TenantLedger(run.tenants().first());
    OutboxRow write = gen.journalWrite(ledger, null);
    long first = ins.insert(write);
    tally.noteRow(write, first);
    if (rows > 1) {
      OutboxRow promotion = gen.materialize(ledger, ledger.promotableCount() - 1);
      tally.noteRow(promotion, ins.insert(promotion));
    }
    return first;
  }

  /** Waits until the rows are in, or the transaction has ended (committed or failed). */
  void awaitInserted() throws InterruptedException {
    inserted.await();
  }

  /** True while the rows are in and not yet committed. */
  boolean isOpen() {
    return open.get();
  }
}
