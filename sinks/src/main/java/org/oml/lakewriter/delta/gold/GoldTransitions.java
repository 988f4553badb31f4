package org.oml.lakewriter.delta.gold;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.StateTransitions;
import org.oml.lakewriter.event.EventKind;

/**
 * What one event does to one gold row: the rules of {@code /work/brief/gold-rules.md} (issue 15),
 * one pure function per table, shared by every path of the streaming writer (in-batch fold,
 * copy-on-write of earlier rows). Each returns the same instance when the event changes nothing,
 * so that the copy-on-write rewrites no file for it.
 *
 * <p>Decision (the rules do not name it): {@code tenant_id} of a created lineage or workarea row is
 * the creating event's tenant id, and never changes (every event of a tenant's tables has it).
 */
public final class GoldTransitions {
  public static final String VALIDATED = "validated";
  public static final String INVALIDATED = "invalidated";

  private static final TableSchema LINEAGE = LakeSchemas.GOLD_LINEAGE;
  private static final TableSchema WORKAREAS = LakeSchemas.GOLD_WORKAREAS;
  private static final TableSchema MEMORIES = LakeSchemas.GOLD_WORKAREA_MEMORIES;

  private static final int L_STATE = LINEAGE.indexOf("state");
  private static final int L_WORKAREA = LINEAGE.indexOf("workarea_id");
  private static final int L_PROMOTED_SEQ = LINEAGE.indexOf("promoted_seq");
  private static final int L_PATHS = LINEAGE.indexOf("paths");
  private static final int L_RETRACTIONS = LINEAGE.indexOf("retractions");
  private static final int W_STATE = WORKAREAS.indexOf("state");
  private static final int W_VALIDATED_SEQ = WORKAREAS.indexOf("validated_seq");

  /** The lineage columns a memory copies, besides its key, seq and validated_seq. */
  private static final List<String> FROM_LINEAGE =
      List.of(
          "workarea_id",
          "tenant_id",
          "promoted_seq",
          "promoted_time",
          "writer_identity",
          "principal",
          "ratified_by",
          "provenance_class",
          "plaintext_digest",
          "ciphertext_digest",
          "data_key_id");

  /**
   * The lineage columns {@link #lineage} reads or sets for a retraction, besides the key and {@code
   * seq}: a copy-on-write of a file whose keys get only retractions reads these and copies the
   * other columns' chunks. A row read so makes no memory unless a reassign moves it into a
   * validated workarea ({@link #memory} copies most columns).
   */
  public static final Set<String> LINEAGE_RETRACTION_READS =
      Set.of("state", "workarea_id", "paths", "retractions");

  private GoldTransitions() {}

  /**
   * A lineage row after one event of its key: {@code row} is null when the key has no row; the
   * result is null when it still has none (a retraction without a row).
   */
  public static TableRow lineage(TableRow row, GoldEvent e) {
    EventKind kind = e.kind();
    if (kind == EventKind.JOURNAL) {
      if (row != null) {
        return row; // only the first journal event of a key writes lineage: no read, no rewrite
      }
      return created(e)
          .set("submitted_seq", e.seq())
          .set("submitted_time", e.eventTime())
          .set("plaintext_digest", e.plaintextDigest())
          .set("ciphertext_digest", e.ciphertextDigest())
          .set("paths", GoldJson.paths(e.pathAtWrite() == null ? List.of() : List.of(e.pathAtWrite())))
          .build();
    }
    if (kind == EventKind.MATERIALIZE) {
      if (row != null && isPromoted(row)) {
        return row; // a re-promotion changes nothing (silver rule 2)
      }
      TableRow.Builder promoted = row == null ? created(e) : row.toBuilder(LINEAGE, e.seq());
      String paths = row == null ? GoldJson.paths(List.of()) : (String) row.value(L_PATHS);
      return promoted
          .set("state", StateTransitions.ACTIVE)
          .set("promoted_seq", e.seq())
          .set("promoted_time", e.eventTime())
          .set("writer_identity", e.writerIdentity())
          .set("principal", e.principal())
          .set("ratified_by", e.ratifiedBy())
          .set("provenance_class", e.provenanceClass())
          .set("plaintext_digest", e.plaintextDigest())
          .set("ciphertext_digest", e.ciphertextDigest())
          .set("data_key_id", e.dataKeyId())
          .set("workarea_id", e.workareaId())
          .set("paths", GoldJson.appendPath(paths, e.pathAtWrite()))
          .build();
    }
    if (kind.isRetraction()) {
      if (row == null) {
        return null; // silver's RETRACT_WITHOUT_ROW: nothing
      }
      String state = (String) row.value(L_STATE);
      TableRow.Builder retracted =
          row.toBuilder(LINEAGE, e.seq())
              .set(
                  "retractions",
                  GoldJson.appendRetraction(
                      (String) row.value(L_RETRACTIONS),
                      new GoldJson.RetractionEntry(e.seq(), kind.wireName(), e.eventTime())));
      if (kind == EventKind.REASSIGN) {
        if (!StateTransitions.ERASED.equals(state)) {
          retracted
              .set("workarea_id", e.workareaId())
              .set("paths", GoldJson.appendPath((String) row.value(L_PATHS), e.pathAtWrite()));
        }
      } else if (state != null && !StateTransitions.ERASED.equals(state)) {
        retracted.set("state", targetState(kind));
      }
      return retracted.build();
    }
    return row; // validation events: no lineage change
  }

