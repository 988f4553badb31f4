package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/**
 * The production job ({@link LakeWriterJob#build}) on a test database and a MiniCluster: the real
 * CDC source, batch cut, Delta sink and dead-letter journal, configured through {@link
 * LakeWriterConfig} like {@code lakewriter run}. No restart strategy: a failure ends the job, so a
 * job that is still RUNNING never failed over.
 */
public final class LakeWriterJobs {
  public static final String WRITER = "w1";

  private LakeWriterJobs() {}

  /** The options of {@code lakewriter run} for this database and lake; callers add to them. */
  public static Map<String, String> options(TestDatabase db, Path lake) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("postgres.url", db.jdbcUrl());
    o.put("postgres.user", EmbeddedPostgresServer.USER);
    o.put("postgres.slot", db.slot());
    o.put("postgres.publication", TestDatabase.PUBLICATION);
    o.put("writer.id", WRITER);
    o.put("lake.root", lake.toUri().toString());
    o.put("horizon.tick-period", "200ms");
    o.put("checkpoint.interval", "500ms");
    return o;
  }

  public static LakeWriterConfig config(Map<String, String> options) {
    return LakeWriterConfig.of(options, name -> null);
  }

  /**
   * Starts the job. Checkpoints go to {@code checkpoints} and are retained on cancel; with {@code
   * restoreFrom} the job resumes from that checkpoint or savepoint as {@code lakewriter run} does
   * ({@link LakeWriterJob#restoreFrom}), otherwise it starts without state.
   */
  public static JobClient start(
      LakeWriterConfig cfg, Path checkpoints, Path restoreFrom, String name) throws Exception {
    return start(cfg, checkpoints, restoreFrom, name, new Configuration());
  }

  /** Like {@link #start(LakeWriterConfig, Path, Path, String)}, with more Flink configuration. */
  public static JobClient start(
      LakeWriterConfig cfg, Path checkpoints, Path restoreFrom, String name, Configuration more)
      throws Exception {
    Configuration extra = new Configuration();
    extra.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    if (restoreFrom != null) {
      LakeWriterJob.restoreFrom(extra, restoreFrom); // as `run` does: a checkpoint is claimed
    }
    extra.addAll(more);
    StreamExecutionEnvironment env = Flink.env(checkpoints, cfg.checkpointInterval(), 0, extra);
    LakeWriterJob.build(env, cfg);
    return env.executeAsync(name);
  }

  /**
   * The completed checkpoints under {@code checkpoints} ({@code chk-N} with {@code _metadata}),
   * oldest first.
   */
  public static List<Path> completedCheckpoints(Path checkpoints) throws IOException {
    if (!Files.isDirectory(checkpoints)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(checkpoints, 3)) {
      return files
          .filter(p -> p.getFileName().toString().equals("_metadata"))
          .map(Path::getParent)
          .filter(p -> p.getFileName().toString().startsWith("chk-"))
          .sorted(Comparator.comparingLong(LakeWriterJobs::checkpointId))
          .toList();
    }
  }

  /** The id N of a checkpoint directory {@code chk-N}. */
  public static long checkpointId(Path chk) {
    return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
  }

  /**
   * Cancels the job and waits until it has ended and its slot is free again. Waiting for the end
   * matters: Flink CDC 3.5 keeps its JDBC connection pools in a JVM-wide singleton, and a source
   * coordinator that closes (as a cancelled job shuts down) clears all of them ({@code
   * JdbcConnectionPools.clear()}), under a job started meanwhile: that job fails with "Socket
   * closed" while splitting chunks. The coordinator closes just after the job turns terminal, so a
   * short pause follows.
   */
  public static void cancel(JobClient job, TestDatabase db) throws Exception {
    job.cancel().get();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!job.getJobStatus().get().isGloballyTerminalState()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("job " + job.getJobID() + " did not end after cancel");
      }
      Thread.sleep(50);
    }
    while (System.nanoTime() < deadline) {
      if (db.scalarLong(
              "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                  + db.slot()
                  + "'")
          == 0) {
        Thread.sleep(500);
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("slot " + db.slot() + " still active after cancelling the job");
  }
}
