package org.oml.lakewriter.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * The drain mix, one outbox row at a time, deterministic for a given seed: ~70% journal, ~20%
 * materialize with a random {@code bodyBytes} body whose sha256 is the ciphertext digest (and a
 * ratifier other than the writer, so the body is admitted), ~10% retracts (demote, erase,
 * simulation_end, reassign, rotating) of an artifact promoted earlier in the same tenant, picked at
 * random among its last {@value #REMEMBERED} promotions. Artifact ids are random (the producer's
 * prefix and 32 random hex digits), as a real producer's UUIDs are: they follow no order in time,
 * so statistics on {@code artifact_id} rule out no silver file, and a retraction must find its row
 * by key (the writer's key-to-file index), not by file pruning. Tenants rotate row by row. The
 * bulk load ({@link OutboxLoad}) and the producer
 * ({@link ProducerPeak}) both draw from it, so the benchmark drains and the producer inserts the
 * same kinds and sizes.
 */
public final class DrainMix {
  /** The 15 columns of {@link #next()}'s values, in order. */
  public static final String COLUMNS =
      "tenant_id, kind, artifact_id, artifact_version, workarea_id, path_at_write,"
          + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
          + " ciphertext_digest, body, data_key_id, envelope";
  public static final int WIDTH = 15;
  /** Index of {@code artifact_version} (a {@link Long}) in a row. */
  public static final int VERSION = 3;
  /** Index of {@code body} (a {@code byte[]} or null) in a row. */
  public static final int BODY = 12;

  private static final String[] RETRACTS = {"demote", "erase", "simulation_end", "reassign"};
  private static final HexFormat HEX = HexFormat.of();
  /** Promotions per tenant a retraction may pick from (the most recent ones). */
  static final int REMEMBERED = 4096;

  private final int tenants;
  private final int bodyBytes;
  private final String prefix;
  private final Random random;
  private final MessageDigest sha;
  /** Per tenant, a ring of its last {@link #REMEMBERED} promoted artifact ids. */
  private final String[][] promoted;

  private final int[] promotedCount;
  private long i;
  public long journal;
  public long materialize;
  public long retract;
  public long bodyTotal;

  /**
   * @param prefix prepended to artifact ids, so that several producers of one run do not reuse
   *     each other's ids
   */
  public DrainMix(int tenants, int bodyBytes, long seed, String prefix) {
    this.tenants = tenants;
    this.bodyBytes = bodyBytes;
    this.prefix = prefix;
    this.random = new Random(seed);
    try {
      this.sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    this.promoted = new String[tenants][REMEMBERED];
    this.promotedCount = new int[tenants];
  }

  /** The next row's 15 values ({@link #COLUMNS}); strings, a Long version, a byte[] body. */
  public Object[] next() {
    long n = i++;
    int t = (int) (n % tenants);
    String tenant = "tenant-" + t;
    int pick = random.nextInt(100);
    if (pick >= 90 && promotedCount[t] > 0) {
      String kind = RETRACTS[(int) (retract % RETRACTS.length)];
      String artifact = promoted[t][random.nextInt(Math.min(promotedCount[t], REMEMBERED))];
      retract++;
      return new Object[] {
        tenant, kind, artifact, 1L, "wa-2", null, null, null, null, null, null, null, null, null,
        null
      };
    } else if (pick >= 70 && pick < 90) {
      String artifact = randomId();
      promoted[t][promotedCount[t]++ % REMEMBERED] = artifact;
      return materialize(t, artifact);
    } else {
      return journal(t, prefix + "jr-" + n);
    }
  }

  /** A promotion of {@code artifact} in tenant {@code t}, with a random body. */
  public Object[] materialize(int t, String artifact) {
    String tenant = "tenant-" + t;
    byte[] body = new byte[bodyBytes];
    random.nextBytes(body);
    if (body.length > 0) {
      // Random bytes behind Tink's output prefix: the shape the writer admits (PLAINTEXT_BODY
      // otherwise); a body under TinkCiphertext.MIN_BYTES is dead-lettered as one.
      body[0] = org.oml.lakewriter.validate.TinkCiphertext.TINK_START_BYTE;
    }
    String ciphertextDigest = HEX.formatHex(sha.digest(body));
    String plaintextDigest =
        HEX.formatHex(sha.digest(("plain:" + artifact).getBytes(StandardCharsets.UTF_8)));
    materialize++;
    bodyTotal += bodyBytes;
    return new Object[] {
      tenant, "materialize", artifact, 1L, "wa-1", "/notes/" + artifact + ".md", "alice",
      "alice@" + tenant, "bob", "human", plaintextDigest, ciphertextDigest, body,
      "dek-" + artifact, null
    };
  }

  /** A signed journal event {@code artifact} in tenant {@code t}. */
  public Object[] journal(int t, String artifact) {
    String tenant = "tenant-" + t;
    String digest = HEX.formatHex(sha.digest(artifact.getBytes(StandardCharsets.UTF_8)));
    journal++;
    return new Object[] {
      tenant, "journal", artifact, 1L, null, null, "alice", "alice@" + tenant, null, null,
      digest, null, null, null,
      "{\"sig\":\"ed25519:" + digest.substring(0, 32) + "\",\"digest\":\"" + digest + "\"}"
    };
  }

  /** The producer's prefix and 32 random hex digits: a UUID's worth of randomness. */
  private String randomId() {
    byte[] id = new byte[16];
    random.nextBytes(id);
    return prefix + HEX.formatHex(id);
  }

  /** Appends one row as a CSV line: null is an unquoted empty field (NULL), the rest quoted. */
  public static void csv(StringBuilder sb, Object[] values) {
    for (int k = 0; k < values.length; k++) {
      if (k > 0) {
        sb.append(',');
      }
      Object v = values[k];
      if (v instanceof byte[] b) {
        sb.append("\"\\x").append(HEX.formatHex(b)).append('"');
      } else if (v != null) {
        sb.append('"').append(v.toString().replace("\"", "\"\"")).append('"');
      }
    }
    sb.append('\n');
  }
}
