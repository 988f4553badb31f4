package org.oml.lakewriter.event;

/**
 * What the CDC source emits: an outbox row or an update of the horizon row, in commit order.
 */
public sealed interface OutboxChange permits OutboxEvent, HorizonUpdate {}
