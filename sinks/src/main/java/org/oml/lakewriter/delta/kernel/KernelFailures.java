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
    if (e instanceof ConcurrentWriteException
        || e instanceof MaxCommitRetryLimitReachedException
        || e instanceof CommitStateUnknownException) {
      return new IOException("transient commit failure on " + table + ": " + e.getMessage(), e);
    }
    // KernelEngineException wraps whatever the engine threw; only an I/O cause makes it transient.
    if (e instanceof UncheckedIOException || hasIoCause(e)) {
      return new IOException("storage failure on " + table + ": " + e.getMessage(), e);
    }
    throw e;
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
