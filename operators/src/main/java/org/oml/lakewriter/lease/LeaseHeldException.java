package org.oml.lakewriter.lease;

/**
 * {@code LEASE_HELD}: another writer holds the leader lease of this lake. Exactly one lake writer
 * may commit to a lake (ADR-0003 d2); the message names the holder (host, pid, job), its epoch and
 * until when it holds the lease.
 */
public final class LeaseHeldException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient LeaseRecord current;

  public LeaseHeldException(LeaseRecord current, String detail) {
    super(
        "LEASE_HELD: the lake "
            + current.lakeRoot()
            + " is led by "
            + current.describe()
            + (detail.isEmpty() ? "" : "; " + detail)
            + ". Exactly one lake writer may commit to a lake (ADR-0003 d2), whatever its"
            + " writer.id, slot or state.dir: stop that writer first, or, if it is dead, let its"
            + " lease expire (a new `lakewriter run` waits up to lease.wait for that).");
    this.current = current;
  }

  /** The lease as it was read when the acquisition was refused. */
  public LeaseRecord current() {
    return current;
  }
}
