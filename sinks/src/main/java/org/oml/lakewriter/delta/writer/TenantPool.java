package org.oml.lakewriter.delta.writer;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one task per tenant of a commit unit, up to {@code parallelism} at a time, and waits for
 * every one of them: a unit's tenants are independent (each task touches only its own tenant's
 * tables and their entries in the writer's per-table state), so their Parquet files are written
 * on several cores, and on object storage their uploads overlap. With parallelism 1 the tasks run
 * on the caller's thread, one after the other, as before.
 *
 * <p>Invariant: {@link #runAll} returns or throws only once every task it started has ended, so no
 * task still changes the writer's state when the caller goes on (or fails over). A task's failure
 * is rethrown after that, the first in task order; the other tasks' results are dropped.
 */
final class TenantPool implements AutoCloseable {
  /** One tenant's work. */
  @FunctionalInterface
  interface Task<T> {
    T call() throws IOException;
  }

  /** Null at parallelism 1. */
  private final ExecutorService pool;

  TenantPool(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "sink.write-parallelism must be at least 1, got " + parallelism);
    }
    AtomicInteger count = new AtomicInteger();
    this.pool =
        parallelism == 1
            ? null
            : Executors.newFixedThreadPool(
                parallelism,
                runnable -> {
                  Thread thread =
                      new Thread(runnable, "delta-writer-" + count.incrementAndGet());
                  thread.setDaemon(true);
                  return thread;
                });
  }

  /** The tasks' results, in task order. */
  <T> List<T> runAll(List<Task<T>> tasks) throws IOException {
    List<T> results = new ArrayList<>(tasks.size());
    if (pool == null || tasks.size() == 1) {
      for (Task<T> task : tasks) {
        results.add(task.call());
      }
      return results;
    }
    List<Future<T>> futures = new ArrayList<>(tasks.size());
    for (Task<T> task : tasks) {
      futures.add(pool.submit(task::call));
    }
    Throwable failure = null;
    for (Future<T> future : futures) {
      try {
        results.add(awaitUninterruptibly(future));
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause();
        }
      }
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure != null) {
      throw new IOException("a tenant's write failed", failure);
    }
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedIOException("interrupted while the unit's tenants were written");
    }
    return results;
  }

  /**
   * Waits for the task even if the caller is interrupted (a cancelled job): a tenant's write is
   * bounded (its files and their uploads), and the caller's interrupt is kept for after the wait.
   */
  private static <T> T awaitUninterruptibly(Future<T> future) throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
