package org.oml.lakewriter.delta.testing;

import java.nio.charset.StandardCharsets;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.validate.EventValidator;

/** Outbox events for tests: valid by default, with bodies whose digests match. */
public final class Events {
  private Events() {}

  public static OutboxEvent journal(long seq, String tenant) {
    return base(seq, tenant, EventKind.JOURNAL).envelope("{\"digest\":\"j" + seq + "\"}").build();
  }

  /**
   * {@code payload} in the shape of a Tink ciphertext ({@code validate/TinkCiphertext}): 0x01, a
   * 4-byte key id, the payload and a 28-byte nonce-and-tag stand-in. Not encryption: the body a
   * test promotion needs for the writer to admit it (PLAINTEXT_BODY otherwise).
   */
  public static byte[] sealed(String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[5 + bytes.length + 28];
    out[0] = 0x01;
    out[4] = 0x2a;
    System.arraycopy(bytes, 0, out, 5, bytes.length);
    return out;
  }

  /** A valid promotion: ratified by someone else, a sealed body ({@link #sealed}), its digest. */
  public static OutboxEvent materialize(long seq, String tenant, String body) {
    byte[] bytes = sealed(body);
    return base(seq, tenant, EventKind.MATERIALIZE)
        .ratifiedBy("reviewer-" + seq)
        .body(bytes)
        .ciphertextDigest(EventValidator.sha256Hex(bytes))
        .dataKeyId("key-" + seq)
        .build();
  }

  public static OutboxEvent retraction(long seq, String tenant, EventKind kind) {
    return base(seq, tenant, kind).build();
  }

  /** A valid promotion of {@code artifactId@version} in workarea {@code wa-1}. */
  public static OutboxEvent promote(
      long seq, String tenant, String artifactId, long version, String body) {
    return materialize(seq, tenant, body).toBuilder()
        .artifactId(artifactId)
        .artifactVersion(version)
        .build();
  }

  /** A retraction of {@code artifactId@version}; a reassign moves it to workarea {@code wa-9}. */
  public static OutboxEvent retract(
      long seq, String tenant, EventKind kind, String artifactId, long version) {
    return base(seq, tenant, kind)
        .artifactId(artifactId)
        .artifactVersion(version)
        .workareaId(kind == EventKind.REASSIGN ? "wa-9" : "wa-1")
        .pathAtWrite(null)
        .build();
  }

  public static OutboxEvent.Builder base(long seq, String tenant, EventKind kind) {
    return OutboxEvent.builder()
        .seq(seq)
        .txId(1000 + seq)
        .tenantId(tenant)
        .kind(kind)
        .artifactId("art-" + (seq % 7))
        .artifactVersion(seq)
        .workareaId("wa-1")
        .pathAtWrite("/notes/" + seq)
        .writerIdentity("writer-" + seq)
        .principal("principal-1")
        .provenanceClass("human")
        .plaintextDigest("p" + seq)
        .ciphertextDigest("c" + seq)
        .eventTimeMicros(1_700_000_000_000_000L + seq);
  }

  /**
   * A mix of every kind for one tenant over {@code (from, to]}; materialize bodies named by seq.
   */
  public static java.util.List<OutboxEvent> mixed(String tenant, long from, long to) {
    java.util.List<OutboxEvent> events = new java.util.ArrayList<>();
    for (long seq = from + 1; seq <= to; seq++) {
      events.add(
          switch ((int) (seq % 4)) {
            case 0 -> materialize(seq, tenant, "body-" + tenant + "-" + seq);
            case 1 -> retraction(seq, tenant, EventKind.DEMOTE);
            default -> journal(seq, tenant);
          });
    }
    return events;
  }
}
