package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.exceptions.CommitStateUnknownException;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.InvalidConfigurationValueException;
import io.delta.kernel.exceptions.InvalidTableException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.exceptions.UnknownConfigurationException;
import io.delta.kernel.exceptions.UnsupportedProtocolVersionException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableUnusableException;

/**
 * Sorts Kernel's exceptions into the {@code DeltaTableClient} contract: transient ones become
 * {@link IOException} (repeat the call), permanent table conditions become {@link
 * TableUnusableException}, and everything else stays what it is (a bug: fail over).
 *
 * <p>A commit whose outcome is unknown is transient on purpose: the repeated call first reads the
 * table's txn version, and reports the batch as already applied if the lost commit did land.
 */
final class KernelFailures {
  private KernelFailures() {}

  /** Either returns an {@link IOException} to throw, or throws the runtime exception to throw. */
  static IOException translate(TableId table, RuntimeException e) {
    if (e instanceof TableUnusableException) {
      throw e;
    }
    if (e instanceof UnsupportedTableFeatureException
        || e instanceof UnsupportedProtocolVersionException) {
      throw new TableUnusableException(
          table,
          "needs a Delta protocol feature that Delta Kernel 4.4.0 cannot write ("
              + e.getMessage()
              + "); remove the feature from the table or upgrade the writer",
          e);
    }
    if (e instanceof InvalidTableException
        || e instanceof InvalidConfigurationValueException
        || e instanceof UnknownConfigurationException) {
      throw new TableUnusableException(
          table, "is not a Delta table this writer can use (" + e.getMessage() + ")", e);
    }
    String unreadable = unreadableParquet(e);
    if (unreadable != null) {
      throw new TableUnusableException(
          table,
          "has a Parquet file that cannot be read ("
              + unreadable
              + "): a log checkpoint or a data file is truncated or is not Parquet. The likely one"
              + " is the newest _delta_log/*.checkpoint.parquet, if it is shorter than the others"
              + " or does not end in PAR1 (a checkpoint published by a failed write; the writer's"
              + " engine no longer publishes one, Kernel's does: docs/kernel-conformance.md #7)."
              + " Delete that file (readers then start from the checkpoint before it; the commit"
              + " files after it are still in the log) and release the tenant",
          e);
    }
    if (e instanceof ConcurrentWriteException
        || e instanceof MaxCommitRetryLimitReachedException
        || e instanceof CommitStateUnknownException) {
      return new IOException(
          "transient commit failure on " + table + ": " + e.getMessage() + rootCause(e), e);
    }
    // KernelEngineException wraps whatever the engine threw; only an I/O cause makes it transient.
    if (e instanceof UncheckedIOException || hasIoCause(e)) {
      return storage(table, e);
    }
    throw e;
  }

  /**
   * A storage failure, named: the table, what failed, the root cause (the message an operator acts
   * on: "No space left on device", "Permission denied") and what happens and what to do.
   */
  static IOException storage(TableId table, Exception e) {
    return new IOException(
        "storage failure on "
            + table
            + ": "
            + e.getMessage()
            + rootCause(e)
            + ". Transient: the committer retries in place (sink.commit-retry.max-duration), a"
            + " writer fails over and rewrites the batch from its checkpoint; nothing is lost."
            + " Check the lake storage (free space, permissions on the table's directory,"
            + " reachability)",
        e);
  }

  /** {@code " (cause: ...)"} naming the innermost cause, or nothing if {@code e} is its own. */
  static String rootCause(Throwable e) {
    Throwable root = e;
    for (Throwable t = e.getCause(); t != null && t != root; t = t.getCause()) {
      root = t;
    }
    return root == e ? "" : " (cause: " + root + ")";
  }

  /**
   * The message of Parquet's refusal of a file that is not Parquet (too short, no magic number, a
   * footer outside the file), anywhere in the cause chain, or null. Parquet throws a bare {@link
   * RuntimeException} for it. Rereading cannot help: the file is what it is.
   */
  private static String unreadableParquet(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      if (t.getClass() == RuntimeException.class
          && message != null
          && (message.contains("is not a Parquet file") || message.startsWith("corrupted file"))) {
        return message;
      }
    }
    return null;
  }

  private static boolean hasIoCause(Throwable e) {
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
    }
    return false;
  }
}
