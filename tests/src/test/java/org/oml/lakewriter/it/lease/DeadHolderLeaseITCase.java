package org.oml.lakewriter.it.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.lease.LeaderLease;
import org.oml.lakewriter.lease.LeaseHeldException;
import org.oml.lakewriter.lease.LeaseHolder;
import org.oml.lakewriter.lease.LeaseRecord;
import org.oml.lakewriter.lease.LeaseSettings;

/**
 * Which dead holders' leases pass before their expiry (stop 53), on the lease table of a real
 * PostgreSQL, with real processes as the holders: a child {@code sleep} stands for the killed
 * {@code lakewriter run}, and its lease row is written as that process would have taken it. Only a
 * holder whose token names its process, proven gone, to a start that may have the lease (no job
 * recorded, or it resumes that job); every other case waits for the expiry as before.
 */
class DeadHolderLeaseITCase {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration SHORT_WAIT = Duration.ofSeconds(2);
  private static final String LAKE = "file:///lakes/dead-holder";
  private static EmbeddedPostgresServer pg;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void aKilledRunHoldersLeasePassesAtOnceToItsRestart() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg);
        Connection c = db.connect()) {
      Process holder = new ProcessBuilder("sleep", "120").start();
      LeaseSettings dead = settings(db, runHolderOf(holder));
      LeaderLease.tryAcquire(c, dead, null);
      LeaderLease.renew(c, dead, 1, "job-1");
      kill(holder);

      List<String> progress = new ArrayList<>();
      long started = System.nanoTime();
      LeaseRecord taken =
          LeaderLease.acquire(
              c, settings(db, LeaseHolder.newForThisProcess()), LEASE.multipliedBy(2),
              "job-1"::equals, progress::add);

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(SHORT_WAIT);
      assertThat(taken.epoch()).isEqualTo(2);
      assertThat(taken.holderPid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(taken.jobId()).isNull();
      assertThat(progress)
          .singleElement()
          .asString()
          .contains("pid " + holder.pid() + " on this host")
          .contains("has ended")
          .contains("taken over at once");
    }
  }

  @Test
  void aDeadHoldersLeaseIsWaitedForWhenNothingProvesItOrThisStartMayNotHaveIt()
      throws Exception {
    try (TestDatabase db = TestDatabase.create(pg);
        Connection c = db.connect()) {
      // A job submitted to a cluster: the token names no process; its submitter's death proves
      // nothing (the job runs on a task manager and renews there).
      Process submitter = new ProcessBuilder("sleep", "120").start();
      LeaseHolder submitted =
          new LeaseHolder(
              LeaseHolder.newForThisProcess().host() + "/" + submitter.pid() + "/abcd",
              LeaseHolder.newForThisProcess().host(),
              submitter.pid());
      LeaderLease.tryAcquire(c, settings(db, submitted), null);
      kill(submitter);
      assertWaitsForExpiry(c, db, job -> true);
      clear(db);

      // A run whose process is still there.
      Process running = new ProcessBuilder("sleep", "120").start();
      try {
        LeaderLease.tryAcquire(c, settings(db, runHolderOf(running)), null);
        assertWaitsForExpiry(c, db, job -> true);
      } finally {
        kill(running);
      }
      clear(db);

      // A killed run whose job this start does not resume (a second writer by mistake, with a
      // state.dir of its own): the restart of that job has precedence, as at the expiry.
      Process killed = new ProcessBuilder("sleep", "120").start();
      LeaseSettings dead = settings(db, runHolderOf(killed));
      LeaderLease.tryAcquire(c, dead, null);
      LeaderLease.renew(c, dead, 1, "job-1");
      kill(killed);
      assertWaitsForExpiry(c, db, job -> false);
    }
  }

  private static void assertWaitsForExpiry(
      Connection c, TestDatabase db, java.util.function.Predicate<String> resumes)
      throws Exception {
    LeaseSettings other = settings(db, LeaseHolder.newForThisProcess());
    assertThatThrownBy(() -> LeaderLease.acquire(c, other, SHORT_WAIT, resumes, line -> {}))
        .isInstanceOf(LeaseHeldException.class)
        .hasMessageContaining("did not expire within lease.wait");
    assertThat(LeaderLease.read(c, LAKE).orElseThrow().epoch()).isEqualTo(1);
  }

  /** The holder {@code lakewriter run} would have made in {@code process}. */
  private static LeaseHolder runHolderOf(Process process) {
    LeaseHolder self = LeaseHolder.newRunningItsJobInThisProcess();
    long startMillis =
        process.toHandle().info().startInstant().orElseThrow().toEpochMilli();
    String[] parts = self.token().split(":");
    assertThat(parts).as(self.token()).hasSize(4);
    String token =
        self.host() + "/" + process.pid() + "/abcd/in-process:" + parts[1] + ":" + parts[2] + ":"
            + startMillis;
    return new LeaseHolder(token, self.host(), process.pid());
  }

  private static LeaseSettings settings(TestDatabase db, LeaseHolder holder) {
    Properties props = new Properties();
    props.setProperty("user", EmbeddedPostgresServer.USER);
    return new LeaseSettings(
        db.jdbcUrl(), props, LAKE, "w1", "slot_w1", holder, LEASE, Duration.ofSeconds(5),
        Duration.ofSeconds(3));
  }

  private static void clear(TestDatabase db) throws Exception {
    db.execute("DELETE FROM " + LeaderLease.TABLE);
  }

  private static void kill(Process p) throws InterruptedException {
    p.destroyForcibly();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }
}
