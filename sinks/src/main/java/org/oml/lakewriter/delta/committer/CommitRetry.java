package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.oml.lakewriter.delta.Interruption;

/**
 * How the committer retries a transient failure ({@link IOException}: an object-store or network
 * blip, a commit whose outcome is unknown) before it fails the job over: at once, then after a
 * back-off that starts at {@code initialBackoff} and doubles up to {@code maxBackoff}, for at most
 * {@code maxDuration} in all. Every call it retries is idempotent (a table at or above the batch
 * skips it), and the batch's later tables and later batches wait meanwhile, so nothing overtakes
 * it.
 *
 * <p>Options: {@code sink.commit-retry.max-duration}, {@code sink.commit-retry.initial-backoff},
 * {@code sink.commit-retry.max-backoff}.
 */
public record CommitRetry(Duration maxDuration, Duration initialBackoff, Duration maxBackoff)
    implements Serializable {
  public static final CommitRetry DEFAULT =
      new CommitRetry(Duration.ofMinutes(2), Duration.ofMillis(100), Duration.ofSeconds(5));

  /** No retry at all: the first transient failure fails over. */
  public static final CommitRetry NONE = new CommitRetry(Duration.ZERO, Duration.ZERO, Duration.ZERO);

  public CommitRetry {
    Objects.requireNonNull(maxDuration, "maxDuration");
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxDuration.isNegative() || initialBackoff.isNegative() || maxBackoff.isNegative()) {
      throw new IllegalArgumentException("commit retry durations must not be negative: " + this);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "sink.commit-retry.max-backoff ("
              + maxBackoff
              + ") is below sink.commit-retry.initial-backoff ("
              + initialBackoff
              + ")");
    }
  }

  /** One idempotent call to retry. */
  @FunctionalInterface
  public interface Call<T> {
    T run() throws IOException;
  }

  /** Sleeps; a seam for tests. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  /** Called before each retry, with the failure and the back-off about to be slept. */
  @FunctionalInterface
  public interface Listener {
    void retrying(IOException failure, int attempt, long backoffMillis);
  }

  /**
   * Runs {@code call}, retrying its {@link IOException}s within the window; the last failure is
   * rethrown with a message that names the option, once the window is spent.
   */
  public <T> T run(String what, Call<T> call, Sleeper sleeper, Listener listener)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + maxDuration.toNanos();
    long backoff = initialBackoff.toMillis();
    for (int attempt = 1; ; attempt++) {
      try {
        return call.run();
      } catch (IOException e) {
        if (Interruption.surfacedIn(e)) {
          // The task is being cancelled (a failover, a JobManager that lost leadership): an
          // interrupted I/O call is not a storage fault, and retrying it for the whole window
          // would hold the cancellation. The committable stays in the checkpoint.
          Thread.currentThread().interrupt();
          InterruptedException stop =
              new InterruptedException(what + ": interrupted, not retried (" + e + ")");
          stop.initCause(e);
          throw stop;
        }
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new IOException(
              what
                  + ": still failing after "
                  + attempt
                  + " attempts within sink.commit-retry.max-duration ("
                  + maxDuration
                  + "): "
                  + e.getMessage()
                  + ". Failing over; the batch commits after the restore",
              e);
        }
        long sleep = Math.min(backoff, left);
        listener.retrying(e, attempt, sleep);
        sleeper.sleep(sleep);
        backoff = Math.min(Math.max(1, backoff * 2), maxBackoff.toMillis());
      }
    }
  }
}
