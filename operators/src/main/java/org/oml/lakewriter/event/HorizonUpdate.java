package org.oml.lakewriter.event;

/**
 * A change of the {@code oml_lake_horizon} row: every outbox row with {@code seq <= stableSeq} has
 * committed or can never commit. A row read in the snapshot phase ({@code fromSnapshot}) arrives in
 * no particular order relative to outbox rows and must never cut a batch.
 */
public record HorizonUpdate(
    String writerId, long stableSeq, long pendingSeq, long tickedAtMicros, boolean fromSnapshot)
    implements OutboxChange {}
