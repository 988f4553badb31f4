package org.oml.lakewriter.it.horizon;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.horizon.HorizonTicker;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.PipelineITCaseBase;

/**
 * The ticker's early ticks on a real outbox, without a job (issue 12): with a 30 s period, the
 * tick stays at the short spacing while rows keep coming (it sees them itself), a request brings
 * the next tick forward, and a spacing of 0 keeps the period. Counts ticks, never times a tick.
 */
class HorizonTickerITCase extends PipelineITCaseBase {
  private static final Duration PERIOD = Duration.ofSeconds(30);

  @Test
  void whileRowsKeepComingTheTickerKeepsTheSpacingWithoutBeingAskedAgain() throws Exception {
    try (HorizonTicker ticker =
            HorizonTicker.start(db.sourceOptions("w1", PERIOD), Duration.ofMillis(100));
        Connection c = db.connect()) {
      awaitTicks(ticker, 1);
      Thread.sleep(500); // past the one short tick after the first: the ticker is idle
      long last = OutboxWriter.journal(c, "t1", "first");
      // One request, as the cut makes for the first row after an idle spell; then none, as from
      // a cut held up by backpressure. The ticker must keep the short spacing by itself.
      ticker.requestTick();
      for (int i = 0; i < 40; i++) {
        last = OutboxWriter.journal(c, "t1", "a-" + i);
        Thread.sleep(50);
      }
      // 2 s of rows: one request alone gives one early tick, then the period (3 ticks in all);
      // the spacing allows up to 22.
      assertThat(ticker.ticks()).isGreaterThanOrEqualTo(5);
      awaitStable(last);
    }
  }

  @Test
  void aRequestBringsTheNextTickForward() throws Exception {
    try (HorizonTicker ticker =
            HorizonTicker.start(db.sourceOptions("w1", PERIOD), Duration.ofMillis(100));
        Connection c = db.connect()) {
      awaitTicks(ticker, 1);
      Thread.sleep(500); // past the one short tick after the first: the ticker is idle
      long idle = ticker.ticks();
      long seq = OutboxWriter.journal(c, "t1", "late");
      ticker.requestTick();
      awaitStable(seq);
      assertThat(ticker.ticks()).isGreaterThan(idle);
      assertThat(ticker.earlyTicks()).isPositive();
    }
  }

  @Test
  void withSpacingZeroTheTickerKeepsThePeriod() throws Exception {
    try (HorizonTicker ticker = HorizonTicker.start(db.sourceOptions("w1", PERIOD), Duration.ZERO);
        Connection c = db.connect()) {
      awaitTicks(ticker, 1);
      for (int i = 0; i < 20; i++) {
        OutboxWriter.journal(c, "t1", "a-" + i);
        ticker.requestTick();
        Thread.sleep(50);
      }
      assertThat(ticker.ticks()).isEqualTo(1);
      assertThat(ticker.earlyTicks()).isZero();
    }
  }

  private static void awaitTicks(HorizonTicker ticker, long n) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ticker.ticks() < n || ticker.consecutiveFailures() > 0) {
      assertThat(System.nanoTime()).as("ticks %d", ticker.ticks()).isLessThan(until);
      Thread.sleep(20);
    }
    Thread.sleep(200); // the first tick's statements are done
  }

  /** Waits (well within the 30 s period) for the horizon row to reach {@code seq}. */
  private void awaitStable(long seq) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try (Connection c = db.connect();
          var s = c.createStatement();
          var rs = s.executeQuery("SELECT stable_seq FROM oml_lake_horizon WHERE writer_id = 'w1'")) {
        if (rs.next() && rs.getLong(1) >= seq) {
          return;
        }
      }
      assertThat(System.nanoTime()).as("stable_seq never reached %d", seq).isLessThan(until);
      Thread.sleep(50);
    }
  }
}
