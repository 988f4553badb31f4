package org.oml.lakewriter.app;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The replication slot named {@code postgres.slot} as PostgreSQL shows it: which database it
 * belongs to, whether a process holds it, and what that process is doing, from {@code
 * pg_replication_slots}, {@code pg_stat_activity} and {@code pg_stat_replication}.
 *
 * @param exists the slot exists (in any database of the cluster: slot names are cluster-wide)
 * @param database the slot's database; {@code null} for a physical slot
 * @param active a process holds the slot
 * @param pid the holder's pid
 * @param backendType e.g. {@code walsender}
 * @param state the holder's backend state ({@code active}, {@code idle}, ...)
 * @param waitEvent {@code type/event} the holder waits on, e.g. {@code Lock/transactionid}
 * @param query the holder's current command, e.g. {@code CREATE_REPLICATION_SLOT ...}
 * @param stateSeconds how long the holder has been in its state
 * @param replicationState {@code pg_stat_replication.state}: startup, catchup, streaming, ...
 * @param replySeconds age of the last reply of the holder's client; {@code null}: none yet
 */
public record SlotHolder(
    boolean exists,
    String database,
    boolean active,
    int pid,
    String backendType,
    String state,
    String waitEvent,
    String query,
    Long stateSeconds,
    String replicationState,
    Long replySeconds) {

  /**
   * A client that streams replies at least this often is alive: Debezium reports its position
   * every 10 s ({@code status.update.interval.ms}) and answers the walsender's keepalives. A
   * client that stopped replying longer ago is dead or cut off, and the walsender ends at {@code
   * wal_sender_timeout}.
   */
  static final long LIVE_REPLY_SECONDS = 30;

  static SlotHolder read(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT s.database, s.active, s.active_pid, a.backend_type, a.state,"
                + " a.wait_event_type || '/' || a.wait_event AS wait_event,"
                + " left(a.query, 200) AS query,"
                + " extract(epoch FROM now() - a.state_change)::bigint AS state_s,"
                + " r.state AS replication_state,"
                + " extract(epoch FROM now() - r.reply_time)::bigint AS reply_s"
                + " FROM pg_replication_slots s"
                + " LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid"
                + " LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid"
                + " WHERE s.slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new SlotHolder(false, null, false, 0, null, null, null, null, null, null, null);
        }
        return new SlotHolder(
            true,
            rs.getString("database"),
            rs.getBoolean("active"),
            rs.getInt("active_pid"),
            rs.getString("backend_type"),
            rs.getString("state"),
            rs.getString("wait_event"),
            rs.getString("query"),
            (Long) rs.getObject("state_s", Long.class),
            rs.getString("replication_state"),
            (Long) rs.getObject("reply_s", Long.class));
      }
    }
  }

  /**
   * Why the holder looks like a live writer, from PostgreSQL's views alone: a walsender that
   * streams (or catches up) and whose client replied recently, or has not yet had to. {@code
   * null} when it looks like a dead writer's leftover: a walsender still inside {@code
   * CREATE_REPLICATION_SLOT} (it waits for the cluster's open transactions before it notices
   * that its client is gone), or one whose client stopped replying.
   */
  String liveReason() {
    boolean streaming = "streaming".equals(replicationState) || "catchup".equals(replicationState);
    if (!streaming) {
      return null;
    }
    if (replySeconds == null) {
      return "its walsender is " + replicationState + " and its client has not had to reply yet";
    }
    return replySeconds <= LIVE_REPLY_SECONDS
        ? "its walsender is " + replicationState + " and its client replied " + replySeconds
            + " s ago"
        : null;
  }

  /** The holder for a message: pid, what it is and what it waits on, since when. */
  String describe() {
    StringBuilder b = new StringBuilder("pid ").append(pid);
    b.append(" (").append(backendType == null ? "process gone from pg_stat_activity" : backendType);
    if (state != null) {
      b.append(", state ").append(state);
      if (stateSeconds != null) {
        b.append(" for ").append(stateSeconds).append(" s");
      }
    }
    if (waitEvent != null) {
      b.append(", waiting on ").append(waitEvent);
    }
    if (replicationState != null) {
      b.append(", replication ").append(replicationState);
      b.append(replySeconds == null ? ", no reply yet" : ", last reply " + replySeconds + " s ago");
    }
    if (query != null && !query.isBlank()) {
      b.append(", query: ").append(query.strip());
    }
    return b.append(')').toString();
  }
}
