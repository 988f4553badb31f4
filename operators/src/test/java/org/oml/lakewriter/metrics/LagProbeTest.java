package org.oml.lakewriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.cdc.OutboxSourceOptions;

/** How one probe's answer becomes the lag gauges; the SQL itself runs in MetricsScrapeITCase. */
class LagProbeTest {
  private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

  private LagProbe probe() {
    return LagProbe.unstarted(
        new OutboxSourceOptions(
            "localhost", 5432, "oml", "public", "u", "", "slot", "pub", "w1",
            Duration.ofSeconds(1), 1024),
        now::get);
  }

  @Test
  void theLagInSecondsCountsFromTheFirstProbeThatSawTheOldestWaitingRow() throws Exception {
    try (LagProbe p = probe()) {
      p.record(10, 0, -1, 10, 1, 4096);
      assertThat(p.frontierLagRows()).isZero();
      assertThat(p.frontierLagSeconds()).isZero();
      assertThat(p.horizonAgeSeconds()).isEqualTo(1);
      assertThat(p.slotRetainedBytes()).isEqualTo(4096);

      now.addAndGet(5_000);
      p.record(10, 5, 11, 15, 1, 4096); // rows 11..15 appear
      assertThat(p.frontierLagRows()).isEqualTo(5);
      assertThat(p.frontierLagSeconds()).isZero();

      now.addAndGet(15_000);
      p.record(10, 10, 11, 20, 16, 8192); // still waiting: 15 s since row 11 was first seen
      assertThat(p.frontierLagSeconds()).isEqualTo(15);
      assertThat(p.horizonAgeSeconds()).isEqualTo(16);

      now.addAndGet(10_000);
      p.record(15, 5, 16, 20, 0, 8192); // 11..15 committed; row 16 was first seen 10 s ago
      assertThat(p.frontierLagRows()).isEqualTo(5);
      assertThat(p.frontierLagSeconds()).isEqualTo(10);

      now.addAndGet(1_000);
      p.record(20, 0, -1, 20, 0, 8192);
      assertThat(p.frontierLagRows()).isZero();
      assertThat(p.frontierLagSeconds()).isZero();
    }
  }

  @Test
  void aLagBeyondTheCountCapIsTheSeqDistanceAndAMissingSlotOrTickIsMinusOne() throws Exception {
    try (LagProbe p = probe()) {
      p.record(1_000, LagProbe.COUNT_CAP, 1_001, 9_000_000, -1, -1);
      assertThat(p.frontierLagRows()).isEqualTo(9_000_000 - 1_000);
      assertThat(p.horizonAgeSeconds()).isEqualTo(-1);
      assertThat(p.slotRetainedBytes()).isEqualTo(-1);
    }
  }

  @Test
  void theProbeRunsEveryTenTicksWithinOneAndThirtySeconds() {
    assertThat(LagProbe.period(Duration.ofMillis(200))).isEqualTo(Duration.ofSeconds(2));
    assertThat(LagProbe.period(Duration.ofMillis(10))).isEqualTo(Duration.ofSeconds(1));
    assertThat(LagProbe.period(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(10));
    assertThat(LagProbe.period(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(30));
  }
}
