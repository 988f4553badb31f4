package org.oml.lakewriter.doctor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Counts over the outbox that stay cheap on a billion-row outbox. None scans the table: each walks
 * the primary key on {@code seq} (an index range scan, index-only once the visibility map is set)
 * and stops after a bound, so the cost is at most {@code limit} index entries whatever the outbox
 * holds. A count that reaches its bound is a lower bound and says so; {@link #seqSpan} gives the
 * matching upper bound from sequence arithmetic (docs/doctor.md, "Counting on a large outbox").
 */
public final class OutboxCounts {
  /** The default bound of a count: exact below it, "at least" at it. */
  public static final long DEFAULT_LIMIT = 100_000;

  private OutboxCounts() {}

  /** A bounded count: {@code count} rows, exact unless {@code capped}. */
  public record Bounded(long count, boolean capped) {
    public String bound() {
      return capped ? "at_least" : "exact";
    }
  }

  /** Rows with {@code above < seq <= upTo}, counted to at most {@code limit}. */
  public static Bounded rowsBetween(Connection c, long above, long upTo, long limit)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT count(*) FROM (SELECT 1 FROM oml_outbox WHERE seq > ? AND seq <= ?"
                + " ORDER BY seq LIMIT ?) t")) {
      ps.setLong(1, above);
      ps.setLong(2, upTo);
      ps.setLong(3, limit + 1);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long n = rs.getLong(1);
        return n > limit ? new Bounded(limit, true) : new Bounded(n, false);
      }
    }
  }

  /** Rows with {@code seq > above}, counted to at most {@code limit}. */
  public static Bounded rowsAbove(Connection c, long above, long limit) throws SQLException {
    return rowsBetween(c, above, Long.MAX_VALUE, limit);
  }

  /**
   * The sequence's last handed-out value (0 before the first): an upper bound on any seq that
   * exists or may still commit.
   */
  public static long sequenceLastValue(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END"
                    + " FROM oml_outbox_seq");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Seqs handed out above {@code frontier}: an upper bound on the rows behind it (rolled-back and
   * still-open seqs are counted too), from one read of the sequence.
   */
  public static long seqSpan(Connection c, long frontier) throws SQLException {
    return Math.max(0, sequenceLastValue(c) - frontier);
  }
}
