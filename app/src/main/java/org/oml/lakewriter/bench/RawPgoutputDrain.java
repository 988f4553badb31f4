package org.oml.lakewriter.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * B1, the physical limit: pgoutput (proto_version 1) through pgjdbc's replication stream. Only the
 * message type, the relation of each Relation and Insert message and the Commit are looked at;
 * everything else is discarded. Ends at the first commit after {@code expected} inserts into the
 * outbox have been seen.
 */
public final class RawPgoutputDrain {
  private RawPgoutputDrain() {}

  /**
   * @param beforeClose runs once the last commit is seen, while the walsender still lives
   * @return inserts into {@code oml_outbox} seen
   */
  public static long drain(
      String jdbcUrl, String user, String password, String slot, String publication,
      long expected, Runnable beforeClose, long timeoutNanos)
      throws Exception {
    Properties p = new Properties();
    PGProperty.USER.set(p, user);
    PGProperty.PASSWORD.set(p, password == null ? "" : password);
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    long deadline = System.nanoTime() + timeoutNanos;
    try (Connection c = DriverManager.getConnection(jdbcUrl, p)) {
      PGConnection pg = c.unwrap(PGConnection.class);
      PGReplicationStream stream =
          pg.getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(slot)
              .withSlotOption("proto_version", 1)
              .withSlotOption("publication_names", publication)
              .withStatusInterval(5, TimeUnit.SECONDS)
              .start();
      int outboxRelation = -1;
      long inserts = 0;
      long messages = 0;
      try {
        while (true) {
          ByteBuffer buf = stream.readPending();
          if (buf == null) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException(
                  "B1 timed out after " + inserts + " of " + expected + " outbox inserts");
            }
            Thread.sleep(1);
            continue;
          }
          int pos = buf.position();
          byte type = buf.get(pos);
          if (type == 'R') {
            int relid = buf.getInt(pos + 1);
            int at = pos + 5;
            String namespace = cString(buf, at);
            at += namespace.getBytes(StandardCharsets.UTF_8).length + 1;
            if ("oml_outbox".equals(cString(buf, at))) {
              outboxRelation = relid;
            }
          } else if (type == 'I') {
            if (buf.getInt(pos + 1) == outboxRelation) {
              inserts++;
            }
          } else if (type == 'C' && inserts >= expected) {
            stream.setFlushedLSN(stream.getLastReceiveLSN());
            stream.setAppliedLSN(stream.getLastReceiveLSN());
            stream.forceUpdateStatus();
            return inserts;
          }
          if ((++messages & 0xFFFF) == 0) {
            stream.setFlushedLSN(stream.getLastReceiveLSN());
            stream.setAppliedLSN(stream.getLastReceiveLSN());
          }
        }
      } finally {
        beforeClose.run();
        stream.close();
      }
    }
  }

  private static String cString(ByteBuffer buf, int at) {
    int end = at;
    while (buf.get(end) != 0) {
      end++;
    }
    byte[] b = new byte[end - at];
    for (int i = 0; i < b.length; i++) {
      b[i] = buf.get(at + i);
    }
    return new String(b, StandardCharsets.UTF_8);
  }
}
