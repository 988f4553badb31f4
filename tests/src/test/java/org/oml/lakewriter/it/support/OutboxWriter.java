package org.oml.lakewriter.it.support;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.oml.lakewriter.validate.EventValidator;
import org.oml.lakewriter.validate.TinkCiphertext;

/** Inserts realistic outbox rows, the way the authority's write path does. */
public final class OutboxWriter {
  private OutboxWriter() {}

  public static long journal(Connection c, String tenant, String artifact) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
                + " writer_identity, principal, plaintext_digest, envelope)"
                + " VALUES (?, 'journal', ?, 1, 'alice', 'alice@" + tenant + "', ?, ?)"
                + " RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, artifact);
      ps.setString(3, EventValidator.sha256Hex(artifact.getBytes(StandardCharsets.UTF_8)));
      ps.setString(4, "{\"sig\":\"ed25519:abc\",\"digest\":\"" + artifact + "\"}");
      return seqOf(ps);
    }
  }

  /**
   * {@code n} valid journal events in one statement, artifacts {@code prefix-1} to {@code
   * prefix-n}, row {@code i} of tenant {@code tenants[i % tenants.length]}: their seqs, ascending.
   */
  public static List<Long> bulkJournal(Connection c, String prefix, int n, String... tenants)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version,"
                + " writer_identity, principal, plaintext_digest, envelope)"
                + " SELECT t, 'journal', a, 1, 'alice', 'alice@' || t,"
                + "   encode(sha256(convert_to(a, 'UTF8')), 'hex'),"
                + "   '{\"sig\":\"ed25519:abc\",\"digest\":\"' || a || '\"}'"
                + " FROM generate_series(1, ?) AS i,"
                + "   LATERAL (SELECT (?::text[])[1 + i % ?] AS t, ? || '-' || i AS a) x"
                + " ORDER BY i RETURNING seq")) {
      ps.setInt(1, n);
      ps.setArray(2, c.createArrayOf("text", tenants));
      ps.setInt(3, tenants.length);
      ps.setString(4, prefix);
      List<Long> seqs = new ArrayList<>(n);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
      seqs.sort(null);
      return seqs;
    }
  }

  /**
   * {@code payload} in the shape of a Tink ciphertext ({@code validate/TinkCiphertext}): 0x01, a
   * 4-byte key id, the payload and a 28-byte nonce-and-tag stand-in. Not encryption: the writer
   * only checks the shape (PLAINTEXT_BODY otherwise). A payload that has the shape is kept as is.
   */
  public static byte[] sealed(byte[] payload) {
    if (TinkCiphertext.isWellFormed(payload)) {
      return payload;
    }
    byte[] out = new byte[5 + payload.length + 28];
    out[0] = TinkCiphertext.TINK_START_BYTE;
    out[4] = 0x2a;
    System.arraycopy(payload, 0, out, 5, payload.length);
    return out;
  }

  /** A ratified promotion; {@code ciphertext} is stored {@link #sealed}. */
  public static long materialize(
      Connection c, String tenant, String artifact, long version, byte[] payload)
      throws SQLException {
    byte[] ciphertext = sealed(payload);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
                + " path_at_write, writer_identity, principal, ratified_by, provenance_class,"
                + " plaintext_digest, ciphertext_digest, body, data_key_id)"
                + " VALUES (?, 'materialize', ?, ?, 'wa-1', '/notes/a.md', 'alice',"
                + " 'alice@acme', 'bob', 'human', ?, ?, ?, ?) RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, artifact);
      ps.setLong(3, version);
      ps.setString(4, EventValidator.sha256Hex(("plain:" + artifact).getBytes(StandardCharsets.UTF_8)));
      ps.setString(5, EventValidator.sha256Hex(ciphertext));
      ps.setBytes(6, ciphertext);
      ps.setString(7, "dek-" + artifact);
      return seqOf(ps);
    }
  }

  public static long retract(Connection c, String tenant, String kind, String artifact, long version)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id)"
                + " VALUES (?, ?, ?, ?, 'wa-2') RETURNING seq")) {
      ps.setString(1, tenant);
      ps.setString(2, kind);
      ps.setString(3, artifact);
      ps.setLong(4, version);
      return seqOf(ps);
    }
  }

  private static long seqOf(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
