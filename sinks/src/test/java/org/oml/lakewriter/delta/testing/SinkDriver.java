package org.oml.lakewriter.delta.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.committer.CommitRetry;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.TenantReplay;
import org.oml.lakewriter.delta.quarantine.WriterQuarantine;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;

/**
 * Runs the sink's two phases by hand on a real lake, the way Flink would: a writer per start, its
 * committables at a barrier, then a committer. Each call builds new instances, as a restart does.
 * Both phases honour the lake's quarantine records ({@link LakeQuarantineStore}), as the job's do.
 */
public final class SinkDriver {
  private SinkDriver() {}

  public static LakeConfig lake(Path dir) {
    return LakeConfig.of(dir.toUri().toString());
  }

  /**
   * A fresh writer (no state) writes the batches, each in a checkpoint of its own (a barrier after
   * every batch); returns the committables of those barriers, one per batch.
   */
  public static List<DeltaCommittable> write(LakeConfig lake, List<Batch> batches)
      throws Exception {
    return write(lake, batches, null);
  }

  /** Like {@link #write(LakeConfig, List)}, replaying quarantined tenants from {@code outbox}. */
  public static List<DeltaCommittable> write(
      LakeConfig lake, List<Batch> batches, TenantReplay outbox) throws Exception {
    KernelDeltaTableClient client = new KernelDeltaTableClient(lake);
    WriterQuarantine quarantine =
        new WriterQuarantine(
            new LakeQuarantineStore(lake), outbox, client, 3, Clock.systemUTC(), CommitRetry.DEFAULT);
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(
            client,
            Clock.systemUTC(),
            org.oml.lakewriter.delta.writer.WriterSettings.defaults().withQuarantine(quarantine))) {
      List<DeltaCommittable> committables = new java.util.ArrayList<>();
      for (Batch batch : batches) {
        writer.write(batch, null);
        committables.addAll(writer.prepareCommit());
      }
      return committables;
    }
  }

  /** A fresh committer commits the committables; returns what it decided per request. */
  public static List<FakeCommitRequest> commit(
      DeltaTableClient client, List<DeltaCommittable> committables, FrontierListener frontier)
      throws IOException, InterruptedException {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(committables);
    new DeltaCommitter(client, frontier).commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  /** A fresh committer over the lake, with the lake's quarantine store. */
  public static List<FakeCommitRequest> commit(LakeConfig lake, List<DeltaCommittable> committables)
      throws IOException, InterruptedException {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(committables);
    new DeltaCommitter(
            new KernelDeltaTableClient(lake),
            FrontierListener.NONE,
            new LakeQuarantineStore(lake),
            CommitRetry.DEFAULT,
            3,
            Clock.systemUTC(),
            Thread::sleep)
        .commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  /** Writes and commits, like a run with one checkpoint at the end. */
  public static void run(LakeConfig lake, List<Batch> batches) throws Exception {
    commit(lake, write(lake, batches));
  }
}
