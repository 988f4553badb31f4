package org.oml.lakewriter.it.deadletter;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.Flink;
import org.oml.lakewriter.it.support.LakeWriterJobs;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * The production job on embedded PostgreSQL and a MiniCluster without a restart strategy (a job
 * still RUNNING never failed over), metrics in memory: what the dependency-outage tests of issue 11
 * (breaker, journal, refetch) share.
 */
abstract class LakeJobITBase {
  static final Duration WAIT = Duration.ofSeconds(120);
  /**
   * A MiniCluster reporting to {@code reporter}, with completed checkpoints kept. Each test class
   * registers its own (an in-memory reporter is closed with its cluster, so it cannot be shared).
   */
  static MiniClusterExtension cluster(InMemoryReporter reporter) {
    Configuration conf = reporter.addToConfiguration(new Configuration());
    conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1000);
    return Flink.miniCluster(conf);
  }

  static EmbeddedPostgresServer pg;

  @TempDir Path tmp;
  TestDatabase db;
  Path lake;
  Map<String, String> options;
  final List<JobClient> jobs = new ArrayList<>();
  final DeadLetterJournal journal = new DeadLetterJournal("public");

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void createDatabase() throws Exception {
    db = TestDatabase.create(pg);
    lake = tmp.resolve("lake");
    options = LakeWriterJobs.options(db, lake);
  }

  @AfterEach
  void cancelJobs() throws Exception {
    for (JobClient job : jobs) {
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        LakeWriterJobs.cancel(job, db);
      }
    }
    db.close();
  }

  LakeWriterConfig config() {
    return LakeWriterJobs.config(options);
  }

  JobClient start(String name, Path checkpoints, Path restoreFrom) throws Exception {
    JobClient job = LakeWriterJobs.start(config(), checkpoints, restoreFrom, name);
    jobs.add(job);
    return job;
  }

  LakeReader reader() throws Exception {
    return LakeReader.open(LakeConfig.of(lake.toUri().toString()));
  }

  long journalled() throws Exception {
    try (Connection c = db.connect()) {
      return journal.count(c, DeadLetterJournal.Filter.all());
    }
  }

  /** Waits for the condition; fails at once, with the cause, if a job of this test failed. */
  void await(BooleanSupplier condition, String what) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      failIfAJobFailed();
      Thread.sleep(100);
    }
    throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
  }

  void awaitFrontier(long seq) throws Exception {
    await(() -> CommittedFrontier.read(db, LakeWriterJobs.WRITER) >= seq, "committed frontier >= " + seq);
  }

  long outboxHead() throws Exception {
    return db.scalarLong("SELECT coalesce(max(seq), 0) FROM oml_outbox");
  }

  void failIfAJobFailed() throws Exception {
    for (JobClient job : jobs) {
      if (job.getJobStatus().get() == JobStatus.FAILED) {
        try {
          job.getJobExecutionResult().get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError("job " + job.getJobID() + " failed", e);
        }
        throw new AssertionError("job " + job.getJobID() + " failed");
      }
    }
  }

  /** Waits for a completed checkpoint newer than {@code after} (or any), and returns it. */
  static Path awaitCheckpointAfter(Path checkpoints, Path after) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Path> done = LakeWriterJobs.completedCheckpoints(checkpoints);
      if (!done.isEmpty() && !done.get(done.size() - 1).equals(after)) {
        return done.get(done.size() - 1);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no checkpoint completed under " + checkpoints);
  }
}
