package org.oml.lakewriter.validate;

import java.io.Serializable;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * The writer's own check of an outbox row. The database is not trusted to validate: a real
 * outbox may lack the contract's constraints. The first failing rule names the row's error; a
 * row that passes can be written as it is.
 */
public final class EventValidator implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Tenant ids become path segments of the lake: this pattern keeps them plain and short. */
  public static final Pattern TENANT_ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  /** Envelopes are checked token by token, never read into a tree (checkEnvelope). */
  private static final JsonFactory JSON = new JsonFactory();

  private final int maxBodyBytes;

  public EventValidator(int maxBodyBytes) {
    if (maxBodyBytes <= 0) {
      throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  /** The event, with its error set when a rule fails; an existing error is kept. */
  public OutboxEvent validate(OutboxEvent event) {
    if (event.error() != null) {
      return event;
    }
    return check(event).map(event::withError).orElse(event);
  }

  public static boolean isValidTenant(String tenantId) {
    return tenantId != null && TENANT_ID.matcher(tenantId).matches();
  }

  public static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JRE", e);
    }
  }

  private Optional<RowError> check(OutboxEvent e) {
    Optional<EventKind> kind = e.eventKind();
    if (kind.isEmpty()) {
      return error(ErrorClass.UNKNOWN_KIND, "unknown kind '" + e.kind() + "'");
    }
    if (!isValidTenant(e.tenantId())) {
      return error(
          ErrorClass.INVALID_TENANT,
          "tenant id '" + e.tenantId() + "' does not match " + TENANT_ID.pattern());
    }
    Optional<RowError> missing = missingField(kind.get(), e);
    if (missing.isPresent()) {
      return missing;
    }
    switch (kind.get()) {
      case JOURNAL:
        return checkEnvelope(e.envelope());
      case MATERIALIZE:
        return checkBody(e);
      default:
        return Optional.empty();
    }
  }

  private static Optional<RowError> missingField(EventKind kind, OutboxEvent e) {
    if (e.eventTimeMicros() == null) {
      return missing("event_time", kind);
    }
    switch (kind) {
      case JOURNAL:
        return firstMissing(kind, new Object[] {e.envelope()}, "envelope");
      case MATERIALIZE:
        return firstMissing(
            kind,
            new Object[] {
              e.artifactId(), e.artifactVersion(), e.workareaId(), e.writerIdentity(),
              e.principal(), e.ratifiedBy(), e.provenanceClass(), e.plaintextDigest(),
              e.ciphertextDigest(), e.body(), e.dataKeyId()
            },
            "artifact_id", "artifact_version", "workarea_id", "writer_identity", "principal",
            "ratified_by", "provenance_class", "plaintext_digest", "ciphertext_digest", "body",
            "data_key_id");
      case WORKAREA_VALIDATED:
        return firstMissing(
            kind,
            new Object[] {e.workareaId(), e.writerIdentity(), e.pathAtWrite()},
            "workarea_id", "writer_identity", "path_at_write");
      case WORKAREA_INVALIDATED:
        return firstMissing(
            kind,
            new Object[] {e.workareaId(), e.writerIdentity()},
            "workarea_id", "writer_identity");
      case REASSIGN:
        return firstMissing(
            kind,
            new Object[] {e.artifactId(), e.artifactVersion(), e.workareaId()},
            "artifact_id", "artifact_version", "workarea_id");
      default:
        return firstMissing(
            kind,
            new Object[] {e.artifactId(), e.artifactVersion()},
            "artifact_id", "artifact_version");
    }
  }

  private static Optional<RowError> firstMissing(
      EventKind kind, Object[] values, String... names) {
    for (int i = 0; i < values.length; i++) {
      // An empty string is as absent as a null: a blank ratifier must never admit a body.
      if (values[i] == null || (values[i] instanceof String && ((String) values[i]).isBlank())) {
        return missing(names[i], kind);
      }
    }
    return Optional.empty();
  }

  private static Optional<RowError> missing(String field, EventKind kind) {
    return error(ErrorClass.MISSING_FIELD, kind.wireName() + " row lacks " + field);
  }

  /**
   * The deepest nesting an envelope may have. A digest-only signed envelope is a few levels deep;
   * Flink's shaded Jackson 2.14 has no nesting limit of its own (2.15 brought one, of 1000), and a
   * row nested 100,000 deep was admitted to bronze, where every reader of the column must parse it
   * again (issue 16's fuzzing).
   */
  public static final int MAX_ENVELOPE_DEPTH = 64;

  /**
   * One pass over the envelope's tokens (no tree is built): every token must parse, the nesting
   * must stay within the bound (the pass stops as soon as it is passed), the text must hold one
   * value and no more, and that value must be an object. Until stop 52 a tree parse after the
   * token pass checked the last two; a text gets the same error class from this pass.
   */
  private static Optional<RowError> checkEnvelope(String envelope) {
    try (JsonParser parser = JSON.createParser(envelope)) {
      JsonToken first = parser.nextToken();
      JsonToken trailing = null; // the first token after the first value
      boolean ended = false;
      int depth = 0;
      for (JsonToken token = first; token != null; token = parser.nextToken()) {
        if (ended && trailing == null) {
          trailing = token;
        }
        if (token.isStructStart() && ++depth > MAX_ENVELOPE_DEPTH) {
          return error(
              ErrorClass.UNPARSEABLE_ENVELOPE,
              "envelope is nested deeper than " + MAX_ENVELOPE_DEPTH + " levels");
        } else if (token.isStructEnd()) {
          depth--;
        }
        ended |= depth == 0;
      }
      if (trailing != null) {
        return error(
            ErrorClass.UNPARSEABLE_ENVELOPE,
            "envelope is not JSON: trailing token (of type " + trailing + ") after its value");
      }
      if (first != JsonToken.START_OBJECT) {
        return error(ErrorClass.UNPARSEABLE_ENVELOPE, "envelope is not a JSON object");
      }
      return Optional.empty();
    } catch (java.io.IOException ex) {
      return error(ErrorClass.UNPARSEABLE_ENVELOPE, "envelope is not JSON: " + ex.getMessage());
    }
  }

  private Optional<RowError> checkBody(OutboxEvent e) {
    if (e.ratifiedBy().equals(e.writerIdentity())) {
      return error(
          ErrorClass.UNRATIFIED_BODY,
          "materialize ratified by its own writer '" + e.writerIdentity() + "': a held body");
    }
    if (e.body().length > maxBodyBytes) {
      return error(
          ErrorClass.BODY_TOO_LARGE,
          "body of " + e.body().length + " bytes is over the limit of " + maxBodyBytes);
    }
    String actual = sha256Hex(e.body());
    if (!actual.equalsIgnoreCase(e.ciphertextDigest())) {
      return error(
          ErrorClass.DIGEST_MISMATCH,
          "sha256(body) is " + actual + " but ciphertext_digest is " + e.ciphertextDigest());
    }
    // Last, so that a digest mismatch keeps its own class: a sealed body is the one whose digest
    // the producer computed over its ciphertext, and this tells a plaintext body apart.
    Optional<String> notSealed = TinkCiphertext.problem(e.body());
    if (notSealed.isPresent()) {
      return error(ErrorClass.PLAINTEXT_BODY, notSealed.get());
    }
    return Optional.empty();
  }

  private static Optional<RowError> error(ErrorClass errorClass, String message) {
    return Optional.of(new RowError(errorClass, message));
  }
}
