package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.hook.PostCommitHook;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the post-commit hooks that Kernel returns but does not run, the {@code .crc} checksum of
 * each version and a log compaction file ({@code <first>.<last>.compacted.json}, the reconciled
 * actions of a run of commits) every {@code lake.log-compaction-interval} commits; and writes a
 * Parquet checkpoint of the log every {@code delta.checkpointInterval} commits, at the versions
 * that the client's {@link LogCheckpointSchedule} names.
 *
 * <p>A hook runs after its commit is durable, so a failed hook never fails the commit: a missing
 * checkpoint, checksum or log compaction only makes the next snapshot load read more of the log.
 * It is logged and the next due hook catches up.
 *
 * <p>The checkpoint and the checksum run on the commit path, as the next snapshot load relies on
 * them. The checkpoint is written from the commit's post-commit snapshot when Kernel returns one
 * (4.4 does for our commits, rebased ones included; the API makes it optional), otherwise from the
 * snapshot of its version loaded again. Kernel's own checkpoint hook is not used: it always loads
 * that snapshot again, which lists the whole {@code _delta_log} directory twice, a cost that grows
 * with the table's age (docs/scale.md, "Log checkpoints from the post-commit snapshot"), and it is
 * due at the multiples of the interval, which all the tables written in the same rounds reach
 * together. The log compaction only spares a later reader some reads, so it goes to the client's
 * background thread ({@link Deferred}), and so does the log cleanup after a checkpoint ({@link
 * LogCleanup}), which Kernel skips for both kinds of checkpoint.
 */
final class PostCommitHooks {
  private static final Logger LOG = LoggerFactory.getLogger(PostCommitHooks.class);

  private PostCommitHooks() {}

  /** What a commit's hooks leave to the client's background thread. */
  record Deferred(boolean checkpointed, List<PostCommitHook> logCompactions) {}

  /**
   * Runs the commit's hooks except its log compaction, which it returns with whether a log
   * checkpoint was written (then the log cleanup is due). Kernel's own checkpoint hook, due at the
   * multiples of the interval, is dropped: {@code checkpointDue} says whether this commit writes
   * one ({@link LogCheckpointSchedule}).
   */
  static Deferred run(
      Engine engine,
      TableId table,
      String tablePath,
      long batchEnd,
      TransactionCommitResult result,
      boolean checkpointDue) {
    List<PostCommitHook> logCompactions = new ArrayList<>();
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      if (hook.getType() == PostCommitHook.PostCommitHookType.LOG_COMPACTION) {
        logCompactions.add(hook);
      } else if (hook.getType() != PostCommitHook.PostCommitHookType.CHECKPOINT) {
        invoke(engine, table, batchEnd, result.getVersion(), hook);
      }
    }
    boolean checkpointed =
        checkpointDue
            && invoke(
                engine, table, batchEnd, result.getVersion(), checkpoint(tablePath, result));
    return new Deferred(checkpointed, logCompactions);
  }

  /**
   * A hook that writes the log checkpoint of the commit's version: from the commit's post-commit
   * snapshot, or, for a commit without one, from that version's snapshot loaded again.
   */
  private static PostCommitHook checkpoint(String tablePath, TransactionCommitResult result) {
    long version = result.getVersion();
    Optional<Snapshot> after =
        result.getPostCommitSnapshot().filter(snapshot -> snapshot.getVersion() == version);
    return new PostCommitHook() {
      @Override
      public void threadSafeInvoke(Engine engine) throws IOException {
        if (after.isPresent()) {
          after.get().writeCheckpoint(engine);
        } else {
          Table.forPath(engine, tablePath).checkpoint(engine, version);
        }
      }

      @Override
      public PostCommitHookType getType() {
        return PostCommitHookType.CHECKPOINT;
      }
    };
  }

  /** Runs one hook of the commit of {@code version}; returns whether it ran without a failure. */
  static boolean invoke(
      Engine engine, TableId table, long batchEnd, long version, PostCommitHook hook) {
    try {
      hook.threadSafeInvoke(engine);
      return true;
    } catch (CheckpointAlreadyExistsException e) {
      LOG.debug("{} checkpoint of version {} already exists", table, version);
    } catch (Exception e) {
      LOG.warn(
          "{} post-commit hook {} failed after committing version {} (txn {}); the commit stands",
          table,
          hook.getType(),
          version,
          batchEnd,
          e);
    }
    return false;
  }
}
