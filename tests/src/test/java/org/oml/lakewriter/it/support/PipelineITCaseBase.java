package org.oml.lakewriter.it.support;

import java.nio.file.Path;
import java.sql.SQLException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * The real parts a pipeline test runs on: one embedded PostgreSQL per class, a fresh database
 * (with its own slot) per test, a MiniCluster, and at most one running job, cancelled after the
 * test so that its slot can be dropped.
 */
public abstract class PipelineITCaseBase {
  @RegisterExtension protected static final MiniClusterExtension FLINK = Flink.miniCluster();

  protected static EmbeddedPostgresServer pg;

  @TempDir protected Path tmp;
  protected TestDatabase db;
  private JobClient job;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @BeforeEach
  void createDatabase() throws SQLException {
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabaseSlots() throws Exception {
    stopJob();
    db.close();
  }

  /** Starts the job built on {@code env}; the test's job until {@link #stopJob()}. */
  protected JobClient startJob(StreamExecutionEnvironment env, String name) throws Exception {
    job = env.executeAsync(name);
    return job;
  }

  /** Cancels the running job, if any, and gives its replication connection time to close. */
  protected void stopJob() throws Exception {
    if (job != null) {
      job.cancel().get();
      job = null;
      Thread.sleep(500);
    }
  }
}
