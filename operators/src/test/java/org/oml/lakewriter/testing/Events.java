package org.oml.lakewriter.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * Outbox rows for tests. The digest here is computed with the JDK directly, not with the
 * validator's helper, so that a broken helper cannot agree with itself.
 */
public final class Events {
  private Events() {}

  /** Every byte value once, 0x00 to 0xff. */
  public static byte[] allByteValues() {
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    return bytes;
  }

  /**
   * Every byte value once, behind Tink's 5-byte output prefix (0x01 and a key id): a body that has
   * the shape of a Tink ciphertext ({@code validate/TinkCiphertext}), as a materialize row's body
   * must. 289 bytes.
   */
  public static byte[] sealedBody() {
    return sealed(allByteValues());
  }

  /**
   * {@code payload} in the shape of a Tink ciphertext: 0x01, a 4-byte key id, the payload, and a
   * 28-byte nonce-and-tag stand-in. Not encryption: a fixture for tests that need a body the
   * writer admits. A payload that already has the shape is returned as it is.
   */
  public static byte[] sealed(byte[] payload) {
    if (payload.length >= 33 && payload[0] == 0x01) {
      return payload;
    }
    byte[] out = new byte[5 + payload.length + 28];
    out[0] = 0x01;
    out[4] = 0x2a;
    System.arraycopy(payload, 0, out, 5, payload.length);
    return out;
  }

  /** A plain journal row at {@code seq}; valid. */
  public static OutboxEvent.Builder journal(long seq) {
    return OutboxEvent.builder()
        .seq(seq)
        .txId(1_000 + seq)
        .tenantId("acme")
        .kind(EventKind.JOURNAL)
        .envelope("{\"digest\":\"d" + seq + "\"}")
        .eventTimeMicros(1_700_000_000_000_000L + seq);
  }

  /** A journal row of exactly {@code bytes} estimated bytes (64 fixed plus the strings). */
  public static OutboxEvent sized(long seq, int bytes) {
    OutboxEvent bare = OutboxEvent.builder().seq(seq).build();
    int filler = bytes - (int) bare.estimatedBytes();
    if (filler < 0) {
      throw new IllegalArgumentException("a row is at least " + bare.estimatedBytes() + " bytes");
    }
    return OutboxEvent.builder().seq(seq).envelope("x".repeat(filler)).build();
  }

  /** A valid materialize row: ratified by another identity, digest of its body. */
  public static OutboxEvent.Builder materialize(long seq, byte[] body) {
    return OutboxEvent.builder()
        .seq(seq)
        .txId(2_000 + seq)
        .tenantId("acme")
        .kind(EventKind.MATERIALIZE)
        .artifactId("art-" + seq)
        .artifactVersion(3L)
        .workareaId("wa-1")
        .pathAtWrite("/notes/a.md")
        .writerIdentity("agent:writer")
        .principal("user:alice")
        .ratifiedBy("user:bob")
        .provenanceClass("human")
        .plaintextDigest("ab".repeat(32))
        .ciphertextDigest(sha256Hex(body))
        .body(body)
        .dataKeyId("dk-1")
        .eventTimeMicros(1_700_000_000_000_000L + seq);
  }

  /** Every field set, non-ASCII text, every byte value in the body, and an error marker. */
  public static OutboxEvent everyField(long seq) {
    return materialize(seq, allByteValues())
        .pathAtWrite("/wörk/ünï/📁/näme.md")
        .envelope("{\"sig\":\"é\"}")
        .requeueOf(seq - 1)
        .error(new RowError(ErrorClass.DIGEST_MISMATCH, "sha256(body) differs — ünï"))
        .build();
  }

  /** Only the primitives set: every nullable field null. */
  public static OutboxEvent nulls(long seq) {
    return OutboxEvent.builder().seq(seq).txId(-seq).build();
  }

  public static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** A string whose UTF-8 form is over 64 KiB: what {@code writeUTF} cannot write. */
  public static String over64KiB() {
    String s = "ü".repeat(40_000) + "x".repeat(1_000);
    if (s.getBytes(StandardCharsets.UTF_8).length <= 65_535) {
      throw new AssertionError("fixture too short");
    }
    return s;
  }

  /** Parses hex that may be split over lines. */
  public static byte[] hex(String text) {
    return HexFormat.of().parseHex(text.replaceAll("\\s", ""));
  }

  /** Hex in lines of 64 characters, for pasting stored bytes into a test. */
  public static String hexLines(byte[] bytes) {
    String hex = HexFormat.of().formatHex(bytes);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < hex.length(); i += 64) {
      sb.append(hex, i, Math.min(hex.length(), i + 64)).append('\n');
    }
    return sb.toString();
  }
}
