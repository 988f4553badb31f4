package org.oml.lakewriter.cli.log;

import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.Node;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginAttribute;
import org.apache.logging.log4j.core.config.plugins.PluginFactory;
import org.apache.logging.log4j.core.filter.AbstractFilter;

/**
 * Drops the log events that every clean {@code lakewriter run} stop printed with a 60-line stack
 * trace, and nothing else:
 *
 * <ul>
 *   <li>always: the periodic checkpoint that stop-with-savepoint aborts when it suspends the
 *       checkpoint coordinator or shuts its scheduler down ({@link
 *       CheckpointFailureReason#CHECKPOINT_COORDINATOR_SUSPEND}, {@link
 *       CheckpointFailureReason#PERIODIC_SCHEDULER_SHUTDOWN}), logged at WARN by Flink's {@code
 *       CheckpointFailureManager}. That abort is how stop-with-savepoint works, and Flink does not
 *       count it as a failure either. Every other checkpoint failure passes.
 *   <li>only once {@link #stopping()} was called (SIGTERM): Debezium's ERROR "Producer failure"
 *       caused by the replication connection's socket being closed ("Socket is closed", or
 *       pgjdbc's "PGStream is closed" when the close came before the read), which is the source
 *       closing its own connection as the job finishes. The same error while the job runs still
 *       shows.
 * </ul>
 */
@Plugin(
    name = "StopSavepointNoiseFilter",
    category = Node.CATEGORY,
    elementType = Filter.ELEMENT_TYPE,
    printObject = true)
public final class StopSavepointNoiseFilter extends AbstractFilter {
  private StopSavepointNoiseFilter(Result onMatch, Result onMismatch) {
    super(onMatch, onMismatch);
  }

  private static volatile boolean stopping;

  /** The CLI is stopping the job (SIGTERM): its sources closing their connections is expected. */
  public static void stopping() {
    stopping = true;
  }

  @Override
  public Result filter(LogEvent event) {
    Throwable thrown = event.getThrown();
    return isStopAbort(thrown) || (stopping && isClosedSocket(thrown)) ? onMatch : onMismatch;
  }

  static boolean isStopAbort(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CheckpointException c) {
        CheckpointFailureReason reason = c.getCheckpointFailureReason();
        return reason == CheckpointFailureReason.CHECKPOINT_COORDINATOR_SUSPEND
            || reason == CheckpointFailureReason.PERIODIC_SCHEDULER_SHUTDOWN;
      }
    }
    return false;
  }

  static boolean isClosedSocket(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.net.SocketException && "Socket is closed".equals(t.getMessage())) {
        return true;
      }
      // pgjdbc's form of the same, when the stream was closed before the read began.
      if (t instanceof java.sql.SQLException && "PGStream is closed".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** {@code onMatch} defaults to DENY (the event is dropped), {@code onMismatch} to NEUTRAL. */
  @PluginFactory
  public static StopSavepointNoiseFilter createFilter(
      @PluginAttribute("onMatch") Result onMatch, @PluginAttribute("onMismatch") Result onMismatch) {
    return new StopSavepointNoiseFilter(
        onMatch == null ? Result.DENY : onMatch, onMismatch == null ? Result.NEUTRAL : onMismatch);
  }
}
