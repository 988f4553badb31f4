package org.oml.lakewriter.delta.compact;

import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/** Holds a compactor's file reads until opened (tests); records whether a held read was interrupted. */
final class ReadGate {
  final CountDownLatch entered = new CountDownLatch(1);
  final CountDownLatch open = new CountDownLatch(1);
  final AtomicBoolean interrupted = new AtomicBoolean();

  /** Called by a read: waits until the gate is open. */
  void pass() throws InterruptedIOException {
    entered.countDown();
    try {
      open.await();
    } catch (InterruptedException e) {
      interrupted.set(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("held compaction read interrupted");
    }
  }
}
