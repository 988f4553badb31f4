package org.oml.lakewriter.verify;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.demo.BodyEncryption;
import org.oml.lakewriter.demo.DemoTraffic;
import org.oml.lakewriter.validate.EventValidator;

/**
 * {@code verify --decrypt-sample N}: opens the bodies of a sample of silver rows the way a reader
 * with the authority's keys would, and checks each plaintext against the row's {@code
 * plaintext_digest}. The data keys come from the demo's key store ({@value
 * DemoTraffic#DATA_KEY_TABLE}), unwrapped with Tink under the demo KEK ({@link BodyEncryption}).
 *
 * <p>The sample is {@code N} rows spread evenly over every silver row of the lake, in table and
 * key order, so that the same lake gives the same sample. Outcomes per row:
 *
 * <ul>
 *   <li>a live row (not {@code erased}) that opens to its digest: decrypted;
 *   <li>an {@code erased} row whose body is cleared or whose key is gone: unreadable, as expected;
 *   <li>findings: {@code DECRYPT_KEY_MISSING} (a live row's data key is not in the key store),
 *       {@code DECRYPT_FAILED} (Tink refused: wrong key, tampered body, another artifact's key),
 *       {@code PLAINTEXT_DIGEST_MISMATCH} (it opens, to other bytes), {@code DECRYPT_NO_BODY} (a
 *       live row without a body), and {@code ERASED_READABLE} (an erased row still opens: its key
 *       was not destroyed and its body not cleared).
 * </ul>
 */
public final class DecryptSample {
  private DecryptSample() {}

  /** How many rows were sampled, opened, and found erased (unreadable as expected); findings. */
  public record Result(int sampled, int decrypted, int erasedUnreadable, List<Finding> findings) {
    public Result {
      findings = List.copyOf(findings);
    }

    public boolean ok() {
      return findings.isEmpty();
    }
  }

  public static Result check(Connection keyStore, BodyEncryption keys, LakeReader lake, int n)
      throws IOException, SQLException {
    if (n <= 0) {
      return new Result(0, 0, 0, List.of());
    }
    requireKeyStore(keyStore);
    List<TableId> tables = new ArrayList<>();
    for (TableId t : lake.tables()) {
      if (t.kind() == TableKind.SILVER_MEMORIES) {
        tables.add(t);
      }
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    List<TableId> rowTables = new ArrayList<>();
    for (TableId t : tables) {
      for (Map<String, Object> row : lake.rows(t)) {
        rows.add(row);
        rowTables.add(t);
      }
    }
    int sampled = 0;
    int decrypted = 0;
    int erased = 0;
    List<Finding> findings = new ArrayList<>();
    int take = Math.min(n, rows.size());
    for (int i = 0; i < take; i++) {
      int index = (int) ((long) i * rows.size() / take);
      Map<String, Object> row = rows.get(index);
      String table = rowTables.get(index).relativePath();
      sampled++;
      switch (open(keyStore, keys, table, row, findings)) {
        case DECRYPTED -> decrypted++;
        case ERASED -> erased++;
        case FINDING -> {}
      }
    }
    return new Result(sampled, decrypted, erased, findings);
  }

  private enum Outcome {
    DECRYPTED,
    ERASED,
    FINDING
  }

  private static Outcome open(Connection keyStore, BodyEncryption keys, String table,
      Map<String, Object> row, List<Finding> findings) throws SQLException {
    String artifact = (String) row.get("artifact_id");
    String key = SilverFold.key(artifact, row.get("version"));
    boolean isErased = SilverFold.ERASED.equals(row.get("state"));
    byte[] body = (byte[]) row.get("body");
    byte[] wrapped = wrappedKey(keyStore, (String) row.get("data_key_id"));
    if (isErased && (body == null || wrapped == null)) {
      return Outcome.ERASED;
    }
    if (body == null) {
      findings.add(new Finding("DECRYPT_NO_BODY", table, key,
          "the row is " + row.get("state") + " but holds no body"));
      return Outcome.FINDING;
    }
    if (wrapped == null) {
      findings.add(new Finding("DECRYPT_KEY_MISSING", table, key,
          "data key " + row.get("data_key_id") + " is not in " + DemoTraffic.DATA_KEY_TABLE
              + ", but the row is " + row.get("state")));
      return Outcome.FINDING;
    }
    byte[] plaintext;
    try {
      plaintext = keys.decrypt(artifact, wrapped, body);
    } catch (GeneralSecurityException | RuntimeException e) {
      findings.add(new Finding(isErased ? "ERASED_READABLE" : "DECRYPT_FAILED", table, key,
          isErased
              ? "the row is erased, but its body and its data key are both still there"
              : "Tink could not open the body with data key " + row.get("data_key_id") + ": "
                  + e.getClass().getSimpleName()));
      return Outcome.FINDING;
    }
    if (isErased) {
      findings.add(new Finding("ERASED_READABLE", table, key,
          "the row is erased, but its body still opens with data key " + row.get("data_key_id")));
      return Outcome.FINDING;
    }
    String digest = EventValidator.sha256Hex(plaintext);
    if (!digest.equalsIgnoreCase(String.valueOf(row.get("plaintext_digest")))) {
      findings.add(new Finding("PLAINTEXT_DIGEST_MISMATCH", table, key,
          "sha256(plaintext) " + digest + " != plaintext_digest " + row.get("plaintext_digest")));
      return Outcome.FINDING;
    }
    return Outcome.DECRYPTED;
  }

  private static byte[] wrappedKey(Connection c, String dataKeyId) throws SQLException {
    if (dataKeyId == null) {
      return null;
    }
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT wrapped FROM " + DemoTraffic.DATA_KEY_TABLE + " WHERE data_key_id = ?")) {
      ps.setString(1, dataKeyId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    }
  }

  private static void requireKeyStore(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, DemoTraffic.DATA_KEY_TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          throw new ConfigException(
              "--decrypt-sample needs the key store table " + DemoTraffic.DATA_KEY_TABLE
                  + " (the demo's, filled by `lakewriter demo`) in the database of postgres.url;"
                  + " it is not there");
        }
      }
    }
  }
}
