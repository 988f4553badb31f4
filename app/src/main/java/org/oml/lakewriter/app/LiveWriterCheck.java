package org.oml.lakewriter.app;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Decides whether the process that holds {@code postgres.slot} is a live writer, which start-up
 * must refuse at once, or a dead writer's leftover, which it waits for ({@code postgres.slot-wait}).
 *
 * <p>{@link #REPLICATION_ACTIVITY} judges from {@code pg_stat_replication} alone. A leader lease
 * (holder, epoch, expiry, renewed by the running job) is the exact answer; plug it in with {@link
 * #or}, in {@link Preflight#LIVE_WRITER}.
 */
@FunctionalInterface
public interface LiveWriterCheck {
  /** A walsender that streams to a client that replies: see {@link SlotHolder#liveReason()}. */
  LiveWriterCheck REPLICATION_ACTIVITY = (c, cfg, holder) -> Optional.ofNullable(holder.liveReason());

  /**
   * @return why the holder counts as a live writer (for the refusal message), or empty when it may
   *     be a dead writer's leftover that start-up should wait for
   */
  Optional<String> liveWriter(Connection c, LakeWriterConfig cfg, SlotHolder holder)
      throws SQLException;

  /** Live if this check or {@code other} says so. */
  default LiveWriterCheck or(LiveWriterCheck other) {
    return (c, cfg, holder) -> {
      Optional<String> mine = liveWriter(c, cfg, holder);
      return mine.isPresent() ? mine : other.liveWriter(c, cfg, holder);
    };
  }
}