  private static TableRow.Builder created(GoldEvent e) {
    return TableRow.builder(LINEAGE, e.seq())
        .set("artifact_id", e.artifactId())
        .set("version", e.version())
        .set("tenant_id", e.tenantId())
        .set("workarea_id", e.workareaId())
        .set("retractions", GoldJson.retractions(List.of()));
  }

  private static String targetState(EventKind kind) {
    return switch (kind) {
      case DEMOTE -> StateTransitions.DEMOTED;
      case ERASE -> StateTransitions.ERASED;
      case SIMULATION_END -> StateTransitions.SIMULATION_ENDED;
      default -> throw new IllegalArgumentException(kind + " sets no state");
    };
  }

  /** A {@code gold/workareas} row after one validation event (null: the workarea has no row). */
  public static TableRow workarea(TableRow row, GoldEvent e) {
    if (!e.kind().isWorkareaValidation()) {
      return row;
    }
    TableRow.Builder changed =
        row == null
            ? TableRow.builder(WORKAREAS, e.seq())
                .set("workarea_id", e.workareaId())
                .set("tenant_id", e.tenantId())
            : row.toBuilder(WORKAREAS, e.seq());
    if (e.kind() == EventKind.WORKAREA_VALIDATED) {
      return changed
          .set("state", VALIDATED)
          .set("path", e.pathAtWrite())
          .set("validated_by", e.writerIdentity())
          .set("validated_seq", e.seq())
          .set("validated_time", e.eventTime())
          .build();
    }
    return changed
        .set("state", INVALIDATED)
        .set("invalidated_by", e.writerIdentity())
        .set("invalidated_seq", e.seq())
        .set("invalidated_time", e.eventTime())
        .build();
  }

  /**
   * The {@code gold/workarea_memories} row of a lineage row, given the row of its workarea: one
   * exactly when the lineage row is {@code active} and its workarea is {@code validated}; else
   * null.
   */
  public static TableRow memory(TableRow lineage, TableRow workarea) {
    if (lineage == null
        || workarea == null
        || !StateTransitions.ACTIVE.equals(lineage.value(L_STATE))
        || !isValidated(workarea)
        || !Objects.equals(lineage.value(L_WORKAREA), workarea.value(0))) {
      return null;
    }
    TableRow.Builder memory =
        TableRow.builder(MEMORIES, Math.max(lineage.seq(), workarea.seq()))
            .set("artifact_id", lineage.value(LINEAGE.indexOf("artifact_id")))
            .set("version", lineage.value(LINEAGE.indexOf("version")))
            .set("validated_seq", workarea.value(W_VALIDATED_SEQ));
    for (String column : FROM_LINEAGE) {
      memory.set(column, lineage.value(LINEAGE.indexOf(column)));
    }
    return memory.build();
  }

  /** True if a {@code gold/workareas} row (null: none) is validated. */
  public static boolean isValidated(TableRow workarea) {
    return workarea != null && VALIDATED.equals(workarea.value(W_STATE));
  }

  /** True if a lineage row has been promoted (its {@code promoted_seq} is set). */
  public static boolean isPromoted(TableRow lineage) {
    return lineage.value(L_PROMOTED_SEQ) != null;
  }

  /** The workarea of a lineage row (null if it has none). */
  public static String workareaOf(TableRow lineage) {
    return (String) lineage.value(L_WORKAREA);
  }

  /** The workarea id of a {@code gold/workareas} row. */
  public static String workareaId(TableRow workarea) {
    return (String) workarea.value(WORKAREAS.indexOf("workarea_id"));
  }
}
