package org.oml.lakewriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A stall report names the stuck thread's frames in its file and interrupts that thread. */
class StallReportTest {
  @Test
  void aReportHoldsTheStuckThreadsStackAndInterruptsIt() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread stuck =
        new Thread(
            () -> {
              try {
                waitForEver(never);
              } catch (InterruptedException e) {
                interrupted.set(true);
              }
            },
            "stuck-test-thread");
    stuck.start();
    while (stuck.getState() != Thread.State.WAITING) {
      Thread.sleep(10);
    }

    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    Path file =
        StallReport.report(
            "[test:stuck()]", Duration.ofMinutes(10), stuck,
            new PrintStream(stderr, true, StandardCharsets.UTF_8));
    stuck.join(10_000);

    assertThat(interrupted).isTrue();
    assertThat(stderr.toString(StandardCharsets.UTF_8))
        .contains("STALLED: [test:stuck()] has run longer than PT10M", file.toString())
        .contains("(stuck-test-thread, WAITING), now interrupted")
        .contains("org.oml.lakewriter.it.support.StallReportTest.waitForEver(");
    String report = Files.readString(file);
    assertThat(report)
        .startsWith("[test:stuck()]")
        .contains("\"stuck-test-thread\" WAITING")
        .contains("StallReportTest.waitForEver");
    Files.delete(file);
  }

  private static void waitForEver(CountDownLatch latch) throws InterruptedException {
    latch.await();
  }
}
