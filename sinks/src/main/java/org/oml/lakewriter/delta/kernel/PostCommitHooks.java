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
 * every {@code delta.checkpointInterval} commits, and the {@code .crc} checksum of each version.
 *
 * <p>A hook runs after its commit is durable, so a failed hook never fails the commit: a missing
 * checkpoint or checksum only makes the next snapshot load read more of the log. It is logged and
 * the next due hook catches up.
 */
final class PostCommitHooks {
  private static final Logger LOG = LoggerFactory.getLogger(PostCommitHooks.class);

  private PostCommitHooks() {}

  static void run(Engine engine, TableId table, long batchEnd, TransactionCommitResult result) {
    for (PostCommitHook hook : result.getPostCommitHooks()) {
      try {
        hook.threadSafeInvoke(engine);
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
