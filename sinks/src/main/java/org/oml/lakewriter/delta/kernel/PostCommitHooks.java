package org.oml.lakewriter.delta.kernel;

import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.hook.PostCommitHook;
import org.oml.lakewriter.delta.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the post-commit hooks that Kernel returns but does not run: a Parquet checkpoint of the log
 * every {@code delta.checkpointInterval} commits, the {@code .crc} checksum of each version, and a
 * log compaction file ({@code <first>.<last>.compacted.json}, the reconciled actions of a run of
 * commits) every {@code lake.log-compaction-interval} commits.
 *
 * <p>A hook runs after its commit is durable, so a failed hook never fails the commit: a missing
 * checkpoint, checksum or log compaction only makes the next snapshot load read more of the log.
 * It is logged and the next due hook catches up.
 *
 * <p>After a checkpoint, the log files past {@code delta.logRetentionDuration} are deleted
 * ({@link LogCleanup}), which Kernel skips for the checkpoints of its hook.
 */
final class PostCommitHooks {
  private static final Logger LOG = LoggerFactory.getLogger(PostCommitHooks.class);

  private PostCommitHooks() {}

  static void run(
      Engine engine, String tablePath, TableId table, long batchEnd, TransactionCommitResult result) {
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      try {
        hook.threadSafeInvoke(engine);
        if (hook.getType() == PostCommitHook.PostCommitHookType.CHECKPOINT
            && result.getPostCommitSnapshot().isPresent()) {
          LogCleanup.run(
              engine,
              tablePath,
              table,
              result.getPostCommitSnapshot().get(),
              System.currentTimeMillis(),
              LogCleanup.MAX_DELETES_PER_RUN);
        }
      } catch (CheckpointAlreadyExistsException e) {
        LOG.debug("{} checkpoint of version {} already exists", table, result.getVersion());
      } catch (Exception e) {
        LOG.warn(
            "{} post-commit hook {} failed after committing version {} (txn {}); the commit stands",
            table,
            hook.getType(),
            result.getVersion(),
            batchEnd,
            e);
      }
    }
  }

}
