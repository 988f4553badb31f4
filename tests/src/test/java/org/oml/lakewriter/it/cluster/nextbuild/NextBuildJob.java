package org.oml.lakewriter.it.cluster.nextbuild;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.event.Batch;

/**
 * "The next build" of the job for the session-cluster test: today's {@link LakeWriterJob} with an
 * operator added elsewhere in the graph, a map of the cut's batches to their end seq on a side
 * branch, with uids of its own. A savepoint of today's graph must restore into it: every existing
 * operator keeps its uid and state, the new ones start empty, and nothing is dropped ({@code
 * allowNonRestoredState = false}).
 */
public final class NextBuildJob {
  public static final String PROBE_UID = "next-build-batch-ends";
  public static final String PROBE_NAME = "next-build batch ends";

  private NextBuildJob() {}

  public static void main(String[] args) throws Exception {
    LakeWriterJob.submit(
        args,
        batches ->
            batches
                .map(new BatchEnd())
                .uid(PROBE_UID)
                .name(PROBE_NAME)
                .setParallelism(1)
                .sinkTo(new DiscardingSink<>())
                .uid(PROBE_UID + "-discard")
                .name(PROBE_NAME + " (discard)")
                .setParallelism(1));
  }

  /** The side branch's operator: stateless, so it restores from any savepoint of the old graph. */
  static final class BatchEnd implements MapFunction<Batch, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Batch b) {
      return b.batchEnd();
    }
  }
}
