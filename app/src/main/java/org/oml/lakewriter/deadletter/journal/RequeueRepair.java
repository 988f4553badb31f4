package org.oml.lakewriter.deadletter.journal;

import java.util.EnumMap;
import java.util.Map;
import org.oml.lakewriter.event.ErrorClass;

/**
 * What repairs a dead letter of each {@link ErrorClass}, as {@code dead-letters requeue} tells the
 * operator (and docs/cli.md tabulates). A requeue copies the original row, so it helps only when
 * what changed is outside the row (the writer's options, the key registry, the writer's version) or
 * the body ({@code --body-file}, whose bytes must hash to the row's {@code ciphertext_digest}).
 * Errors in the row's own columns (tenant id, kind, envelope, missing fields) are repaired by the
 * producer writing a new, corrected outbox row; requeueing the copy would only dead-letter it again.
 */
public final class RequeueRepair {
  /** How a class is repaired; {@code bodyFile}: {@code --body-file} is the repair. */
  public record Repair(boolean requeueCanRepair, boolean bodyFile, String how) {}

  private static final Map<ErrorClass, Repair> REPAIRS = new EnumMap<>(ErrorClass.class);

  static {
    REPAIRS.put(
        ErrorClass.DIGEST_MISMATCH,
        new Repair(
            true,
            true,
            "requeue with --body-file FILE holding the right ciphertext (its sha256 must equal"
                + " the row's ciphertext_digest)"));
    REPAIRS.put(
        ErrorClass.BODY_TOO_LARGE,
        new Repair(
            true, false, "raise body.max-bytes (for the writer and this command), then requeue"));
    REPAIRS.put(
        ErrorClass.UNKNOWN_DATA_KEY,
        new Repair(
            true,
            false,
            "register the row's data_key_id in the key registry (keys.lookup-query), then"
                + " requeue"));
    REPAIRS.put(
        ErrorClass.DEPENDENCY_UNAVAILABLE,
        new Repair(
            true, false, "requeue once the key registry (keys.lookup-query) answers again"));
    REPAIRS.put(
        ErrorClass.SCHEMA_MISMATCH,
        new Repair(
            true,
            false,
            "bring the lake table's schema back to the writer's (or upgrade the writer), then"
                + " requeue"));
    REPAIRS.put(
        ErrorClass.UNKNOWN_KIND,
        new Repair(
            false,
            false,
            "the kind is unknown to this writer: upgrade the writer to a version that knows it"
                + " and then requeue, or have the producer insert a corrected row; --body-file"
                + " cannot change the kind"));
    REPAIRS.put(
        ErrorClass.UNPARSEABLE_ENVELOPE,
        new Repair(
            false,
            false,
            "the envelope column is not a JSON object and a requeue copies it unchanged: have"
                + " the producer insert a corrected row; --body-file cannot change the envelope"));
    REPAIRS.put(
        ErrorClass.INVALID_TENANT,
        new Repair(
            false,
            false,
            "tenant_id is not a valid tenant id and a requeue copies it unchanged: have the"
                + " producer insert a corrected row under the right tenant; --body-file cannot"
                + " change the tenant"));
    REPAIRS.put(
        ErrorClass.MISSING_FIELD,
        new Repair(
            false,
            false,
            "a required column is empty and a requeue copies it unchanged: have the producer"
                + " insert a corrected row"));
    REPAIRS.put(
        ErrorClass.MALFORMED_ROW,
        new Repair(
            false,
            false,
            "a column does not parse and a requeue copies it unchanged: have the producer insert"
                + " a corrected row"));
    REPAIRS.put(
        ErrorClass.UNRATIFIED_BODY,
        new Repair(
            false,
            false,
            "the promotion was ratified by its own writer: a second person must ratify it in a"
                + " new promotion row; never requeue it"));
    REPAIRS.put(
        ErrorClass.PLAINTEXT_BODY,
        new Repair(
            false,
            false,
            "the body is not a Tink ciphertext (likely plaintext): the producer must seal it and"
                + " insert a new promotion row; never requeue it"));
  }

  private RequeueRepair() {}

  /** The repair of a class; every class has one. */
  public static Repair of(ErrorClass errorClass) {
    Repair r = REPAIRS.get(errorClass);
    if (r == null) {
      throw new IllegalStateException("no repair documented for " + errorClass);
    }
    return r;
  }

  /** The repair of a class given by name (as the journal stores it); unknown names say so. */
  public static String describe(String errorClass) {
    try {
      return of(ErrorClass.valueOf(errorClass)).how();
    } catch (IllegalArgumentException | NullPointerException e) {
      return "no known repair for error class '" + errorClass + "'";
    }
  }
}
