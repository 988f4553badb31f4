package org.oml.lakewriter.it.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import org.oml.lakewriter.lease.LeaderLease;
import org.oml.lakewriter.lease.LeaseRecord;

/**
 * Issue 11 item 15 with real processes: {@code lakewriter run} in its own JVM holds the lake's
 * leader lease; a second writer on the same lake (another writer.id, slot and state.dir) is refused
 * with LEASE_HELD, naming the holder, before it creates a slot or commits anything; after a
 * SIGKILL of the holder the restart proves it dead and takes over at once with a higher epoch,
 * which the Delta log's commitInfo shows, while a second writer by mistake still waits.
 */
class LeaderLeaseITCase {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static EmbeddedPostgresServer pg;

  @TempDir Path tmp;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void aSecondWriterOnTheSameLakeIsRefusedWhileTheFirstRunsAndCommitsNothing() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Process first =
          LeaseFixtures.start(
              LeaseFixtures.options(db, lake, "w1", db.slot(), tmp.resolve("state-1")),
              tmp.resolve("run-1.log"));
      try {
        long max = writeRows(db, 0, 20);
        CommittedFrontier.await(db, "w1", max, WAIT);

        Map<String, String> other =
            LeaseFixtures.options(db, lake, "w2", "other_slot", tmp.resolve("state-2"));
        CliRun.Result second =
            CompletableFuture.supplyAsync(() -> CliRun.run(other, "run")).get(90, TimeUnit.SECONDS);

        String said = second.out() + second.err();
        assertThat(second.exitCode()).as(said).isNotZero();
        assertThat(said)
            .contains("LEASE_HELD")
            .contains("pid " + first.pid())
            .contains("lease epoch 1")
            .contains("expires ")
            .contains("renewed it while this writer waited");
        // Refused before the job started: no slot left behind, nothing committed as w2.
        assertThat(db.scalarLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'other_slot'"))
            .isZero();
        assertThat(db.scalarLong("SELECT count(*) FROM oml_lake_frontier WHERE writer_id = 'w2'"))
            .isZero();
        try (Connection c = db.connect()) {
          LeaseRecord lease = LeaderLease.read(c, lake.toUri().toString()).orElseThrow();
          assertThat(lease.epoch()).isEqualTo(1);
          assertThat(lease.holderPid()).isEqualTo(first.pid());
          assertThat(lease.jobId()).isNotNull();
          assertThat(LeaderLease.isHeldByLiveHolder(c, lake.toString())).isTrue();
        }
        // `status` shows the lease: holder, epoch, expiry, state.
        CliRun.Result status = CliRun.run(other, "status", "--json");
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out())
            .contains("\"leader_lease\"")
            .contains("\"holder_pid\" : " + first.pid())
            .contains("\"epoch\" : 1")
            .contains("\"expires_at\"")
            .contains("\"state\" : \"live\"");
        // Every data commit in the lake was made under the first writer's lease.
        List<String> tags = LeaseFixtures.dataCommitTags(lake);
        assertThat(tags).isNotEmpty().allMatch(t -> t.startsWith("1 ") && t.contains("/" + first.pid() + "/"));
      } finally {
        first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The supervisor's restart after a SIGKILL (the same command line, on the same machine) proves
   * the killed holder dead (its pid is gone) and takes the lease at once, before it expires, with
   * the next epoch; stop 53. Before, it waited for the expiry (20 s here, 30 s by default) while
   * nothing reached the lake.
   */
  @Test
  void afterASigkillTheSameCommandLineTakesTheLeaseAtOnceWithAHigherEpoch() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Map<String, String> options = twentySecondLease(db, lake);
      Process first = null;
      Process second = null;
      try {
        first = startCommitAndKill(db, options);
        LeaseRecord killed;
        try (Connection c = db.connect()) {
          killed = LeaderLease.read(c, lake.toString()).orElseThrow();
          assertThat(killed.expired()).isFalse();
        }

        // The supervisor's restart: the same command line, a new process, at once.
        second = LeaseFixtures.start(options, tmp.resolve("run-2.log"));
        long more = writeRows(db, 100, 20);
        CommittedFrontier.await(db, "w1", more, WAIT);

        String log = Files.readString(tmp.resolve("run-2.log"));
        assertThat(log)
            .contains("taken over at once")
            .contains("pid " + first.pid() + " on this host")
            .doesNotContain("waiting up to")
            .doesNotContain("LEASE_HELD");
        try (Connection c = db.connect()) {
          LeaseRecord lease = LeaderLease.read(c, lake.toString()).orElseThrow();
          assertThat(lease.epoch()).isEqualTo(2);
          assertThat(lease.holderPid()).isEqualTo(second.pid());
          assertThat(lease.acquiredAt()).isBefore(killed.expiresAt());
        }
        // The log shows who wrote what: epoch 1 (first pid), then epoch 2 (second pid), never back.
        long firstPid = first.pid();
        long secondPid = second.pid();
        List<String> tags = LeaseFixtures.dataCommitTags(lake);
        assertThat(tags).anyMatch(t -> t.startsWith("1 ") && t.contains("/" + firstPid + "/"));
        assertThat(tags).anyMatch(t -> t.startsWith("2 ") && t.contains("/" + secondPid + "/"));
        assertThat(tags).allMatch(t -> t.startsWith("1 ") || t.startsWith("2 "));
        LeaseFixtures.commitTags(lake)
            .forEach(
                (table, byVersion) -> {
                  long lastEpoch = 0;
                  for (String tag : byVersion.tailMap(1L).values()) {
                    long epoch = Long.parseLong(tag.split(" ")[0]);
                    assertThat(epoch).as(table + " epochs in log order").isGreaterThanOrEqualTo(lastEpoch);
                    lastEpoch = epoch;
                  }
                });
      } finally {
        stop(db, first, second);
      }
    }
  }

  /**
   * A killed holder's lease goes to its restart, not to a second writer started by mistake that
   * was already waiting for it: the mistaken writer (a state.dir of its own) starts at once, the
   * supervisor's restart (the same command line, resuming the killed job's checkpoints) only after
   * the lease has expired; the restart takes it, and the mistaken writer, which may take an
   * expired lease only one lease.duration after its expiry, finds a live holder and is refused.
   */
  @Test
  void aKilledHoldersLeaseGoesToItsRestartNotToASecondWriterWaitingForIt() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Map<String, String> options = twentySecondLease(db, lake);
      Map<String, String> mistaken = new java.util.LinkedHashMap<>(options);
      mistaken.put("state.dir", tmp.resolve("state-mistaken").toString());
      Process first = null;
      Process wrong = null;
      Process restart = null;
      try {
        first = startCommitAndKill(db, options);

        wrong = LeaseFixtures.start(mistaken, tmp.resolve("run-mistaken.log"));
        // A slow supervisor: the restart starts only once the killed holder's lease has expired,
        // so that without the reservation the waiting mistaken writer would take it first.
        try (Connection c = db.connect()) {
          long deadline = System.nanoTime() + WAIT.toNanos();
          LeaseRecord lease = LeaderLease.read(c, lake.toString()).orElseThrow();
          // Until it expires, or (without the reservation) the mistaken writer has taken it.
          while (lease.epoch() == 1 && !lease.expired() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            lease = LeaderLease.read(c, lake.toString()).orElseThrow();
          }
        }
        Thread.sleep(2_000);
        restart = LeaseFixtures.start(options, tmp.resolve("run-2.log"));

        assertThat(wrong.waitFor(120, TimeUnit.SECONDS)).as("the mistaken writer ends").isTrue();
        String wrongLog = Files.readString(tmp.resolve("run-mistaken.log"));
        assertThat(wrong.exitValue()).as(wrongLog).isNotZero();
        assertThat(wrongLog)
            .contains("is reserved until")
            .contains("LEASE_HELD")
            .contains("pid " + restart.pid())
            .contains("lease epoch 2");
        long more = writeRows(db, 100, 20);
        CommittedFrontier.await(db, "w1", more, WAIT);
        try (Connection c = db.connect()) {
          LeaseRecord lease = LeaderLease.read(c, lake.toString()).orElseThrow();
          assertThat(lease.epoch()).isEqualTo(2);
          assertThat(lease.holderPid()).isEqualTo(restart.pid());
        }
        long wrongPid = wrong.pid();
        assertThat(LeaseFixtures.dataCommitTags(lake))
            .noneMatch(t -> t.contains("/" + wrongPid + "/"));
      } finally {
        stop(db, first, wrong, restart);
      }
    }
  }

  /**
   * The lease never lapses while a writer starts: `run` renews it from its acquisition on, not
   * only the job's committer once the job is deployed. Before, the lease stood unrenewed from the
   * acquisition to the committer's start; a start slower than {@code lease.duration} (a restore
   * under load: the soak saw one with a 10 s lease) let a second writer take the lake. Sampled
   * here with a 3 s lease from the lease row's creation until the first commit.
   */
  @Test
  void theLeaseNeverLapsesWhileTheWriterStarts() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg)) {
      Path lake = tmp.resolve("lake");
      Map<String, String> options =
          LeaseFixtures.options(db, lake, "w1", db.slot(), tmp.resolve("state"));
      options.put("lease.duration", "3s");
      options.put("lease.renew-period", "500ms");
      options.put("lease.safety-margin", "1s");
      long max = writeRows(db, 0, 20);
      Process first = LeaseFixtures.start(options, tmp.resolve("run-1.log"));
      try {
        int samples = 0;
        List<String> lapsed = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (CommittedFrontier.read(db, "w1") < max) {
          assertThat(System.nanoTime()).as("w1 never committed").isLessThan(deadline);
          try (Connection c = db.connect();
              java.sql.Statement st = c.createStatement();
              java.sql.ResultSet rs =
                  st.executeQuery(
                      "SELECT expires_at > now(), now() - renewed_at FROM oml_lake_lease")) {
            if (rs.next()) {
              samples++;
              if (!rs.getBoolean(1)) {
                lapsed.add("lapsed, last renewed " + rs.getString(2) + " before");
              }
            }
          }
          Thread.sleep(100);
        }
        System.out.printf("lease sampled %d times while w1 started, %d lapsed%n", samples,
            lapsed.size());
        assertThat(samples).isGreaterThan(5);
        assertThat(lapsed).as(Files.readString(tmp.resolve("run-1.log"))).isEmpty();
      } finally {
        stop(db, first);
      }
    }
  }

  /**
   * Options of writer w1 with a 20 s lease: long enough that a new process (a JVM start away)
   * finds a killed holder's lease unexpired.
   */
  private Map<String, String> twentySecondLease(TestDatabase db, Path lake) {
    Map<String, String> options =
        LeaseFixtures.options(db, lake, "w1", db.slot(), tmp.resolve("state"));
    options.put("lease.duration", "20s");
    options.put("lease.safety-margin", "5s");
    return options;
  }

  /**
   * Starts a writer, waits until it has committed 20 journal rows, and SIGKILLs it, so that its
   * lease is not released; the killed process (its pid names the old holder).
   */
  private Process startCommitAndKill(TestDatabase db, Map<String, String> options)
      throws Exception {
    Process process = LeaseFixtures.start(options, tmp.resolve("run-1.log"));
    try {
      long max = writeRows(db, 0, 20);
      CommittedFrontier.await(db, "w1", max, WAIT);
    } finally {
      process.destroyForcibly(); // SIGKILL, also when the wait failed
    }
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return process;
  }

  /** Kills the processes that were started and waits until the writers' slot is free. */
  private static void stop(TestDatabase db, Process... processes) throws Exception {
    for (Process process : processes) {
      if (process != null) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    LeaseFixtures.awaitSlotFree(db, db.slot(), Duration.ofSeconds(30));
  }

  /** {@code count} journal rows of two tenants; returns the last seq. */
  private static long writeRows(TestDatabase db, int from, int count) throws Exception {
    long last = 0;
    try (Connection c = db.connect()) {
      for (int i = from; i < from + count; i++) {
        last = OutboxWriter.journal(c, i % 2 == 0 ? "acme" : "globex", "a-" + i);
      }
    }
    return last;
  }
}
