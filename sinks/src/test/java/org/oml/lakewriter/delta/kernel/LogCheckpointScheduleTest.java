package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;

class LogCheckpointScheduleTest {
  private static final TableId BRONZE = TableId.of("tenant-0", TableKind.BRONZE_JOURNAL_EVENTS);

  @Test
  void unstaggeredCheckpointsAreAtTheMultiplesOfTheIntervalAsKernelPutsThem() {
    LogCheckpointSchedule schedule = new LogCheckpointSchedule(100, false);
    assertThat(dueVersions(schedule, BRONZE, 350)).containsExactly(100L, 200L, 300L);
    assertThat(schedule.phase(BRONZE)).isZero();
  }

  @Test
  void aStaggeredTableCheckpointsOnceInEveryIntervalAtItsOwnPhase() {
    LogCheckpointSchedule schedule = new LogCheckpointSchedule(100, true);
    for (TableId table : tables(64)) {
      int phase = schedule.phase(table);
      assertThat(phase).isBetween(0, 99);
      List<Long> due = dueVersions(schedule, table, 1_000);
      long first = phase == 0 ? 100 : 100 - phase;
      assertThat(due)
          .as("%s at phase %d", table, phase)
          .containsExactlyElementsOf(
              LongStream.iterate(first, v -> v <= 1_000, v -> v + 100).boxed().toList());
    }
  }

  @Test
  void thePhasesOfManyTenantsSpreadOverTheInterval() {
    // 512 tenants' three tables: 1,536 checkpoints per 100 commits, 15.4 per phase on average.
    int[] perPhase = countPerPhase(new LogCheckpointSchedule(100, true), tables(512));
    assertThat(max(perPhase)).as("the most tables that share one phase").isLessThanOrEqualTo(31);
    assertThat(countZero(perPhase)).as("phases no table has").isZero();

    // The sustained benchmark's 24 tables: not all in one round, as they were before.
    int[] small = countPerPhase(new LogCheckpointSchedule(100, true), tables(8));
    assertThat(max(small)).as("the most of 24 tables that share one phase").isLessThanOrEqualTo(3);
  }

  @Test
  void aTableKeepsItsPhaseInEveryJvm() {
    // String.hashCode is fixed by the language: a restarted writer checkpoints the same versions.
    // A change of the mix is allowed but moves every table's checkpoints once; it must be meant.
    LogCheckpointSchedule schedule = new LogCheckpointSchedule(100, true);
    assertThat(schedule.phase(BRONZE))
        .isEqualTo(schedule.phase(TableId.parse("tenant-0/bronze/journal_events")));
    assertThat(
            List.of(
                schedule.phase(BRONZE),
                schedule.phase(TableId.of("tenant-1", TableKind.SILVER_MEMORIES)),
                schedule.phase(TableId.invalidTenantDeadLetter())))
        .containsExactly(PINNED_PHASES);
  }

  @Test
  void anIntervalBelowOneIsRefused() {
    assertThatThrownBy(() -> new LogCheckpointSchedule(0, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("log checkpoint interval 0 is below 1");
  }

  private static final Integer[] PINNED_PHASES = {65, 99, 61};

  private static List<Long> dueVersions(LogCheckpointSchedule schedule, TableId table, long last) {
    return LongStream.rangeClosed(0, last).filter(v -> schedule.due(table, v)).boxed().toList();
  }

  private static List<TableId> tables(int tenants) {
    List<TableId> tables = new ArrayList<>();
    for (int t = 0; t < tenants; t++) {
      for (TableKind kind :
          List.of(
              TableKind.BRONZE_JOURNAL_EVENTS, TableKind.SILVER_MEMORIES, TableKind.GOLD_LINEAGE)) {
        tables.add(TableId.of("tenant-" + t, kind));
      }
    }
    return tables;
  }

  private static int[] countPerPhase(LogCheckpointSchedule schedule, List<TableId> tables) {
    int[] counts = new int[schedule.interval()];
    tables.forEach(table -> counts[schedule.phase(table)]++);
    return counts;
  }

  private static int max(int[] counts) {
    int max = 0;
    for (int c : counts) {
      max = Math.max(max, c);
    }
    return max;
  }

  private static int countZero(int[] counts) {
    int zero = 0;
    for (int c : counts) {
      zero += c == 0 ? 1 : 0;
    }
    return zero;
  }
}
