package org.oml.lakewriter.delta;

import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;

/**
 * Tells the task's cancellation from a storage fault. Flink cancels a task by interrupting its
 * thread; Hadoop, Kernel and NIO surface that as an exception, often with the thread's flag
 * cleared. The committer's retry ({@code CommitRetry}) and the compaction scheduler both must not
 * treat it as a storage fault.
 */
public final class Interruption {
  private Interruption() {}

  /**
   * Whether {@code e} is the thread's interruption surfacing through I/O: the thread is
   * interrupted, or a cause is an {@link InterruptedException}, a {@link
   * ClosedByInterruptException} or an {@link InterruptedIOException} of exactly that class. Its
   * subclasses are timeouts ({@code SocketTimeoutException}, {@code ConnectTimeoutException}):
   * storage faults, not interruptions.
   */
  public static boolean surfacedIn(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getClass() == InterruptedIOException.class
          || c instanceof InterruptedException
          || c instanceof ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }
}
