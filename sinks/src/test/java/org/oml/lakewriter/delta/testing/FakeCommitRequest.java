package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.oml.lakewriter.delta.committer.DeltaCommittable;

/** Records what the committer decided about one committable, like Flink's request would. */
public final class FakeCommitRequest implements CommitRequest<DeltaCommittable> {
  /** The request's state after {@code commit}; {@code PENDING} means "considered committed". */
  public enum State {
    PENDING,
    RETRY,
    ALREADY_COMMITTED,
    FAILED_KNOWN,
    FAILED_UNKNOWN
  }

  private final DeltaCommittable committable;
  private State state = State.PENDING;
  private Throwable failure;
  private int retries;

  public FakeCommitRequest(DeltaCommittable committable) {
    this.committable = committable;
  }

  public static List<FakeCommitRequest> of(Collection<DeltaCommittable> committables) {
    List<FakeCommitRequest> requests = new ArrayList<>();
    committables.forEach(c -> requests.add(new FakeCommitRequest(c)));
    return requests;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static Collection<CommitRequest<DeltaCommittable>> asRequests(
      Collection<FakeCommitRequest> requests) {
    return (Collection) requests;
  }

  @Override
  public DeltaCommittable getCommittable() {
    return committable;
  }

  @Override
  public int getNumberOfRetries() {
    return retries;
  }

  @Override
  public void signalFailedWithKnownReason(Throwable t) {
    state = State.FAILED_KNOWN;
    failure = t;
  }

  @Override
  public void signalFailedWithUnknownReason(Throwable t) {
    state = State.FAILED_UNKNOWN;
    failure = t;
    // Flink's CommitRequestImpl throws here, which fails the job over.
    throw new IllegalStateException("Failed to commit " + committable, t);
  }

  @Override
  public void retryLater() {
    state = State.RETRY;
    retries++;
  }

  @Override
  public void updateAndRetryLater(DeltaCommittable committable) {
    throw new UnsupportedOperationException("the Delta committer never rewrites committables");
  }

  @Override
  public void signalAlreadyCommitted() {
    state = State.ALREADY_COMMITTED;
  }

  public State state() {
    return state;
  }

  public Throwable failure() {
    return failure;
  }

  /** Back to pending, as Flink does before retrying a request. */
  public void resetForRetry() {
    state = State.PENDING;
  }
}
