package org.oml.lakewriter.event;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The kinds of outbox rows. The wire name is what the outbox stores; it is also what state and
 * committables store, never the ordinal, so that adding a kind cannot reinterpret old bytes.
 */
public enum EventKind {
  JOURNAL("journal"),
  MATERIALIZE("materialize"),
  DEMOTE("demote"),
  ERASE("erase"),
  SIMULATION_END("simulation_end"),
  REASSIGN("reassign"),
  /** A workarea was validated: its active memories enter {@code gold/workarea_memories}. */
  WORKAREA_VALIDATED("workarea_validated"),
  /** The revocation of a validation: the workarea's memories leave {@code gold}. */
  WORKAREA_INVALIDATED("workarea_invalidated");

  private final String wireName;

  EventKind(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** Demote, erase, simulation-end and reassign: a MERGE on (artifact_id, version) in silver. */
  public boolean isRetraction() {
    return this == DEMOTE || this == ERASE || this == SIMULATION_END || this == REASSIGN;
  }

  /** Workarea validation and its revocation: they change {@code gold}, never silver. */
  public boolean isWorkareaValidation() {
    return this == WORKAREA_VALIDATED || this == WORKAREA_INVALIDATED;
  }

  /** Every kind by its wire name: looked up for each row the source reads and the writer folds. */
  private static final Map<String, EventKind> BY_WIRE_NAME =
      Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(k -> k.wireName, k -> k));

  public static Optional<EventKind> fromWireName(String name) {
    return name == null ? Optional.empty() : Optional.ofNullable(BY_WIRE_NAME.get(name));
  }
}
