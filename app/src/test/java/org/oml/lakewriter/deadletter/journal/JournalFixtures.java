package org.oml.lakewriter.deadletter.journal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/** Fresh databases with the contract, poison outbox rows and their journal records. */
public final class JournalFixtures {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private JournalFixtures() {}

  /** A new database on the server, with the outbox contract applied; returns its JDBC URL. */
  public static String database(EmbeddedPostgresServer pg) throws SQLException {
    String name = "oml_dl_" + COUNTER.incrementAndGet();
    try (Connection c = pg.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    String url = "jdbc:postgresql://localhost:" + pg.port() + "/" + name;
    try (Connection c = connect(url)) {
      OutboxContract.apply(c, "oml_lake_pub");
    }
    return url;
  }

  public static Connection connect(String url) throws SQLException {
    return java.sql.DriverManager.getConnection(url, EmbeddedPostgresServer.USER, "");
  }

  /** A materialize row whose body does not hash to its ciphertext_digest (the digest of right). */
  public static long digestMismatch(Connection c, String tenant, byte[] right, byte[] wrong)
      throws SQLException {
    return materialize(c, tenant, EventValidator.sha256Hex(right), wrong);
  }

  public static long materialize(Connection c, String tenant, String digest, byte[] body)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, body, data_key_id)"
                + " VALUES (?, 'materialize', 'art-1', 3, 'wa-9', '/notes/x.md', 'alice',"
                + " 'alice@acme', 'bob', 'human', 'pd', ?, ?, 'dek-1') RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, digest);
      ps.setBytes(3, body);
      return single(ps);
    }
  }

  public static long unknownKind(Connection c, String tenant) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'bogus', '{}')"
                + " RETURNING seq")) {
      ps.setString(1, tenant);
      return single(ps);
    }
  }

  /** The record the job would journal for the outbox row, with the given error. */
  public static DeadLetterRecord record(
      Connection c, long seq, ErrorClass errorClass, String message) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT tx_id, tenant_id, kind, artifact_id, artifact_version, ciphertext_digest,"
                + " body FROM oml_outbox WHERE seq = ?")) {
      ps.setLong(1, seq);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long version = rs.getLong("artifact_version");
        OutboxEvent row =
            OutboxEvent.builder()
                .seq(seq)
                .txId(rs.getLong("tx_id"))
                .tenantId(rs.getString("tenant_id"))
                .kind(rs.getString("kind"))
                .artifactId(rs.getString("artifact_id"))
                .artifactVersion(rs.wasNull() ? null : version)
                .ciphertextDigest(rs.getString("ciphertext_digest"))
                .body(rs.getBytes("body"))
                .eventTimeMicros(1_700_000_000_000_000L)
                .error(new RowError(errorClass, message))
                .build();
        return DeadLetterRecord.of(row, "w1", 1_700_000_000_123_456L);
      }
    }
  }

  /**
   * A body: {@code s} in UTF-8, in the shape of a Tink ciphertext (0x01, a 4-byte key id, the
   * text, a 28-byte nonce-and-tag stand-in), which the writer admits (PLAINTEXT_BODY otherwise).
   */
  public static byte[] sealedBody(String s) {
    byte[] text = s.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[5 + text.length + 28];
    out[0] = 0x01;
    out[4] = 0x2a;
    System.arraycopy(text, 0, out, 5, text.length);
    return out;
  }

  public static long scalar(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long single(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
