package org.oml.lakewriter.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.validate.EventValidator;

class BodyEncryptionTest {
  @TempDir Path dir;

  private static byte[] memoryText() {
    StringBuilder sb = new StringBuilder("# Incident review (acme)\n\n");
    while (sb.length() < 1024) {
      sb.append("The on-call engineer measured again the p99 latency of the ingestion path. ");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void roundTripsAndReportsDigestsAndKeyId() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir.resolve("keys"));
    byte[] plaintext = memoryText();

    BodyEncryption.EncryptedBody sealed = enc.encrypt("mem-1", plaintext);

    assertThat(enc.decrypt("mem-1", sealed.wrappedDataKey(), sealed.ciphertext()))
        .isEqualTo(plaintext);
    assertThat(sealed.plaintextDigest())
        .isEqualTo(EventValidator.sha256Hex(plaintext))
        .matches("[0-9a-f]{64}");
    assertThat(sealed.ciphertextDigest())
        .isEqualTo(EventValidator.sha256Hex(sealed.ciphertext()))
        .matches("[0-9a-f]{64}");
    assertThat(sealed.dataKeyId())
        .matches("dek-[0-9a-f]{32}")
        .isEqualTo(BodyEncryption.dataKeyId(sealed.wrappedDataKey()));
    // Tink AES-GCM: 5-byte key prefix, 12-byte nonce, 16-byte tag.
    assertThat(sealed.ciphertext()).hasSize(plaintext.length + 33);
    assertThat(sealed.toString()).doesNotContain("wrappedDataKey=[");
  }

  /**
   * Issue 16: the writer admits a body by its shape alone (validate/TinkCiphertext). The real
   * producer's ciphertext has it, for every plaintext size, the empty one included; the plaintext
   * does not.
   */
  /**
   * A producer that uses Tink's envelope encryption instead ({@code KmsEnvelopeAead}: a fresh data
   * key per body, wrapped by a KMS key) is admitted too, for every plaintext size.
   */
  @Test
  void tinkEnvelopeEncryptionHasTheShapeTheWriterChecks() throws Exception {
    com.google.crypto.tink.aead.AeadConfig.register();
    com.google.crypto.tink.Aead kms =
        com.google.crypto.tink.KeysetHandle.generateNew(
                com.google.crypto.tink.aead.PredefinedAeadParameters.AES256_GCM)
            .getPrimitive(
                com.google.crypto.tink.RegistryConfiguration.get(), com.google.crypto.tink.Aead.class);
    com.google.crypto.tink.Aead envelope =
        com.google.crypto.tink.aead.KmsEnvelopeAead.create(
            com.google.crypto.tink.aead.PredefinedAeadParameters.AES256_GCM, kms);
    for (int size : new int[] {0, 1, 32, 1000}) {
      byte[] ciphertext =
          envelope.encrypt("p".repeat(size).getBytes(StandardCharsets.UTF_8), new byte[0]);

      assertThat(ciphertext[0]).as("the wrapped key's length comes first").isZero();
      assertThat(org.oml.lakewriter.validate.TinkCiphertext.isWellFormed(ciphertext)).isTrue();
    }
  }

