package org.oml.lakewriter.delta.merge;

import java.util.Objects;
import java.util.Set;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.event.EventKind;

/**
 * What one retraction does to one silver row (ADR-0003 d5: a MERGE on {@code (artifact_id,
 * version)} that sets {@code state}). A promoted row starts {@value #ACTIVE}.
 *
 * <pre>
 *   state \ retraction | demote           | erase  | simulation_end   | reassign(w)
 *   -------------------+------------------+--------+------------------+------------------------
 *   active             | demoted          | erased | simulation_ended | active, workarea_id = w
 *   demoted            | (unchanged)      | erased | simulation_ended | demoted, workarea_id = w
 *   simulation_ended   | demoted          | erased | (unchanged)      | simulation_ended, wa = w
 *   erased             | (unchanged)      | (unchanged) | (unchanged) | (unchanged)
 * </pre>
 *
 * <ul>
 *   <li>{@code erased} is terminal: nothing changes an erased row again, not even its workarea.
 *   <li>Among the other states the latest retraction wins; a state this writer never writes counts
 *       as one of them.
 *   <li>{@code reassign} keeps the state and {@code path_at_write} (the path is history; the
 *       workarea id is the stable key), and sets {@code workarea_id} to the retraction's.
 *   <li>A change sets {@code seq} to the retraction's seq, the seq that last changed the row. A
 *       retraction that changes nothing (same state, same workarea) leaves the row as it is, seq
 *       included, so it costs no rewrite.
 *   <li>{@code erase} sets the state and clears the body (null) in the new file version, beyond
 *       ADR-0003 (which only sets the state): the copy-on-write rewrites the row's file anyway, so
 *       the new version costs nothing more to write without the ciphertext. The digests and the
 *       data-key id stay, as the record of what was erased. The older file versions that still
 *       hold the ciphertext leave the disk with {@code lakewriter maintain vacuum} after the
 *       retention, and the producer destroys the data key in the erase row's own transaction
 *       (docs/erasure.md). An erased row is terminal, so no later event brings a body back.
 * </ul>
 */
public final class StateTransitions {
  public static final String ACTIVE = "active";
  public static final String DEMOTED = "demoted";
  public static final String ERASED = "erased";
  public static final String SIMULATION_ENDED = "simulation_ended";

  private static final TableSchema SILVER = LakeSchemas.SILVER_MEMORIES;
  private static final int STATE = SILVER.indexOf("state");
  private static final int WORKAREA = SILVER.indexOf("workarea_id");

  /** The columns {@link #apply} reads besides {@code seq} (an erase sets the body, unread). */
  static final Set<String> READS = Set.of("state", "workarea_id");

  /**
   * The columns to read for a file where an erase clears a row's body: the body column is then
   * encoded again, so every row's body is needed.
   */
  static final Set<String> READS_ON_ERASE = Set.of("state", "workarea_id", "body");

  private StateTransitions() {}

  /** The row after the retraction; the same instance when the retraction changes nothing. */
  public static TableRow apply(TableRow row, Retraction retraction) {
    if (retraction.seq() <= row.seq()) {
      // One ordered stream: a retraction always comes after the row it retracts (ADR-0003 d5).
      throw new IllegalStateException(
          retraction + " is not after the row it retracts (seq " + row.seq() + ")");
    }
    Object state = row.value(STATE);
    if (ERASED.equals(state)) {
      return row;
    }
    if (retraction.kind() == EventKind.REASSIGN) {
      return Objects.equals(row.value(WORKAREA), retraction.workareaId())
          ? row
          : row.toBuilder(SILVER, retraction.seq())
              .set("workarea_id", retraction.workareaId())
              .build();
    }
    String target = targetState(retraction.kind());
    if (target.equals(state)) {
      return row;
    }
    TableRow.Builder changed = row.toBuilder(SILVER, retraction.seq()).set("state", target);
    if (retraction.kind() == EventKind.ERASE) {
      changed.set("body", null);
    }
    return changed.build();
  }

  private static String targetState(EventKind kind) {
    return switch (kind) {
      case DEMOTE -> DEMOTED;
      case ERASE -> ERASED;
      case SIMULATION_END -> SIMULATION_ENDED;
      default -> throw new IllegalArgumentException(kind + " sets no state");
    };
  }
}
