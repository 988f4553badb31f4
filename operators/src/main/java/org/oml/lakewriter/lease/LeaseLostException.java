package org.oml.lakewriter.lease;

import java.io.IOException;

/**
 * {@code LEASE_LOST}: this writer cannot prove that it still holds the leader lease (it was not
 * renewed in time, or another holder took it), so it must not commit. An {@link IOException}: the
 * committer keeps the batch and retries it later, it never drops it; a lease that another holder
 * took is lost for good, and the job fails over and is refused at restart.
 */
public final class LeaseLostException extends IOException {
  private static final long serialVersionUID = 1L;

  private final boolean takenOver;

  /** Not renewed in time: the lease may still come back if nobody else took it. */
  public LeaseLostException(String message) {
    this(message, false);
  }

  /**
   * @param takenOver another holder has the lease: this instance can never commit again
   */
  public LeaseLostException(String message, boolean takenOver) {
    super("LEASE_LOST: " + message);
    this.takenOver = takenOver;
  }

  /** True if another holder took the lease: retrying is pointless, the job must stop or fail. */
  public boolean takenOver() {
    return takenOver;
  }
}
