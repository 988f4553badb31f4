package org.oml.lakewriter.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Signs journal envelopes with one Ed25519 key per run (JDK provider).
 *
 * <p>Invariant: an envelope carries the digest of its payload and the signature over that digest,
 * never the payload, so a journal row says what was done and who did it without any content. The
 * key is shared by all threads of a run; a {@link Signature} is stateful, so each thread signs
 * through its own {@link Envelopes}.
 */
final class JournalSigner {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrivateKey key;
  private final String keyId;

  private JournalSigner(KeyPair pair) {
    this.key = pair.getPrivate();
    this.keyId =
        "demo-ed25519-" + EventValidator.sha256Hex(pair.getPublic().getEncoded()).substring(0, 12);
  }

  /** A signer with a fresh key: signatures differ on every run, digests do not. */
  static JournalSigner create() {
    try {
      return new JournalSigner(KeyPairGenerator.getInstance("Ed25519").generateKeyPair());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is part of every JDK 15+", e);
    }
  }

  /** Envelopes for one thread. */
  Envelopes envelopes() {
    try {
      Signature s = Signature.getInstance("Ed25519");
      s.initSign(key);
      return new Envelopes(s);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is part of every JDK 15+", e);
    }
  }

  /** Builds and signs envelopes on one thread. */
  final class Envelopes {
    private final Signature signature;

    private Envelopes(Signature signature) {
      this.signature = signature;
    }

    /** The envelope of a journal row, as JSON text. */
    String envelope(
        String tenant,
        String op,
        String artifactId,
        long version,
        String actor,
        String plaintextDigest) {
      ObjectNode payload = JSON.createObjectNode();
      payload.put("tenant", tenant);
      payload.put("op", op);
      payload.put("artifact_id", artifactId);
      payload.put("version", version);
      payload.put("actor", actor);
      payload.put("plaintext_digest", "sha256:" + plaintextDigest);
      String payloadDigest =
          "sha256:" + EventValidator.sha256Hex(payload.toString().getBytes(StandardCharsets.UTF_8));
      ObjectNode envelope = JSON.createObjectNode();
      envelope.put("alg", "ed25519");
      envelope.put("kid", keyId);
      envelope.put("op", op);
      envelope.put("payload_digest", payloadDigest);
      envelope.put("sig", sign(payloadDigest));
      return envelope.toString();
    }

    private String sign(String payloadDigest) {
      try {
        signature.update(payloadDigest.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(signature.sign());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("signing failed", e);
      }
    }
  }
}
