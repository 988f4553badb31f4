package org.oml.lakewriter.cdc;

/**
 * PostgreSQL invalidated the job's replication slot: the WAL it still needed was removed ({@code
 * max_slot_wal_keep_size}) or the slot conflicted with recovery. The rows committed since the
 * slot's position are not in any WAL stream any more, so the writer stops with this error rather
 * than read on from wherever a new slot would start. The message starts with {@code
 * SLOT_INVALIDATED} and names the remedy.
 */
public final class SlotInvalidatedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The first word of every message of this exception. */
  public static final String CODE = "SLOT_INVALIDATED:";

  public SlotInvalidatedException(String slot, String walStatus, String reason) {
    super(message(slot, walStatus, reason));
  }

  static String message(String slot, String walStatus, String reason) {
    return CODE + " replication slot '" + slot + "' (postgres.slot) was invalidated by"
        + " PostgreSQL (wal_status " + walStatus + ", invalidation_reason "
        + (reason == null ? "unknown" : reason) + "): the WAL it still needed is gone, so the"
        + " outbox rows committed since its position cannot be streamed. The writer stops rather"
        + " than skip them. Restart with --accept-lost-slot: it drops this slot, creates a new"
        + " one, and the completeness check refetches the missing rows by seq from the outbox."
        + " To keep it from happening again, raise max_slot_wal_keep_size (or set it to -1) and"
        + " watch the slot_retained_wal check of `lakewriter doctor`.";
  }
}
