package org.oml.lakewriter.retry;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.oml.lakewriter.event.RowError;

/**
 * The circuit breaker of one dependency of the cut (e.g. the key registry), on resilience4j.
 *
 * <p>Why a breaker: the retry budget is per row, and the cut is in seq order. Without a breaker a
 * dependency outage is charged to whichever row asks first: it holds every tenant for its whole
 * budget, is dead-lettered, and the next promotion does the same. With it, a failure of the
 * dependency itself (timeout, lost connection, SQL error: {@code DEPENDENCY_UNAVAILABLE}) is
 * charged to the dependency: the cut holds once, before the first row that needs it, the rows'
 * budgets are untouched, and the breaker's state is visible (a gauge, and {@code lakewriter
 * status}). Only a row's own fault (a key the answering registry does not know) spends its budget.
 *
 * <p>The breaker's state is in memory, which is right for a breaker: after a restart it starts
 * closed and the first failures open it again. Its clock is the cut's processing time, set before
 * each use, so a test harness drives it like the cut's timers.
 */
public final class DependencyBreaker {
  /** Gauge values of the breaker's state. */
  public static final int CLOSED = 0;

  public static final int OPEN = 1;
  public static final int HALF_OPEN = 2;

  private final String dependency;
  private final BreakerPolicy policy;
  private final SettableClock clock = new SettableClock();
  private final CircuitBreaker breaker;
  private volatile RowError lastError;
  private long openedAtMillis;

  /** A transition: the dependency, its new state, when, and the failure that caused it (or null). */
  public record Transition(String dependency, String state, long atMillis, RowError lastError) {}

  public DependencyBreaker(String dependency, BreakerPolicy policy, Consumer<Transition> onTransition) {
    this.dependency = Objects.requireNonNull(dependency, "dependency");
    this.policy = Objects.requireNonNull(policy, "policy");
    int window = policy.failureThreshold();
    CircuitBreakerConfig config =
        CircuitBreakerConfig.custom()
            .slidingWindow(window, window, SlidingWindowType.COUNT_BASED)
            .failureRateThreshold(100f)
            .waitDurationInOpenState(policy.openWait())
            .permittedNumberOfCallsInHalfOpenState(1)
            .automaticTransitionFromOpenToHalfOpenEnabled(false)
            .writableStackTraceEnabled(false)
            .clock(clock)
            .currentTimestampFunction(c -> c.millis(), TimeUnit.MILLISECONDS)
            .build();
    this.breaker = CircuitBreaker.of(dependency, config);
    breaker
        .getEventPublisher()
        .onStateTransition(
            e -> {
              String to = e.getStateTransition().getToState().name();
              if (e.getStateTransition().getToState() == CircuitBreaker.State.OPEN) {
                openedAtMillis = clock.millis();
              }
              onTransition.accept(new Transition(dependency, to, clock.millis(), lastError));
            });
  }

  public String dependency() {
    return dependency;
  }

  /** Whether a call may go to the dependency now; false while the breaker is open. */
  public boolean permits(long nowMillis) {
    clock.set(nowMillis);
    return breaker.tryAcquirePermission();
  }

  /** A permitted call succeeded. */
  public void succeeded(long nowMillis, long durationMillis) {
    clock.set(nowMillis);
    breaker.onSuccess(durationMillis, TimeUnit.MILLISECONDS);
  }

  /** A permitted call failed because of the dependency itself. */
  public void failed(long nowMillis, long durationMillis, RowError cause) {
    clock.set(nowMillis);
    lastError = cause;
    breaker.onError(
        durationMillis,
        TimeUnit.MILLISECONDS,
        new DependencyUnavailableException(dependency + ": " + cause.message()));
  }

  /** When the cut should ask again after the dependency failed or refused at {@code nowMillis}. */
  public long retryAtMillis(long nowMillis, long closedBackoffMillis) {
    if (breaker.getState() == CircuitBreaker.State.OPEN) {
      return Math.max(nowMillis + 1, openedAtMillis + policy.openWait().toMillis());
    }
    return nowMillis + closedBackoffMillis;
  }

  /** {@link #CLOSED}, {@link #OPEN} or {@link #HALF_OPEN} (other states count as open). */
  public int stateCode() {
    switch (breaker.getState()) {
      case CLOSED:
        return CLOSED;
      case HALF_OPEN:
        return HALF_OPEN;
      default:
        return OPEN;
    }
  }

  public String stateName() {
    return breaker.getState().name();
  }

  /** The last failure of the dependency, or null. */
  public RowError lastError() {
    return lastError;
  }

  /** Recorded by the breaker as a failed call; never thrown. */
  static final class DependencyUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    DependencyUnavailableException(String message) {
      super(message, null, false, false);
    }
  }

  /** The cut's processing time, as a {@link Clock} for resilience4j. */
  private static final class SettableClock extends Clock {
    private volatile long millis = System.currentTimeMillis();

    void set(long nowMillis) {
      millis = nowMillis;
    }

    @Override
    public long millis() {
      return millis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
