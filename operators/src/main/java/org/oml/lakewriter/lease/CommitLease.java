package org.oml.lakewriter.lease;

import java.io.IOException;
import java.io.Serializable;

/**
 * What the Delta committer asks of the leader lease: may I commit now, and how do I tag my commits.
 * {@link LeaseKeeper} is the real one; {@link #NONE} is for tests and tools that own their lake.
 */
public interface CommitLease extends AutoCloseable {
  /**
   * Returns normally only while this holder's lease is valid with the safety margin, measured on
   * this JVM's monotonic clock from the last successful renewal.
   *
   * @param what the commit about to be made, for the message
   * @throws LeaseLostException otherwise
   */
  void checkValid(String what) throws LeaseLostException;

  /**
   * Like {@link #checkValid}, after asking the lease's authority once more, now: called once per
   * commit unit, right before its first Delta commit, so that a lease another holder took since
   * the last periodic renewal stops the commit instead of only the next renewal noticing. A
   * failure to ask only ages the lease, as a missed renewal does.
   *
   * @param what the commits about to be made, for the message
   * @throws LeaseLostException if the lease is not valid after asking
   */
  default void confirm(String what) throws LeaseLostException {
    checkValid(what);
  }

  /** Written into each Delta commit's {@code commitInfo.engineInfo}, e.g. {@code lease-epoch=3}. */
  String commitTag();

  @Override
  void close();

  /** Opens the lease of one committer, on the task manager. */
  @FunctionalInterface
  interface Factory extends Serializable {
    /**
     * @param jobId the Flink job id, recorded in the lease row
     * @throws LeaseHeldException if another live holder has it
     */
    CommitLease open(String jobId) throws IOException;
  }

  /** No lease: every commit is allowed and untagged. Only for a lake nothing else writes to. */
  CommitLease NONE =
      new CommitLease() {
        @Override
        public void checkValid(String what) {}

        @Override
        public String commitTag() {
          return "";
        }

        @Override
        public void close() {}
      };

  /** The factory of {@link #NONE}. */
  Factory NO_LEASE = jobId -> NONE;
}
