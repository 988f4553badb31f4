package org.oml.lakewriter.delta.writer;

import java.util.Optional;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Decides the tables of one event. The rule that matters most: a body reaches the lake only from a
 * valid {@code materialize} row whose body hashes to its {@code ciphertext_digest} and that was
 * ratified by someone other than its writer (ADR-0003 d3). Every other body is dropped here; a dead
 * letter keeps only its digest.
 *
 * <p>Validation upstream should already have flagged most of these rows; this router checks the
 * body rules again because a held body in the lake cannot be taken back.
 *
 * <ul>
 *   <li>invalid tenant id: {@code _invalid/dead_letter} (the id is not trusted as a path);
 *   <li>a row with an error: its tenant's {@code dead_letter};
 *   <li>materialize without artifact key, unratified, or with a body that does not match its
 *       digest: {@code dead_letter} ({@code MISSING_FIELD}, {@code UNRATIFIED_BODY}, {@code
 *       DIGEST_MISMATCH});
 *   <li>a retraction without artifact key, or a reassign without workarea: {@code dead_letter}
 *       ({@code MISSING_FIELD}), since it cannot MERGE on its key;
 *   <li>a {@code workarea_validated}/{@code workarea_invalidated} without workarea, identity, time
 *       (or path, for a validation): {@code dead_letter} ({@code MISSING_FIELD}), since it cannot
 *       set its {@code gold/workareas} row;
 *   <li>otherwise bronze, and silver too for materialize (a retraction reaches silver as a MERGE,
 *       planned by {@link BatchPlanner}).
 * </ul>
 */
public final class EventRouter {
  public Route route(OutboxEvent event) {
    String tenant = event.tenantId();
    if (!TableId.isValidTenant(tenant)) {
      RowError error =
          event.error() != null
              ? event.error()
              : new RowError(
                  ErrorClass.INVALID_TENANT, "tenant id does not match [a-z0-9][a-z0-9_-]{0,62}");
      return Route.deadLetter(TableId.INVALID_TENANT_PREFIX, error);
    }
    if (event.error() != null) {
      return Route.deadLetter(tenant, event.error());
    }
    Optional<EventKind> kind = event.eventKind();
    if (kind.isEmpty()) {
      return Route.deadLetter(tenant, new RowError(ErrorClass.UNKNOWN_KIND, "unknown kind"));
    }
    if (kind.get().isRetraction()) {
      RowError keyError = checkRetraction(kind.get(), event);
      return keyError == null ? Route.bronze(tenant) : Route.deadLetter(tenant, keyError);
    }
    if (kind.get().isWorkareaValidation()) {
      RowError fieldError = checkValidation(kind.get(), event);
      return fieldError == null ? Route.bronze(tenant) : Route.deadLetter(tenant, fieldError);
    }
    if (kind.get() != EventKind.MATERIALIZE) {
      return Route.bronze(tenant);
    }
    RowError bodyError = checkMaterialize(event);
    return bodyError == null ? Route.bronzeAndSilver(tenant) : Route.deadLetter(tenant, bodyError);
  }

  /** A retraction MERGEs on its key; without one (or a reassign without a workarea) it cannot. */
  private static RowError checkRetraction(EventKind kind, OutboxEvent event) {
    if (event.artifactId() == null || event.artifactVersion() == null) {
      return new RowError(
          ErrorClass.MISSING_FIELD, kind.wireName() + " without artifact_id/version");
    }
    if (kind == EventKind.REASSIGN && event.workareaId() == null) {
      return new RowError(ErrorClass.MISSING_FIELD, "reassign without workarea_id");
    }
    return null;
  }

  /**
   * A validation event sets a {@code gold/workareas} row from its fields (gold-rules.md): without
   * its workarea, identity, time (or, for {@code workarea_validated}, the path) it cannot, and a
   * gold rebuild from bronze could not either. Same messages as the validator's.
   */
  private static RowError checkValidation(EventKind kind, OutboxEvent event) {
    String missing =
        blank(event.workareaId())
            ? "workarea_id"
            : blank(event.writerIdentity())
                ? "writer_identity"
                : event.eventTimeMicros() == null
                    ? "event_time"
                    : kind == EventKind.WORKAREA_VALIDATED && blank(event.pathAtWrite())
                        ? "path_at_write"
                        : null;
    return missing == null
        ? null
        : new RowError(ErrorClass.MISSING_FIELD, kind.wireName() + " row lacks " + missing);
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static RowError checkMaterialize(OutboxEvent event) {
    if (event.artifactId() == null || event.artifactVersion() == null) {
      return new RowError(ErrorClass.MISSING_FIELD, "materialize without artifact_id/version");
    }
    if (event.ratifiedBy() == null || event.ratifiedBy().equals(event.writerIdentity())) {
      return new RowError(
          ErrorClass.UNRATIFIED_BODY,
          "materialize not ratified by an identity other than its writer");
    }
    if (event.body() == null) {
      return new RowError(ErrorClass.DIGEST_MISMATCH, "materialize without a body");
    }
    String actual = EventValidator.sha256Hex(event.body());
    if (!actual.equalsIgnoreCase(event.ciphertextDigest())) {
      return new RowError(
          ErrorClass.DIGEST_MISMATCH,
          "sha256(body) " + actual + " != ciphertext_digest " + event.ciphertextDigest());
    }
    return null;
  }
}
