package org.oml.lakewriter.delta.gold;

import java.util.Objects;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.EventKind;

/**
 * One event as gold reads it: the columns of its {@code bronze/journal_events} row. Gold is a pure
 * function of a tenant's bronze rows in seq order (docs/gold.md), so the streaming writer reads
 * gold's input from the very rows it writes to bronze, after routing and the sticky routes of a
 * replay, never from the outbox event itself.
 */
public record GoldEvent(
    long seq,
    EventKind kind,
    String tenantId,
    String artifactId,
    Long version,
    String workareaId,
    String pathAtWrite,
    String writerIdentity,
    String principal,
    String ratifiedBy,
    String provenanceClass,
    String plaintextDigest,
    String ciphertextDigest,
    String dataKeyId,
    Long eventTime) {

  private static final TableSchema BRONZE = LakeSchemas.BRONZE_JOURNAL_EVENTS;
  private static final int KIND = BRONZE.indexOf("kind");
  private static final int TENANT = BRONZE.indexOf("tenant_id");
  private static final int ARTIFACT = BRONZE.indexOf("artifact_id");
  private static final int VERSION = BRONZE.indexOf("version");
  private static final int WORKAREA = BRONZE.indexOf("workarea_id");
  private static final int PATH = BRONZE.indexOf("path_at_write");
  private static final int WRITER = BRONZE.indexOf("writer_identity");
  private static final int PRINCIPAL = BRONZE.indexOf("principal");
  private static final int RATIFIED = BRONZE.indexOf("ratified_by");
  private static final int PROVENANCE = BRONZE.indexOf("provenance_class");
  private static final int PLAINTEXT = BRONZE.indexOf("plaintext_digest");
  private static final int CIPHERTEXT = BRONZE.indexOf("ciphertext_digest");
  private static final int DATA_KEY = BRONZE.indexOf("data_key_id");
  private static final int EVENT_TIME = BRONZE.indexOf("event_time");

  public GoldEvent {
    Objects.requireNonNull(kind, "kind");
  }

  /** The event of a bronze row; its kind must be one this writer routes to bronze. */
  public static GoldEvent ofBronze(TableRow row) {
    String wire = (String) row.value(KIND);
    EventKind kind =
        EventKind.fromWireName(wire)
            .orElseThrow(
                () -> new IllegalArgumentException("bronze row " + row.seq() + " of kind " + wire));
    return new GoldEvent(
        row.seq(),
        kind,
        (String) row.value(TENANT),
        (String) row.value(ARTIFACT),
        (Long) row.value(VERSION),
        (String) row.value(WORKAREA),
        (String) row.value(PATH),
        (String) row.value(WRITER),
        (String) row.value(PRINCIPAL),
        (String) row.value(RATIFIED),
        (String) row.value(PROVENANCE),
        (String) row.value(PLAINTEXT),
        (String) row.value(CIPHERTEXT),
        (String) row.value(DATA_KEY),
        (Long) row.value(EVENT_TIME));
  }

  /** The lineage key, or null (a validation event, or a journal event about no artifact). */
  public ArtifactKey key() {
    return artifactId == null || version == null || kind.isWorkareaValidation()
        ? null
        : new ArtifactKey(artifactId, version);
  }

  /** Whether this event feeds {@code gold/lineage}: a journal, materialize or retraction with key. */
  public static boolean feedsLineage(EventKind kind, String artifactId, Long version) {
    return !kind.isWorkareaValidation() && artifactId != null && version != null;
  }

  /**
   * Whether this event can change {@code gold/workarea_memories}: a promotion, a retraction (they
   * change a lineage row's state or workarea) or a validation. A journal event never does: it
   * creates a row without state, or changes nothing.
   */
  public static boolean feedsMemories(EventKind kind) {
    return kind == EventKind.MATERIALIZE || kind.isRetraction() || kind.isWorkareaValidation();
  }
}
