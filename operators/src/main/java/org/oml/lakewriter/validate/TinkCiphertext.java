package org.oml.lakewriter.validate;

import java.util.Optional;

/**
 * The shape of a body sealed the way the authority seals one ({@code demo/BodyEncryption}): the
 * output of a Tink {@code Aead} primitive of a keyset whose key has the {@code TINK} output-prefix
 * type (Tink's predefined {@code AES256_GCM} parameters). Checked without any key:
 *
 * <pre>
 *   byte 0       0x01            Tink's output prefix of a TINK key
 *   bytes 1..4   key id          big-endian id of the data key inside its keyset (not checked)
 *   bytes 5..    AEAD output     nonce (12 bytes for AES-GCM / ChaCha20-Poly1305, more for the
 *                                others), the encrypted payload, the 16-byte tag
 * </pre>
 *
 * <p>The other shape admitted is Tink's envelope encryption ({@code KmsEnvelopeAead}), for a
 * producer that seals each body with a fresh data key wrapped by a KMS:
 *
 * <pre>
 *   bytes 0..3   n               big-endian length of the wrapped data key, 0 &lt; n
 *   bytes 4..    wrapped key     n bytes, the KMS's ciphertext of the data key
 *   then         AEAD output     nonce, encrypted payload, tag (at least 28 bytes)
 * </pre>
 *
 * <p>So a sealed body is at least {@value #MIN_BYTES} bytes (the 33 bytes of overhead of an
 * AES-GCM ciphertext of an empty plaintext) and starts either with {@code 0x01} or with a
 * length that fits inside the body. A plaintext body (a producer that forgot to encrypt: UTF-8
 * text, JSON, Markdown) fails both: text never starts with the control byte 0x01, and its first
 * four bytes read as a length of hundreds of megabytes, far beyond the body.
 *
 * <p>What this cannot catch: a body that has the shape but is not ciphertext, e.g. a producer that
 * writes {@code 0x01}, four bytes and then plaintext. Only decryption, which needs the data key,
 * tells those apart. It also refuses, by design, ciphertexts of keys with the {@code RAW} (no
 * prefix) or {@code LEGACY}/{@code CRUNCHY} (prefix byte 0x00) output-prefix types: the contract's
 * producer uses {@code TINK} keys.
 */
public final class TinkCiphertext {
  /** The first byte of every ciphertext of a Tink key with output-prefix type TINK. */
  public static final byte TINK_START_BYTE = 0x01;

  /** The start byte and the 4-byte key id. */
  public static final int PREFIX_BYTES = 5;

  /** The smallest AEAD output of Tink: a 12-byte nonce and a 16-byte tag (AES-GCM, ChaCha20). */
  public static final int MIN_AEAD_BYTES = 28;

  public static final int MIN_BYTES = PREFIX_BYTES + MIN_AEAD_BYTES;

  private TinkCiphertext() {}

  /** Empty when {@code body} has the shape of a Tink ciphertext, else what is wrong with it. */
  public static Optional<String> problem(byte[] body) {
    if (body == null) {
      return Optional.of("no body");
    }
    if (body.length < MIN_BYTES) {
      return Optional.of(
          "body of "
              + body.length
              + " bytes is shorter than the "
              + MIN_BYTES
              + " bytes of any Tink AEAD ciphertext: not sealed");
    }
    if (body[0] == TINK_START_BYTE || isEnvelope(body)) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            "body starts with byte 0x%02x, neither Tink's output prefix 0x01 nor the length of a"
                + " wrapped data key (KmsEnvelopeAead): not a Tink ciphertext (plaintext, or a"
                + " key with another output-prefix type)",
            body[0] & 0xff));
  }

  /** The layout of {@code KmsEnvelopeAead}: a wrapped key whose length leaves an AEAD output. */
  private static boolean isEnvelope(byte[] body) {
    long wrappedKeyBytes =
        ((body[0] & 0xffL) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8)
            | (body[3] & 0xff);
    return wrappedKeyBytes > 0 && wrappedKeyBytes <= body.length - 4 - MIN_AEAD_BYTES;
  }

  public static boolean isWellFormed(byte[] body) {
    return problem(body).isEmpty();
  }
}
