package org.oml.lakewriter.demo;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one run: the long-open transaction, then the workers, on daemon threads.
 *
 * <p>Invariant: {@link #awaitAll()} returns only when every thread succeeded, and the first thread
 * to fail ends the run at once with its own exception, without waiting for the others; {@link
 * #close()} cancels whatever still runs, so no thread outlives the run.
 */
final class TrafficThreads implements AutoCloseable {
  private final ExecutorService pool;
  private final CompletionService<TrafficTally> done;
  private final List<Future<TrafficTally>> futures = new ArrayList<>();

  TrafficThreads(int threads) {
    this.pool = Executors.newFixedThreadPool(threads, daemonThreads());
    this.done = new ExecutorCompletionService<>(pool);
  }

  /**
   * Starts the long-open transaction and returns once its rows are in, so that every later thread
   * takes higher seqs.
   */
  void startLongOpen(LongOpenTransaction tx) throws SQLException, InterruptedException {
    Future<TrafficTally> f = done.submit(tx);
    futures.add(f);
    tx.awaitInserted();
    if (!tx.isOpen()) {
      await(f); // it failed before its rows were in (throws), or has already committed
    }
  }

  void start(Callable<TrafficTally> task) {
    futures.add(done.submit(task));
  }

  /** The merged tallies of all started threads. */
  TrafficTally awaitAll() throws SQLException, InterruptedException {
    // In completion order, so that the first failure ends the run at once.
    TrafficTally total = new TrafficTally();
    for (int i = 0; i < futures.size(); i++) {
      total.add(await(done.take()));
    }
    return total;
  }

  @Override
  public void close() {
    for (Future<TrafficTally> f : futures) {
      f.cancel(true);
    }
    pool.shutdownNow();
  }

  /** The thread's result, or its own failure: SQL errors stay SQL errors for the caller. */
  private static TrafficTally await(Future<TrafficTally> f)
      throws SQLException, InterruptedException {
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

  /** Daemon threads, so that a run abandoned by its caller never keeps the JVM alive. */
  private static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "demo-traffic-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
