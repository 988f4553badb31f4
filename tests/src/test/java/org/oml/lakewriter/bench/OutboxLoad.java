package org.oml.lakewriter.bench;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.Random;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * Loads the outbox once, fast: CSV {@code COPY} in transactions of {@code chunk} rows through
 * pgjdbc's {@link CopyManager}. The {@code BEFORE INSERT} row trigger assigns {@code seq} and
 * {@code tx_id} exactly as on the authority's write path.
 *
 * <p>Mix: ~70% journal, ~20% materialize with a random {@code bodyBytes} body whose sha256 is the
 * ciphertext digest (and a ratifier other than the writer, so the body is admitted), ~10% retracts
 * (demote, erase, simulation_end, reassign, rotating) of an artifact promoted earlier in the same
 * tenant. Deterministic for a given seed.
 */
final class OutboxLoad {
  static final String COLUMNS =
      "tenant_id, kind, artifact_id, artifact_version, workarea_id, path_at_write,"
          + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
          + " ciphertext_digest, body, data_key_id, envelope";
  private static final String[] RETRACTS = {"demote", "erase", "simulation_end", "reassign"};
  private static final HexFormat HEX = HexFormat.of();

  record Result(
      long rows, long journal, long materialize, long retract, long bodyBytes, double seconds) {}

  private OutboxLoad() {}

  static Result load(Connection c, long events, int tenants, int bodyBytes, int chunk, long seed)
      throws Exception {
    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    Random random = new Random(seed);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    @SuppressWarnings("unchecked")
    ArrayDeque<String>[] promoted = new ArrayDeque[tenants];
    for (int t = 0; t < tenants; t++) {
      promoted[t] = new ArrayDeque<>();
    }
    long journal = 0, materialize = 0, retract = 0, bodyTotal = 0;
    byte[] body = new byte[bodyBytes];
    long start = System.nanoTime();
    StringBuilder sb = new StringBuilder(chunk * 400);
    int inChunk = 0;
    for (long i = 0; i < events; i++) {
      int t = (int) (i % tenants);
      String tenant = "tenant-" + t;
      int pick = random.nextInt(100);
      if (pick >= 90 && !promoted[t].isEmpty()) {
        String kind = RETRACTS[(int) (retract % RETRACTS.length)];
        // a promoted artifact of this tenant, recent ones more often
        String artifact = pickPromoted(promoted[t], random);
        row(sb, tenant, kind, artifact, "1", "wa-2", null, null, null, null, null, null, null,
            null, null, null);
        retract++;
      } else if (pick >= 70 && pick < 90) {
        random.nextBytes(body);
        String artifact = "art-" + i;
        String ciphertextDigest = HEX.formatHex(sha.digest(body));
        String plaintextDigest =
            HEX.formatHex(sha.digest(("plain:" + artifact).getBytes(StandardCharsets.UTF_8)));
        row(sb, tenant, "materialize", artifact, "1", "wa-1", "/notes/" + artifact + ".md",
            "alice", "alice@" + tenant, "bob", "human", plaintextDigest, ciphertextDigest,
            "\\x" + HEX.formatHex(body), "dek-" + artifact, null);
        promoted[t].addLast(artifact);
        if (promoted[t].size() > 4096) {
          promoted[t].removeFirst();
        }
        materialize++;
        bodyTotal += bodyBytes;
      } else {
        String artifact = "jr-" + i;
        String digest =
            HEX.formatHex(sha.digest(artifact.getBytes(StandardCharsets.UTF_8)));
        row(sb, tenant, "journal", artifact, "1", null, null, "alice", "alice@" + tenant, null,
            null, digest, null, null, null,
            "{\"\"sig\"\":\"\"ed25519:" + digest.substring(0, 32) + "\"\",\"\"digest\"\":\"\""
                + digest + "\"\"}");
        journal++;
      }
      if (++inChunk == chunk || i == events - 1) {
        copy.copyIn(
            "COPY oml_outbox (" + COLUMNS + ") FROM STDIN WITH (FORMAT csv)",
            new StringReader(sb.toString()));
        sb.setLength(0);
        inChunk = 0;
      }
    }
    c.setAutoCommit(auto);
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(events, journal, materialize, retract, bodyTotal, seconds);
  }

  private static String pickPromoted(ArrayDeque<String> promoted, Random random) {
    int skip = random.nextInt(Math.min(promoted.size(), 64));
    var it = promoted.descendingIterator();
    String a = it.next();
    for (int k = 0; k < skip && it.hasNext(); k++) {
      a = it.next();
    }
    return a;
  }

  /** One CSV line; null is an unquoted empty field (NULL), other values are quoted. */
  private static void row(StringBuilder sb, String... values) {
    for (int k = 0; k < values.length; k++) {
      if (k > 0) {
        sb.append(',');
      }
      String v = values[k];
      if (v != null) {
        sb.append('"').append(v).append('"');
      }
    }
    sb.append('\n');
  }

  static long scalar(Connection c, String sql) throws SQLException {
    try (var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