  @Test
  void theCiphertextHasTheShapeTheWriterChecksAndThePlaintextDoesNot() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    for (int size : new int[] {0, 1, 32, 1000}) {
      byte[] plaintext = "p".repeat(size).getBytes(StandardCharsets.UTF_8);
      byte[] ciphertext = enc.encrypt("mem-" + size, plaintext).ciphertext();

      assertThat(ciphertext[0]).isEqualTo(org.oml.lakewriter.validate.TinkCiphertext.TINK_START_BYTE);
      assertThat(ciphertext.length)
          .isEqualTo(size + org.oml.lakewriter.validate.TinkCiphertext.MIN_BYTES);
      assertThat(org.oml.lakewriter.validate.TinkCiphertext.isWellFormed(ciphertext)).isTrue();
    }
    assertThat(org.oml.lakewriter.validate.TinkCiphertext.isWellFormed(memoryText())).isFalse();
  }

  @Test
  void everyArtifactGetsItsOwnDataKey() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    byte[] plaintext = memoryText();
    BodyEncryption.EncryptedBody a = enc.encrypt("mem-1", plaintext);
    BodyEncryption.EncryptedBody b = enc.encrypt("mem-1", plaintext);

    assertThat(a.dataKeyId()).isNotEqualTo(b.dataKeyId());
    assertThat(a.ciphertext()).isNotEqualTo(b.ciphertext());
    assertThat(a.plaintextDigest()).isEqualTo(b.plaintextDigest());
    // A's key does not open B's body.
    assertThatThrownBy(() -> enc.decrypt("mem-1", a.wrappedDataKey(), b.ciphertext()))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void kekIsCreatedOnceAndReusedFromTheFileAcrossInstances() throws Exception {
    Path keys = dir.resolve("keys");
    BodyEncryption first = BodyEncryption.open(keys);
    Path kekFile = first.kekFile();
    assertThat(kekFile).exists().hasParent(keys);
    String kekJson = Files.readString(kekFile);
    BodyEncryption.EncryptedBody sealed = first.encrypt("mem-7", memoryText());

    BodyEncryption second = BodyEncryption.open(keys);

    assertThat(Files.readString(second.kekFile())).isEqualTo(kekJson);
    assertThat(second.decrypt("mem-7", sealed.wrappedDataKey(), sealed.ciphertext()))
        .isEqualTo(memoryText());
    assertThat(kekJson).contains("AesGcmKey");
  }

  @Test
  void concurrentFirstUseAgreesOnOneKek() throws Exception {
    Path keys = dir.resolve("race");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<BodyEncryption>> opened = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        opened.add(pool.submit(() -> BodyEncryption.open(keys)));
      }
      BodyEncryption.EncryptedBody sealed = opened.get(0).get().encrypt("mem-r", memoryText());
      for (Future<BodyEncryption> f : opened) {
        assertThat(f.get().decrypt("mem-r", sealed.wrappedDataKey(), sealed.ciphertext()))
            .isEqualTo(memoryText());
      }
    } finally {
      pool.shutdownNow();
    }
    try (var files = Files.list(keys)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactly(BodyEncryption.KEK_FILE_NAME);
    }
  }

  @Test
  void wrongAssociatedDataFails() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    BodyEncryption.EncryptedBody sealed = enc.encrypt("mem-1", memoryText());

    assertThatThrownBy(() -> enc.decrypt("mem-2", sealed.wrappedDataKey(), sealed.ciphertext()))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void wrongKekFails() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir.resolve("one"));
    BodyEncryption other = BodyEncryption.open(dir.resolve("two"));
    BodyEncryption.EncryptedBody sealed = enc.encrypt("mem-1", memoryText());

    assertThat(Files.readString(other.kekFile())).isNotEqualTo(Files.readString(enc.kekFile()));
    assertThatThrownBy(() -> other.decrypt("mem-1", sealed.wrappedDataKey(), sealed.ciphertext()))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void tamperedCiphertextOrWrappedKeyFails() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    BodyEncryption.EncryptedBody sealed = enc.encrypt("mem-1", memoryText());
    Random random = new Random(7);
    for (int i = 0; i < 20; i++) {
      byte[] ct = sealed.ciphertext().clone();
      ct[random.nextInt(ct.length)] ^= (byte) (1 << random.nextInt(8));
      assertThatThrownBy(() -> enc.decrypt("mem-1", sealed.wrappedDataKey(), ct))
          .isInstanceOf(GeneralSecurityException.class);
    }
    byte[] truncated = java.util.Arrays.copyOf(sealed.ciphertext(), sealed.ciphertext().length - 1);
    assertThatThrownBy(() -> enc.decrypt("mem-1", sealed.wrappedDataKey(), truncated))
        .isInstanceOf(GeneralSecurityException.class);
    byte[] wrapped = sealed.wrappedDataKey().clone();
    wrapped[wrapped.length - 1] ^= 1;
    assertThatThrownBy(() -> enc.decrypt("mem-1", wrapped, sealed.ciphertext()))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Test
  void ciphertextNeverContainsThePlaintext() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    byte[] plaintext = memoryText();
    BodyEncryption.EncryptedBody sealed = enc.encrypt("mem-1", plaintext);

    // No 8-byte window of the plaintext appears in the ciphertext or in the wrapped key.
    Set<String> ctWindows = windows(sealed.ciphertext(), 8);
    Set<String> keyWindows = windows(sealed.wrappedDataKey(), 8);
    for (String w : windows(plaintext, 8)) {
      assertThat(ctWindows).doesNotContain(w);
      assertThat(keyWindows).doesNotContain(w);
    }
    String asText = new String(sealed.ciphertext(), StandardCharsets.ISO_8859_1);
    assertThat(asText).doesNotContain("Incident review").doesNotContain("latency");
  }

  @Test
  void emptyArtifactIdIsRefused() throws Exception {
    BodyEncryption enc = BodyEncryption.open(dir);
    assertThatThrownBy(() -> enc.encrypt("", memoryText()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Set<String> windows(byte[] bytes, int width) {
    Set<String> out = new HashSet<>();
    for (int i = 0; i + width <= bytes.length; i++) {
      out.add(new String(bytes, i, width, StandardCharsets.ISO_8859_1));
    }
    return out;
  }
}
