package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A commit interrupted by the task's cancellation (Flink interrupts the task thread; Hadoop and
 * Kernel surface it as an {@link InterruptedIOException}, with the flag cleared) is not a storage
 * fault: it is not retried, the thread's interrupt flag is restored, and {@link
 * InterruptedException} ends the committer. Before, it was retried for the whole window (2 min by
 * default), holding the cancellation (seen as a hung JobMaster failover in a MiniCluster).
 */
class CommitRetryInterruptTest {
  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void anInterruptedIoCallIsNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger sleeps = new AtomicInteger();
    assertThatThrownBy(
            () ->
                CommitRetry.DEFAULT.run(
                    "batch (0, 10] table acme/bronze/journal_events",
                    () -> {
                      calls.incrementAndGet();
                      throw new IOException(
                          "storage failure on acme/bronze/journal_events",
                          new UncheckedIOException(
                              new InterruptedIOException("Thread was interrupted")));
                    },
                    millis -> sleeps.incrementAndGet(),
                    (e, attempt, backoff) -> {}))
        .isInstanceOf(InterruptedException.class)
        .hasMessageContaining("acme/bronze/journal_events: interrupted, not retried");
    assertThat(calls).hasValue(1);
    assertThat(sleeps).hasValue(0);
    assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag restored").isTrue();
  }

  /**
   * A read timeout is an {@link InterruptedIOException} by class ({@link SocketTimeoutException}
   * extends it) but a storage fault: retried in place, and the thread is not marked interrupted.
   */
  @Test
  void aSocketTimeoutIsRetriedNotTakenForAnInterrupt() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    String result =
        CommitRetry.DEFAULT.run(
            "batch",
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw new IOException(
                    "storage failure on acme/bronze/journal_events",
                    new SocketTimeoutException("Read timed out"));
              }
              return "committed";
            },
            millis -> {},
            (e, attempt, backoff) -> {});
    assertThat(result).isEqualTo("committed");
    assertThat(calls).hasValue(3);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void anOrdinaryIoFailureIsStillRetried() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    String result =
        CommitRetry.DEFAULT.run(
            "batch",
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw new IOException("No space left on device");
              }
              return "committed";
            },
            millis -> {},
            (e, attempt, backoff) -> {});
    assertThat(result).isEqualTo("committed");
    assertThat(calls).hasValue(3);
  }
}
