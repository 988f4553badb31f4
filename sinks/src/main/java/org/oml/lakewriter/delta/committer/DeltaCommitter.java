package org.oml.lakewriter.delta.committer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase, run by Flink only after the checkpoint that holds the committables completed:
 * one Delta commit per table per batch, with {@code txn(oml-lakewriter, batchEnd)}. A silver
 * table's commit also carries the batch's MERGE: its rewritten files are added and the files they
 * replace are removed in that same commit, so a retraction lands with its batch or not at all.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Batches commit in {@code batchEnd} order and tables in path order. A batch never commits to
 *       a table before every earlier batch has: an older batch that lands after a newer one would
 *       be below the table's txn version and skipped forever. So a transient failure sends that
 *       batch and every later one back to Flink ({@code retryLater}); Flink retries a bounded
 *       number of times and then fails over.
 *   <li>Commits are idempotent: a table at or above {@code batchEnd} skips the batch, so a replay
 *       through a new committer, after a crash between tables, converges without duplicates.
 *   <li>A table that can never take a commit (see {@link TableUnusableException}) fails its batch
 *       with that precise reason and is fenced: later batches do not commit to it either (that
 *       would raise its version over the failed batch and hide the gap), and the frontier stops.
 *       Other tables keep flowing; the fenced table's rows stay in the outbox for re-enqueue.
 *   <li>The frontier is reported only after every table of a batch has the batch.
 * </ul>
 */
public final class DeltaCommitter implements Committer<DeltaCommittable> {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitter.class);

  private final DeltaTableClient client;
  private final FrontierListener frontier;

  /**
   * Tables that failed for a permanent reason, with the batch and reason of the first failure. A
   * silver table whose rewrite no longer matches it is fenced too: every later batch's rewrite was
   * planned on top of the failed one.
   */
  private final Map<TableId, String> fenced = new LinkedHashMap<>();

  public DeltaCommitter(DeltaTableClient client, FrontierListener frontier) {
    this.client = client;
    this.frontier = frontier;
  }

  @Override
  public void commit(Collection<CommitRequest<DeltaCommittable>> requests)
      throws IOException, InterruptedException {
    List<CommitRequest<DeltaCommittable>> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparingLong(r -> r.getCommittable().batchEnd()));
    long reached = Long.MIN_VALUE;
    for (int i = 0; i < ordered.size(); i++) {
      CommitRequest<DeltaCommittable> request = ordered.get(i);
      DeltaCommittable batch = request.getCommittable();
      try {
        BatchResult result = commitBatch(batch);
        if (result.failure != null) {
          request.signalFailedWithKnownReason(result.failure);
        } else {
          if (result.allAlreadyApplied) {
            request.signalAlreadyCommitted();
          }
          reached = batch.batchEnd();
        }
      } catch (IOException e) {
        retryLaterFrom(ordered, i, e);
        break;
      } catch (RuntimeException e) {
        LOG.error("batch {}: unexpected failure, failing over", batch.batchName(), e);
        request.signalFailedWithUnknownReason(e);
        return;
      }
    }
    publishFrontier(reached);
  }

  private BatchResult commitBatch(DeltaCommittable batch) throws IOException {
    if (batch.retractsWithoutRow() > 0) {
      LOG.info(
          "batch {}: {} retractions without a silver row (finding RETRACT_WITHOUT_ROW, in bronze"
              + " only)",
          batch.batchName(),
          batch.retractsWithoutRow());
    }
    BatchResult result = new BatchResult(!batch.tables().isEmpty());
    for (TableCommit table : batch.tables()) {
      String fence = fenced.get(table.table());
      if (fence != null) {
        result.fail(batch, table.table(), "is fenced since " + fence, null);
        continue;
      }
      try {
        CommitOutcome outcome =
            table.rewrite() == null
                ? client.commit(table.table(), batch.batchEnd(), table.files())
                : client.commitRewrite(
                    table.table(), batch.batchEnd(), table.files(), table.rewrite());
        result.allAlreadyApplied &= outcome == CommitOutcome.ALREADY_APPLIED;
        LOG.info(
            "batch {} table {}: {} ({} rows, {} files, {} files replaced)",
            batch.batchName(),
            table.table(),
            outcome,
            table.rowCount(),
            table.files().size(),
            table.removes().size());
      } catch (TableUnusableException e) {
        LOG.error(
            "batch {} table {}: cannot commit, fencing the table",
            batch.batchName(),
            table.table(),
            e);
        fenced.put(table.table(), "batch " + batch.batchName() + ": " + e.getMessage());
        result.fail(batch, table.table(), e.getMessage(), e);
      } catch (IOException e) {
        LOG.warn(
            "batch {} table {}: transient failure ({})",
            batch.batchName(),
            table.table(),
            e.getMessage());
        throw e;
      }
    }
    return result;
  }

  private static void retryLaterFrom(
      List<CommitRequest<DeltaCommittable>> ordered, int first, IOException cause) {
    DeltaCommittable failed = ordered.get(first).getCommittable();
    LOG.warn(
        "batch {}: retrying it and {} later batches, which must not overtake it",
        failed.batchName(),
        ordered.size() - first - 1,
        cause);
    for (int j = first; j < ordered.size(); j++) {
      ordered.get(j).retryLater();
    }
  }

  private void publishFrontier(long reached) {
    if (reached == Long.MIN_VALUE || !fenced.isEmpty()) {
      return;
    }
    try {
      frontier.frontierAdvanced(reached);
    } catch (IOException | RuntimeException e) {
      // A cache for `lakewriter status`: recovery reads each table's txn version instead.
      LOG.warn("frontier {}: not recorded ({}); the lake has it regardless", reached, e.toString());
    }
  }

  @Override
  public void close() throws Exception {
    try {
      client.close();
    } finally {
      frontier.close();
    }
  }

  /** The fate of one batch across its tables. */
  private static final class BatchResult {
    /** True while every table so far reported ALREADY_APPLIED; false for an empty batch. */
    boolean allAlreadyApplied;

    DeltaCommitException failure;

    BatchResult(boolean hasTables) {
      this.allAlreadyApplied = hasTables;
    }

    void fail(DeltaCommittable batch, TableId table, String reason, Throwable cause) {
      if (failure == null) {
        failure =
            new DeltaCommitException(
                "batch "
                    + batch.batchName()
                    + " table "
                    + table
                    + " not committed: "
                    + reason
                    + ". Its rows stay in the outbox; fix the table and re-enqueue them.",
                cause);
      }
    }
  }
}
