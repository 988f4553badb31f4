package org.oml.lakewriter.delta.merge;

import java.util.Objects;
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
 *   <li>{@code erase} sets the state only. The body stays: it is ciphertext, and destroying its
 *       data key (and VACUUM after the retention bound) is what erases it.
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
    return target.equals(state)
        ? row
        : row.toBuilder(SILVER, retraction.seq()).set("state", target).build();
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
