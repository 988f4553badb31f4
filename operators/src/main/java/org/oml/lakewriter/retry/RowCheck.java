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
 * RetryBudget}; a permanent one dead-letters the row at once. A failure of the dependency itself
 * ({@link ErrorClass#DEPENDENCY_UNAVAILABLE}) goes to its {@link DependencyBreaker} instead, and
 * holds the cut without spending any row's budget.
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

  /**
   * Whether {@code row} (valid) needs the dependency at all. A row that does not is never held by
   * the dependency's breaker: while it is open, the cut still emits the rows before the first one
   * that needs it.
   */
  default boolean needs(OutboxEvent row) {
    return true;
  }

  /** The dependency's name, in logs and in status ({@code oml_lake_dependency}). */
  default String dependency() {
    return getClass().getSimpleName();
  }

  /**
   * The circuit breaker of the dependency. A failure of class {@link
   * ErrorClass#DEPENDENCY_UNAVAILABLE} is the dependency's, not the row's: it counts for the
   * breaker and never spends the row's retry budget.
   */
  default BreakerPolicy breakerPolicy() {
    return BreakerPolicy.DEFAULT;
  }

  @Override
  void close();
}
