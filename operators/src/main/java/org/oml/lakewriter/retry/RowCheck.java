package org.oml.lakewriter.retry;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * A check of rows against something outside the row (a registry, a service), run by the cut on
 * each batch before it is emitted. Unlike validation, its answer can change: a failure of a class
 * that is not {@link ErrorClass#isPermanent() permanent} is retried within the {@link
 * RetryBudget}; a permanent one dead-letters the row at once.
 *
 * <p>Created on the client, serialized into the job, used from the cut's task thread only.
 */
public interface RowCheck extends Serializable, AutoCloseable {

  /**
   * The failures among {@code rows} (all valid, ascending seq), by seq; a row that is absent
   * passes. Must not throw: an unreachable dependency is a transient failure of every row that
   * needs it.
   */
  Map<Long, RowError> check(List<OutboxEvent> rows);

  @Override
  void close();
}
