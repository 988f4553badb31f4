package org.oml.lakewriter.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/** Waits on the frontier the sink publishes after every table of a batch has committed. */
public final class CommittedFrontier {
  private CommittedFrontier() {}

  public static long read(TestDatabase db, String writerId) {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement("SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, writerId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      return 0;
    }
  }

  public static void await(TestDatabase db, String writerId, long seq, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (read(db, writerId) >= seq) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "committed frontier of " + writerId + " is " + read(db, writerId) + ", never reached " + seq);
  }
}
