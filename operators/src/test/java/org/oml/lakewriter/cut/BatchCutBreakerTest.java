package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.cut.CutHarness.Backend;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.retry.BreakerPolicy;
import org.oml.lakewriter.retry.DependencyBreaker;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.retry.RowCheck;
import org.oml.lakewriter.testing.Events;

/**
 * Issue 11 item 7: an outage of the check's dependency is charged to the dependency's circuit
 * breaker, never to the rows. Before the breaker, each promotion in turn held the cut for its whole
 * budget and was then dead-lettered as DEPENDENCY_UNAVAILABLE.
 */
class BatchCutBreakerTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final RetryBudget BUDGET =
      new RetryBudget(3, Duration.ofMinutes(5), Duration.ofMillis(100), Duration.ofMillis(250));
  private static final BreakerPolicy BREAKER = new BreakerPolicy(2, Duration.ofSeconds(1));

  @Test
  void anOutageHoldsTheStreamOnceAndDeadLettersNothingThenTheStreamResumes() throws Exception {
    Registry registry = new Registry(Set.of("dk-acme", "dk-globex", "dk-initech"));
    registry.down = true;
    try (CutHarness cut = open(registry)) {
      cut.row(Events.journal(1).build());
      cut.row(promotion(2, "acme"));
      cut.row(Events.journal(3).tenantId("globex").build());
      cut.row(promotion(4, "globex"));
      cut.row(promotion(5, "initech"));
      cut.row(Events.journal(6).build());
      cut.horizon(6);
      // The rows before the first promotion pass; the cut holds just below it.
      assertThat(shapes(cut.newBatches())).containsExactly("(0,1] 1");

      // Ten seconds of outage, time moving in 50 ms steps: far beyond any row's budget (3 attempts).
      boolean sawOpen = false;
      for (long t = T0 + 50; t <= T0 + 10_000; t += 50) {
        cut.processingTime(t);
        sawOpen |= cut.numericGauge("breakerState") == DependencyBreaker.OPEN;
      }
      assertThat(cut.deadLetters()).as("dead-lettered for the registry's outage").isEmpty();
      assertThat(cut.newBatches()).isEmpty();
      assertThat(cut.counter("retryAttempts")).as("no row's budget was spent").isZero();
      assertThat(sawOpen).as("breaker opened during the outage").isTrue();
      assertThat(cut.counter("dependencyHolds")).isPositive();
      // While open, the registry is asked about once per open wait, not on every timer.
      assertThat(registry.calls).isLessThanOrEqualTo(2 + 10);

      registry.down = false;
      cut.processingTime(T0 + 12_000);

      assertThat(shapes(cut.newBatches())).containsExactly("(1,6] 2 3 4 5 6");
      assertThat(cut.deadLetters()).isEmpty();
      assertThat(cut.numericGauge("breakerState")).isEqualTo(DependencyBreaker.CLOSED);
      assertThat(cut.gauge("frontier")).isEqualTo(6);
    }
  }

  @Test
  void aRowsOwnFaultStillSpendsItsBudgetAndIsDeadLetteredWhileTheBreakerStaysClosed()
      throws Exception {
    Registry registry = new Registry(Set.of("dk-acme", "dk-initech")); // globex's key unknown
    try (CutHarness cut = open(registry)) {
      cut.row(promotion(1, "acme"));
      cut.row(promotion(2, "globex"));
      cut.row(promotion(3, "initech"));
      cut.horizon(3);
      for (long t = T0 + 50; t <= T0 + 2_000; t += 50) {
        cut.processingTime(t);
      }
      List<Batch> batches = cut.newBatches();
      assertThat(shapes(batches)).containsExactly("(0,1] 1", "(1,3] 2! 3");
      assertThat(batches.get(1).events().get(0).error().errorClass())
          .isEqualTo(ErrorClass.UNKNOWN_DATA_KEY);
      assertThat(cut.counter("retryAttempts")).isEqualTo(3);
      assertThat(cut.numericGauge("breakerState")).isEqualTo(DependencyBreaker.CLOSED);
    }
  }

  @Test
  void whileTheBreakerIsOpenRowsThatDoNotNeedTheDependencyStillPass() throws Exception {
    Registry registry = new Registry(Set.of());
    registry.down = true;
    try (CutHarness cut = open(registry)) {
      cut.row(promotion(1, "acme"));
      cut.horizon(1);
      for (long t = T0 + 50; t <= T0 + 500; t += 50) {
        cut.processingTime(t);
      }
      assertThat(cut.numericGauge("breakerState")).isEqualTo(DependencyBreaker.OPEN);
      assertThat(cut.newBatches()).isEmpty();
      // A journal event behind the held promotion waits (seq order); nothing is dead-lettered.
      cut.row(Events.journal(2).build());
      cut.horizon(2);
      assertThat(cut.newBatches()).isEmpty();
      assertThat(cut.deadLetters()).isEmpty();
    }
  }

  private static CutHarness open(Registry registry) throws Exception {
    CutHarness cut =
        CutHarness.open(
            new BatchCutFunction(Integer.MAX_VALUE, Long.MAX_VALUE, null, registry, BUDGET),
            Backend.HEAP,
            null);
    cut.processingTime(T0);
    return cut;
  }

  private static OutboxEvent promotion(long seq, String tenant) {
    return Events.materialize(seq, ("body-" + seq).getBytes(StandardCharsets.UTF_8))
        .tenantId(tenant)
        .dataKeyId("dk-" + tenant)
        .build();
  }

  private static List<String> shapes(List<Batch> batches) {
    List<String> shapes = new ArrayList<>();
    for (Batch b : batches) {
      StringBuilder s = new StringBuilder("(" + b.frontier() + "," + b.batchEnd() + "]");
      for (OutboxEvent e : b.events()) {
        s.append(' ').append(e.seq()).append(e.isValid() ? "" : "!");
      }
      shapes.add(s.toString());
    }
    return shapes;
  }

  /** A hand-written key registry: known keys, and a switch that takes it down. */
  private static final class Registry implements RowCheck {
    private final Set<String> known;
    boolean down;
    int calls;

    Registry(Set<String> known) {
      this.known = known;
    }

    @Override
    public Map<Long, RowError> check(List<OutboxEvent> rows) {
      calls++;
      Map<Long, RowError> failures = new LinkedHashMap<>();
      for (OutboxEvent row : rows) {
        if (!needs(row)) {
          continue;
        }
        if (down) {
          failures.put(
              row.seq(), new RowError(ErrorClass.DEPENDENCY_UNAVAILABLE, "registry: timeout"));
        } else if (!known.contains(row.dataKeyId())) {
          failures.put(
              row.seq(), new RowError(ErrorClass.UNKNOWN_DATA_KEY, "unknown " + row.dataKeyId()));
        }
      }
      return failures;
    }

    @Override
    public boolean needs(OutboxEvent row) {
      return EventKind.MATERIALIZE.wireName().equals(row.kind());
    }

    @Override
    public String dependency() {
      return "key-registry";
    }

    @Override
    public BreakerPolicy breakerPolicy() {
      return BREAKER;
    }

    @Override
    public void close() {}
  }
}
