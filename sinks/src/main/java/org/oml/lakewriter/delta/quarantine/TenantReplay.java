package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Reads one tenant's rows back from the outbox, the system of record, to replay a quarantined
 * tenant. Serializable: the sink carries it to the task manager, where it opens its connection.
 */
public interface TenantReplay extends Serializable, AutoCloseable {
  /**
   * The outbox rows of {@code (after, upTo]} that land under {@code tenantPrefix} (a tenant id, or
   * {@code _invalid} for rows whose tenant id is no path), in seq order, parsed and validated
   * exactly like rows that came through CDC.
   */
  List<OutboxEvent> rows(String tenantPrefix, long after, long upTo) throws IOException;

  @Override
  default void close() {}
}
