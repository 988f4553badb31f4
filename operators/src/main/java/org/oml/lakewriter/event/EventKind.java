package org.oml.lakewriter.event;

import java.util.Optional;

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

  /**
   * Every kind, the most frequent first, looked up by comparing names: an event's kind is the
   * kind's own string ({@link OutboxEvent}), which {@code equals} matches by identity, where a
   * map lookup would hash it first.
   */
  private static final EventKind[] KINDS = values();

  /** The kind's own instance of {@code name} when a kind has that name, else {@code name}. */
  public static String canonicalName(String name) {
    return fromWireName(name).map(EventKind::wireName).orElse(name);
  }

  public static Optional<EventKind> fromWireName(String name) {
    if (name != null) {
      for (EventKind kind : KINDS) {
        if (kind.wireName.equals(name)) {
          return Optional.of(kind);
        }
      }
    }
    return Optional.empty();
  }
}
