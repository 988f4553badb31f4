package org.oml.lakewriter.identity;

import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.oml.lakewriter.serde.VersionedTypeSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the job's {@link JobIdentity} in operator state and refuses to restore state that was
 * recorded under another one.
 *
 * <p>A mismatch is wrapped in Flink's {@link SuppressRestartsException}: the restore would fail
 * the same way on every attempt, so the job fails once, with both identities named, instead of
 * looping through its restart strategy. State from before this guard (no identity recorded) is
 * accepted and the current identity is recorded from then on.
 */
public final class IdentityGuard {
  static final String STATE_NAME = "job-identity";
  private static final Logger LOG = LoggerFactory.getLogger(IdentityGuard.class);

  private IdentityGuard() {}

  /**
   * Reads the recorded identity (if any), compares it with {@code expected} and records {@code
   * expected} for the next checkpoint. {@code expected == null} (unit tests that build the cut
   * without a database) keeps whatever was recorded.
   *
   * @throws SuppressRestartsException wrapping an {@link IdentityMismatchException}
   */
  public static void check(OperatorStateStore store, JobIdentity expected) throws Exception {
    ListState<JobIdentity> state =
        store.getListState(
            new ListStateDescriptor<>(
                STATE_NAME, new VersionedTypeSerializer<>(JobIdentitySerializer.class)));
    JobIdentity recorded = null;
    for (JobIdentity id : state.get()) {
      recorded = id;
    }
    if (expected == null) {
      return;
    }
    if (recorded != null && !recorded.equals(expected)) {
      throw new SuppressRestartsException(new IdentityMismatchException(recorded, expected));
    }
    if (recorded == null) {
      LOG.info("recording the job's identity {}", expected);
    }
    state.update(List.of(expected));
  }

  /** The restored state belongs to another database, slot, writer id or lake root. */
  public static final class IdentityMismatchException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public IdentityMismatchException(JobIdentity recorded, JobIdentity current) {
      super(
          "STATE_IDENTITY_MISMATCH: the restored checkpoint belongs to " + recorded
              + ", but this job is " + current + " (" + String.join("; ", recorded.differences(current))
              + ", restored vs configured). Restoring it would skip rows silently. Restore the"
              + " state of this configuration (its own state.dir), or start without state"
              + " (`lakewriter run --fresh`): the lake's per-table txn versions make a fresh start"
              + " safe.");
    }
  }
}
