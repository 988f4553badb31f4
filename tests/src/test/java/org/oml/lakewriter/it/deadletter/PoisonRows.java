package org.oml.lakewriter.it.deadletter;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Outbox rows that the writer must dead-letter, one per permanent error class that a table under
 * the outbox contract can hold, written with plain SQL the way a buggy producer would.
 *
 * <p>Not here, because the contract makes them impossible: {@code SCHEMA_MISMATCH} (every contract
 * column exists; a dropped column would poison every later row, not one) and a wrong-typed column
 * value (the column types are fixed). {@code MALFORMED_ROW} is produced through a value the types
 * allow but the event model cannot hold: an {@code event_time} of {@code infinity}.
 */
final class PoisonRows {
  /** Bodies over this size are dead-lettered: the job runs with {@code body.max-bytes=4kb}. */
  static final int MAX_BODY = 4096;

  static final byte[] RIGHT =
      OutboxWriter.sealed("the ciphertext the authority signed".getBytes(StandardCharsets.UTF_8));
  static final byte[] GARBLED = "a ciphertext garbled on the way".getBytes(StandardCharsets.UTF_8);

  private PoisonRows() {}

  /** One row of each class, in this order; returns seq to the class it must be dead-lettered as. */
  static Map<Long, ErrorClass> everyClass(Connection c, String tenant) throws SQLException {
    Map<Long, ErrorClass> rows = new LinkedHashMap<>();
    rows.put(
        insert(
            c,
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'bogus', '{}')",
            tenant),
        ErrorClass.UNKNOWN_KIND);
    rows.put(
        insert(
            c,
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version)"
                + " VALUES (?, 'journal', 'a-no-envelope', 1)",
            tenant),
        ErrorClass.MISSING_FIELD);
    rows.put(
        insert(
            c,
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'journal', '{}')",
            "Bad Tenant!"),
        ErrorClass.INVALID_TENANT);
    rows.put(digestMismatch(c, tenant, "a-mismatch"), ErrorClass.DIGEST_MISMATCH);
    byte[] large = new byte[MAX_BODY + 1];
    rows.put(
        materialize(c, tenant, "a-large", "bob", EventValidator.sha256Hex(large), large),
        ErrorClass.BODY_TOO_LARGE);
    rows.put(
        insert(
            c,
            "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES (?, 'journal',"
                + " '{\"sig\": \"ed25519:abc\"')",
            tenant),
        ErrorClass.UNPARSEABLE_ENVELOPE);
    rows.put(
        materialize(c, tenant, "a-held", "alice", EventValidator.sha256Hex(RIGHT), RIGHT),
        ErrorClass.UNRATIFIED_BODY);
    rows.put(
        insert(
            c,
            "INSERT INTO oml_outbox (tenant_id, kind, envelope, event_time)"
                + " VALUES (?, 'journal', '{}', 'infinity')",
            tenant),
        ErrorClass.MALFORMED_ROW);
    return rows;
  }

  /**
   * A promotion whose body does not hash to its ciphertext_digest (the digest of {@link #RIGHT}).
   */
  static long digestMismatch(Connection c, String tenant, String artifact) throws SQLException {
    return materialize(c, tenant, artifact, "bob", EventValidator.sha256Hex(RIGHT), GARBLED);
  }

  static long materialize(
      Connection c, String tenant, String artifact, String ratifiedBy, String digest, byte[] body)
      throws SQLException {
    return materialize(c, tenant, artifact, ratifiedBy, digest, body, "dek-p");
  }

  /** A promotion under data key {@code dataKeyId}. */
  static long materialize(
      Connection c,
      String tenant,
      String artifact,
      String ratifiedBy,
      String digest,
      byte[] body,
      String dataKeyId)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, body, data_key_id)"
                + " VALUES (?, 'materialize', ?, 1, 'wa-1', '/notes/p.md', 'alice', 'alice@acme',"
                + " ?, 'human', 'pd', ?, ?, ?) RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, artifact);
      ps.setString(3, ratifiedBy);
      ps.setString(4, digest);
      ps.setBytes(5, body);
      ps.setString(6, dataKeyId);
      return seq(ps);
    }
  }

  private static long insert(Connection c, String sql, String tenant) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql + " RETURNING seq")) {
      ps.setString(1, tenant);
      return seq(ps);
    }
  }

  private static long seq(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
