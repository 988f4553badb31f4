package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.oml.lakewriter.cut.CutHarness.Backend;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.retry.RetryBudget;
import org.oml.lakewriter.retry.RowCheck;
import org.oml.lakewriter.testing.Events;

/** Transient failures of a row check: hold, back-off, budget, state across a restore. */
class BatchCutRetryTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final RetryBudget BUDGET =
      new RetryBudget(3, Duration.ofMinutes(5), Duration.ofMillis(100), Duration.ofMillis(250));
  private static final RowError UNKNOWN_KEY = new RowError(ErrorClass.UNKNOWN_DATA_KEY, "dk?");

  @Test
  void aTransientFailureHoldsTheCutJustBelowTheRowUntilARetryPasses() throws Exception {
    ScriptedCheck check = new ScriptedCheck().fail(3, UNKNOWN_KEY);
    try (CutHarness cut = open(check, BUDGET, null)) {
      cut.rows(1, 2, 3, 4, 5);
      cut.horizon(5);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2");
      assertThat(cut.gauge("frontier")).isEqualTo(2);
      assertThat(cut.gauge("retryBacklog")).isEqualTo(1);
      assertThat(cut.counter("retryAttempts")).isEqualTo(1);

      // A higher horizon during the back-off cuts nothing and does not ask the check early.
      cut.rows(6);
      cut.horizon(6);
      cut.processingTime(T0 + 99);
      assertThat(cut.newBatches()).isEmpty();
      assertThat(check.calls(3)).isEqualTo(1);

      cut.processingTime(T0 + 100);

      assertThat(shapes(cut.newBatches())).containsExactly("(2,6] 3 4 5 6");
      assertThat(check.calls(3)).isEqualTo(2);
      assertThat(cut.deadLetters()).isEmpty();
      assertThat(cut.gauge("retryBacklog")).isZero();
      assertThat(cut.gauge("frontier")).isEqualTo(6);
    }
  }

  @Test
  void aRowThatFailsUntilTheBudgetIsSpentIsDeadLetteredWithItsAttemptsAndTimes() throws Exception {
    ScriptedCheck check = new ScriptedCheck().failAlways(2, UNKNOWN_KEY);
    try (CutHarness cut = open(check, BUDGET, null)) {
      cut.rows(1, 2, 3);
      cut.horizon(3);
      assertThat(shapes(cut.newBatches())).containsExactly("(0,1] 1");

      cut.processingTime(T0 + 100); // attempt 2; the back-off doubles to 200 ms
      assertThat(cut.newBatches()).isEmpty();
      cut.processingTime(T0 + 299);
      assertThat(check.calls(2)).isEqualTo(2);
      cut.processingTime(T0 + 300); // attempt 3 of 3

      List<Batch> batches = cut.newBatches();
      assertThat(shapes(batches)).containsExactly("(1,3] 2! 3");
      RowError error = batches.get(0).events().get(0).error();
      assertThat(error.errorClass()).isEqualTo(ErrorClass.UNKNOWN_DATA_KEY);
      assertThat(error.attempts()).isEqualTo(3);
      assertThat(error.firstFailureMicros()).isEqualTo(T0 * 1000);
      assertThat(error.lastFailureMicros()).isEqualTo((T0 + 300) * 1000);
      assertThat(error.message()).contains("dk?").contains("after 3 attempts");
      assertThat(cut.deadLetters()).extracting(OutboxEvent::seq).containsExactly(2L);
      assertThat(cut.counter("retryAttempts")).isEqualTo(3);
      assertThat(cut.gauge("retryBacklog")).isZero();
    }
  }

  @Test
  void theTimeBudgetEndsRetriesBeforeTheAttemptBudget() throws Exception {
    RetryBudget shortTime =
        new RetryBudget(100, Duration.ofMillis(500), Duration.ofMillis(200), Duration.ofMillis(200));
    ScriptedCheck check = new ScriptedCheck().failAlways(1, UNKNOWN_KEY);
    try (CutHarness cut = open(check, shortTime, null)) {
      cut.rows(1, 2);
      cut.horizon(2);
      for (long t = T0 + 200; t <= T0 + 600; t += 200) {
        cut.processingTime(t);
      }

      List<Batch> batches = cut.newBatches();
      assertThat(shapes(batches)).containsExactly("(0,2] 1! 2");
      assertThat(batches.get(0).events().get(0).error().attempts()).isEqualTo(4);
    }
  }

  @Test
  void aPermanentAnswerOfTheCheckDeadLettersAtOnce() throws Exception {
    RowError permanent = new RowError(ErrorClass.SCHEMA_MISMATCH, "no such key type");
    ScriptedCheck check = new ScriptedCheck().fail(2, permanent);
    try (CutHarness cut = open(check, BUDGET, null)) {
      cut.rows(1, 2, 3);
      cut.horizon(3);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,3] 1 2! 3");
      assertThat(cut.counter("retryAttempts")).isZero();
      assertThat(cut.deadLetters()).extracting(OutboxEvent::error).containsExactly(permanent);
    }
  }

  @Test
  void rowsThatAlreadyCarryAnErrorAreNotChecked() throws Exception {
    ScriptedCheck check = new ScriptedCheck();
    try (CutHarness cut = open(check, BUDGET, null)) {
      cut.rows(1);
      cut.row(Events.journal(2).error(new RowError(ErrorClass.UNKNOWN_KIND, "kind 'x'")).build());
      cut.horizon(2);

      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2!");
      assertThat(check.checked).containsExactly(1L);
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void aRestoreKeepsTheAttemptsAndTheTimerOfAHeldRow(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness cut = open(new ScriptedCheck().failAlways(2, UNKNOWN_KEY), BUDGET, backend, null)) {
      cut.rows(1, 2, 3);
      cut.horizon(3);
      cut.processingTime(T0 + 100); // attempt 2
      assertThat(shapes(cut.newBatches())).containsExactly("(0,1] 1");
      snapshot = cut.snapshot(1);
    }
    ScriptedCheck afterRestart = new ScriptedCheck().failAlways(2, UNKNOWN_KEY);
    try (CutHarness cut = open(afterRestart, BUDGET, backend, snapshot)) {
      cut.processingTime(T0 + 300); // the restored timer: attempt 3 of 3, not 1 of 3

      List<Batch> batches = cut.newBatches();
      assertThat(shapes(batches)).containsExactly("(1,3] 2! 3");
      assertThat(batches.get(0).events().get(0).error().attempts()).isEqualTo(3);
      assertThat(batches.get(0).events().get(0).error().firstFailureMicros()).isEqualTo(T0 * 1000);
      assertThat(afterRestart.calls(2)).isEqualTo(1);
    }
  }

  /**
   * The retry backlog (docs/metrics.md) counts the rows held in state, also right after a restore:
   * the first element or timer of the restored job shows them, before any check runs again.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void theRetryBacklogShowsTheRowsHeldInStateAfterARestore(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness cut = open(new ScriptedCheck().failAlways(2, UNKNOWN_KEY), BUDGET, backend, null)) {
      cut.rows(1, 2, 3);
      cut.horizon(3);
      assertThat(cut.gauge("retryBacklog")).isEqualTo(1);
      snapshot = cut.snapshot(1);
    }
    try (CutHarness cut =
        open(new ScriptedCheck().failAlways(2, UNKNOWN_KEY), BUDGET, backend, snapshot)) {
      cut.rows(4); // above the horizon: no check runs
      assertThat(cut.gauge("retryBacklog")).isEqualTo(1);
    }
  }

  /** Not a retry: a long horizon is cut in turns, so that checkpoints pass between them. */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void aLongHorizonIsCutInTurnsThatARestoreContinues(Backend backend) throws Exception {
    OperatorSubtaskState snapshot;
    try (CutHarness cut = CutHarness.open(turns(), backend, null)) {
      cut.processingTime(T0);
      cut.rows(1, 2, 3, 4, 5, 6, 7, 8, 9);
      cut.horizon(9);
      assertThat(shapes(cut.newBatches())).containsExactly("(0,2] 1 2", "(2,4] 3 4");
      assertThat(cut.gauge("frontier")).isEqualTo(4);
      snapshot = cut.snapshot(1);
    }
    try (CutHarness cut = CutHarness.open(turns(), backend, snapshot)) {
      // The restored timer continues the cut; the harness fires the next turn's timer (due at
      // once) in the same call, where a task would first run its mailbox.
      cut.processingTime(T0 + 1);
      assertThat(shapes(cut.newBatches())).containsExactly("(4,6] 5 6", "(6,8] 7 8", "(8,9] 9");
      assertThat(cut.counter("batchesCut")).isEqualTo(3);
      cut.processingTime(T0 + 2);
      assertThat(cut.newBatches()).isEmpty();
      assertThat(cut.gauge("frontier")).isEqualTo(9);
    }
  }

  /** Two rows per batch, two batches per turn, no check. */
  private static BatchCutFunction turns() {
    return new BatchCutFunction(2, Long.MAX_VALUE, null, null, RetryBudget.DEFAULT, 2);
  }

  private static CutHarness open(ScriptedCheck check, RetryBudget budget, Backend backend)
      throws Exception {
    return open(check, budget, backend, null);
  }

  private static CutHarness open(
      ScriptedCheck check, RetryBudget budget, Backend backend, OperatorSubtaskState restore)
      throws Exception {
    CutHarness cut =
        CutHarness.open(
            new BatchCutFunction(Integer.MAX_VALUE, Long.MAX_VALUE, null, check, budget),
            backend == null ? Backend.HEAP : backend,
            restore);
    cut.processingTime(T0);
    return cut;
  }

  /** "(frontier,end] seq seq! ...": a {@code !} marks a row that carries an error. */
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

  /** A hand-written fake of the dependency: scripted answers per seq, every call recorded. */
  private static final class ScriptedCheck implements RowCheck {
    private final Map<Long, Deque<RowError>> script = new HashMap<>();
    private final Map<Long, RowError> always = new HashMap<>();
    private final Map<Long, Integer> calls = new HashMap<>();
    final List<Long> checked = new ArrayList<>();

    ScriptedCheck fail(long seq, RowError error) {
      script.computeIfAbsent(seq, s -> new ArrayDeque<>()).add(error);
      return this;
    }

    ScriptedCheck failAlways(long seq, RowError error) {
      always.put(seq, error);
      return this;
    }

    int calls(long seq) {
      return calls.getOrDefault(seq, 0);
    }

    @Override
    public Map<Long, RowError> check(List<OutboxEvent> rows) {
      Map<Long, RowError> failures = new LinkedHashMap<>();
      for (OutboxEvent row : rows) {
        checked.add(row.seq());
        calls.merge(row.seq(), 1, Integer::sum);
        Deque<RowError> next = script.get(row.seq());
        RowError failure = next != null && !next.isEmpty() ? next.poll() : always.get(row.seq());
        if (failure != null) {
          failures.put(row.seq(), failure);
        }
      }
      return failures;
    }

    @Override
    public void close() {}
  }
}
