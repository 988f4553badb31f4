package org.oml.lakewriter.delta.writer;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 as lower-case hex, the form of {@code ciphertext_digest} in the outbox. */
public final class Digests {
  private Digests() {}

  public static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM must provide SHA-256", e);
    }
  }
}
