package org.oml.lakewriter.delta.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.committer.CommitMetrics;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.compact.Compaction;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.lease.CommitLease;

/**
 * A writer and a committer alive throughout, driven by hand as the job drives them: a batch is
 * written, its committables taken at the barrier and committed (unlike {@link SinkDriver}, whose
 * every call starts new instances, as a restart does). A test's own sink extends it, builds the
 * writer and committer it needs, and hands them to {@link #start}.
 */
public class LiveSink implements AutoCloseable {
  public DeltaSinkWriter writer;
  public DeltaCommitter committer;

  protected final void start(DeltaSinkWriter writer, DeltaCommitter committer) {
    this.writer = writer;
    this.committer = committer;
  }

  /**
   * A committer as the job builds one, without quarantine or lease, one table at a time.
   *
   * @param compaction told of every commit; null never compacts
   */
  public static DeltaCommitter committer(DeltaTableClient client, Compaction compaction) {
    return committer(client, 1, compaction);
  }

  /** @param commitParallelism tenants of one batch committed at the same time */
  public static DeltaCommitter committer(
      DeltaTableClient client, int commitParallelism, Compaction compaction) {
    return new DeltaCommitter(
        client,
        FrontierListener.NONE,
        null,
        CommitRetry.DEFAULT,
        3,
        Clock.systemUTC(),
        Thread::sleep,
        CommitLease.NONE,
        CommitMetrics.none(),
        commitParallelism,
        compaction);
  }

  /**
   * A writer without quarantine.
   *
   * @param guard shared with the lake's compactor; null when nothing compacts
   */
  public static DeltaSinkWriter writer(DeltaTableClient client, CompactionGuard guard) {
    return new DeltaSinkWriter(
        client, Clock.systemUTC(), WriterSettings.defaults().withCompactionGuard(guard));
  }

  /** Writes {@code batch} and returns its committables, as at a barrier. */
  public List<DeltaCommittable> write(Batch batch) throws Exception {
    writer.write(batch, null);
    return writer.prepareCommit();
  }

  /** Commits {@code committables}; returns what the committer decided per request. */
  public List<FakeCommitRequest> commit(List<DeltaCommittable> committables) throws Exception {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(committables);
    committer.commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  /** One checkpoint of one batch, written and committed; fails if a commit did not go through. */
  public void checkpoint(Batch batch) throws Exception {
    assertThat(commit(write(batch)))
        .extracting(FakeCommitRequest::state)
        .containsOnly(FakeCommitRequest.State.PENDING);
  }

  @Override
  public void close() throws Exception {
    writer.close();
    committer.close();
  }
}
