package org.oml.lakewriter.demo;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.Configuration;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.TinkProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import com.google.crypto.tink.aead.PredefinedAeadParameters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Objects;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Envelope encryption of memory bodies, the way the authority seals a body before it promotes it
 * (Tink 1.24.0, only the overloads that take a {@link Configuration}).
 *
 * <p>Each artifact gets a fresh AES256_GCM keyset, its data key (DEK). The body is encrypted under
 * the DEK with the artifact id as associated data. The DEK is then wrapped (encrypted) with the
 * key-encryption key (KEK), again bound to the artifact id, and stored by the authority next to a
 * data-key id. The lake only ever sees the ciphertext, its digests and the data-key id.
 *
 * <p><b>Demo only:</b> the KEK is an AES256_GCM keyset kept as a <em>cleartext</em> JSON keyset in
 * {@value #KEK_FILE_NAME} under a key directory. It is created on first use and reused after, so
 * that ciphertexts written by one run can be opened by the next. A production deployment keeps the
 * KEK in a KMS (Cloud KMS, AWS KMS, Vault transit, an HSM) and never lets it leave there: the wrap
 * and unwrap calls go to the KMS's {@link Aead}, and nothing in this class changes except where
 * {@code kekAead} comes from.
 *
 * <p>Instances are thread-safe.
 */
public final class BodyEncryption {
  /** The name of the cleartext KEK keyset file inside the key directory. */
  public static final String KEK_FILE_NAME = "demo-kek.json";

  private final Configuration configuration;
  private final Aead kekAead;
  private final Path kekFile;

  private BodyEncryption(Configuration configuration, Aead kekAead, Path kekFile) {
    this.configuration = configuration;
    this.kekAead = kekAead;
    this.kekFile = kekFile;
  }

  /**
   * Opens the KEK in {@code keyDirectory}, creating the directory and a new KEK on first use. Two
   * processes that open the same fresh directory at once end up with the same KEK: the file is
   * published with an atomic link, and the loser reads the winner's key.
   */
  public static BodyEncryption open(Path keyDirectory)
      throws IOException, GeneralSecurityException {
    Objects.requireNonNull(keyDirectory, "keyDirectory");
    AeadConfig.register();
    Configuration configuration = RegistryConfiguration.get();
    Files.createDirectories(keyDirectory);
    Path kekFile = keyDirectory.resolve(KEK_FILE_NAME);
    if (!Files.exists(kekFile)) {
      KeysetHandle kek =
          KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM, configuration);
      publish(
          kekFile,
          TinkJsonProtoKeysetFormat.serializeKeyset(
              kek, configuration, InsecureSecretKeyAccess.get()));
    }
    KeysetHandle kek =
        TinkJsonProtoKeysetFormat.parseKeyset(
            Files.readString(kekFile, StandardCharsets.UTF_8),
            configuration,
            InsecureSecretKeyAccess.get());
    if (!PredefinedAeadParameters.AES256_GCM.equals(kek.getPrimary().getKey().getParameters())) {
      throw new GeneralSecurityException(
          "the KEK in "
              + kekFile
              + " is not an AES256_GCM keyset: "
              + kek.getPrimary().getKey().getParameters());
    }
    return new BodyEncryption(configuration, kek.getPrimitive(configuration, Aead.class), kekFile);
  }

  /** The file that holds the demo KEK. */
  public Path kekFile() {
    return kekFile;
  }

  /**
   * Seals one artifact's body under a fresh data key and wraps that key with the KEK. Both the
   * ciphertext and the wrapped key are bound to {@code artifactId}.
   */
  public EncryptedBody encrypt(String artifactId, byte[] plaintext)
      throws GeneralSecurityException {
    byte[] associatedData = associatedData(artifactId);
    Objects.requireNonNull(plaintext, "plaintext");
    KeysetHandle dek = KeysetHandle.generateNew(PredefinedAeadParameters.AES256_GCM, configuration);
    byte[] ciphertext =
        dek.getPrimitive(configuration, Aead.class).encrypt(plaintext, associatedData);
    byte[] wrapped =
        TinkProtoKeysetFormat.serializeEncryptedKeyset(dek, kekAead, associatedData, configuration);
    return new EncryptedBody(
        ciphertext,
        wrapped,
        dataKeyId(wrapped),
        EventValidator.sha256Hex(plaintext),
        EventValidator.sha256Hex(ciphertext));
  }

  /**
   * Unwraps the data key with the KEK and opens the body. A wrong artifact id, a key wrapped by
   * another KEK, or a changed byte in either input throws {@link GeneralSecurityException}.
   */
  public byte[] decrypt(String artifactId, byte[] wrappedDataKey, byte[] ciphertext)
      throws GeneralSecurityException {
    byte[] associatedData = associatedData(artifactId);
    Objects.requireNonNull(wrappedDataKey, "wrappedDataKey");
    Objects.requireNonNull(ciphertext, "ciphertext");
    KeysetHandle dek =
        TinkProtoKeysetFormat.parseEncryptedKeyset(
            wrappedDataKey, kekAead, associatedData, configuration);
    return dek.getPrimitive(configuration, Aead.class).decrypt(ciphertext, associatedData);
  }

  /**
   * The id under which a wrapped data key is stored: {@code "dek-"} and the first 128 bits of the
   * wrapped key's sha256, in hex. Stable for a given wrapped key, so a key store can check that a
   * key matches its id.
   */
  public static String dataKeyId(byte[] wrappedDataKey) {
    return "dek-" + EventValidator.sha256Hex(wrappedDataKey).substring(0, 32);
  }

  private static byte[] associatedData(String artifactId) {
    if (artifactId == null || artifactId.isEmpty()) {
      throw new IllegalArgumentException("artifact id must not be empty");
    }
    return artifactId.getBytes(StandardCharsets.UTF_8);
  }

  /** Writes a temp file, then links it into place: atomic, and never replaces an existing KEK. */
  private static void publish(Path kekFile, String json) throws IOException {
    Path dir = kekFile.getParent();
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    Path tmp =
        posix
            ? Files.createTempFile(
                dir,
                ".kek-",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(dir, ".kek-", ".tmp");
    try {
      Files.writeString(tmp, json, StandardCharsets.UTF_8);
      try {
        Files.createLink(kekFile, tmp);
      } catch (UnsupportedOperationException noLinks) {
        Files.move(tmp, kekFile); // no REPLACE_EXISTING: fails when another process won
      }
    } catch (FileAlreadyExistsException anotherProcessWon) {
      // Keep theirs; the caller reads the file.
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * One sealed body. {@code plaintextDigest} and {@code ciphertextDigest} are lower-case sha256
   * hex, as the outbox stores them. {@link #toString()} prints sizes and ids, never key bytes.
   */
  public record EncryptedBody(
      byte[] ciphertext,
      byte[] wrappedDataKey,
      String dataKeyId,
      String plaintextDigest,
      String ciphertextDigest) {

    @Override
    public boolean equals(Object o) {
      return o instanceof EncryptedBody e
          && Arrays.equals(ciphertext, e.ciphertext)
          && Arrays.equals(wrappedDataKey, e.wrappedDataKey)
          && dataKeyId.equals(e.dataKeyId)
          && plaintextDigest.equals(e.plaintextDigest)
          && ciphertextDigest.equals(e.ciphertextDigest);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(ciphertext) * 31 + dataKeyId.hashCode();
    }

    @Override
    public String toString() {
      return "EncryptedBody{dataKeyId="
          + dataKeyId
          + ", ciphertext="
          + ciphertext.length
          + " bytes, wrappedDataKey="
          + wrappedDataKey.length
          + " bytes, ciphertextDigest="
          + ciphertextDigest
          + "}";
    }
  }
}
