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
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;

/**
 * Runs the sink's two phases by hand on a real lake, the way Flink would: a writer per start, its
 * committables at a barrier, then a committer. Each call builds new instances, as a restart does.
 */
public final class SinkDriver {
  private SinkDriver() {}

  public static LakeConfig lake(Path dir) {
    return LakeConfig.of(dir.toUri().toString());
  }

  /** A fresh writer (no state) writes the batches; returns the committables of one barrier. */
  public static List<DeltaCommittable> write(LakeConfig lake, List<Batch> batches)
      throws Exception {
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC())) {
      for (Batch batch : batches) {
        writer.write(batch, null);
      }
      return writer.prepareCommit();
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

  public static List<FakeCommitRequest> commit(LakeConfig lake, List<DeltaCommittable> committables)
      throws IOException, InterruptedException {
    return commit(new KernelDeltaTableClient(lake), committables, FrontierListener.NONE);
  }

  /** Writes and commits, like a run with one checkpoint at the end. */
  public static void run(LakeConfig lake, List<Batch> batches) throws Exception {
    commit(lake, write(lake, batches));
  }
}
