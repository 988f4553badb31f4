package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.exceptions.CheckpointAlreadyExistsException;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * A log checkpoint whose write fails part-way, on a real table: the log read that feeds it fails
 * at the first data commit. Kernel's own handler still publishes the checkpoint, a valid one
 * without that commit's files, so the table silently loses its rows (the defect that {@link
 * WholeCheckpointEngine} exists for). Ours publishes nothing and leaves no temporary file; the
 * table reads as before, with every row, and takes the checkpoint when the log reads again.
 */
class WholeCheckpointEngineITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final long COMMITS = 3;

  @TempDir Path lake;
  private LakeConfig config;
  private Configuration conf;

  @BeforeEach
  void threeCommitsWithoutACheckpoint() throws Exception {
    config = LakeConfig.of(lake.toUri().toString()).withLogCheckpointInterval(1000);
    conf = KernelEngines.hadoopConf(config);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= COMMITS; txn++) {
        assertThat(client.commit(BRONZE, txn, client.writeDataFiles(BRONZE, rows(txn))))
            .isEqualTo(CommitOutcome.COMMITTED);
      }
    }
    assertThat(logFiles()).noneMatch(n -> n.contains("checkpoint"));
  }

  @Test
  void kernelsOwnHandlerPublishesTheCheckpointOfAFailedWrite() throws Exception {
    Snapshot snapshot = snapshot();
    Engine failing = new FailingFirstDataCommitRead(KernelEngines.engine(conf));
    assertThatThrownBy(() -> snapshot.writeCheckpoint(failing))
        .hasStackTraceContaining("injected log read failure");
    assertThat(logFiles()).contains(checkpointName());
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .as("the rows of the commit that was not read are gone from the table")
        .containsExactly(2L, 3L);
  }

  @Test
  void aFailedCheckpointWriteLeavesNoFileAndTheTableReadsWhole() throws Exception {
    Snapshot snapshot = snapshot();
    Engine failing =
        new WholeCheckpointEngine(new FailingFirstDataCommitRead(KernelEngines.engine(conf)), conf);
    assertThatThrownBy(() -> snapshot.writeCheckpoint(failing))
        .hasStackTraceContaining("injected log read failure");
    assertThat(logFiles())
        .as("no checkpoint, no temporary file")
        .noneMatch(n -> n.contains("checkpoint"));
    assertEveryRowReads();

    Engine whole = new WholeCheckpointEngine(KernelEngines.engine(conf), conf);
    snapshot.writeCheckpoint(whole);
    assertThat(logFiles()).contains(checkpointName()).noneMatch(n -> n.endsWith(".tmp"));
    assertEveryRowReads();
    byte[] written = Files.readAllBytes(log().resolve(checkpointName()));

    assertThatThrownBy(() -> snapshot().writeCheckpoint(whole))
        .as("a second checkpoint of the same version")
        .isInstanceOf(CheckpointAlreadyExistsException.class);
    assertThat(log().resolve(checkpointName())).hasBinaryContent(written);
    assertThat(logFiles()).noneMatch(n -> n.endsWith(".tmp"));
  }

  /**
   * A checkpoint that an earlier writer (or Kernel's handler) published truncated: a new client's
   * commit names the table unusable, which quarantines its tenant alone instead of failing the job
   * over for ever; the fix its message names (delete the file) makes the table take the batch.
   */
  @Test
  void aTruncatedCheckpointMakesTheTableUnusableUntilItIsDeleted() throws Exception {
    Path checkpoint = log().resolve(checkpointName());
    Files.writeString(checkpoint, "PAR1");
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      assertThatThrownBy(() -> client.commit(BRONZE, 4, client.writeDataFiles(BRONZE, rows(4))))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("is not a Parquet file")
          .hasMessageContaining("_delta_log/*.checkpoint.parquet");
    }
    Files.delete(checkpoint);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      assertThat(client.commit(BRONZE, 4, client.writeDataFiles(BRONZE, rows(4))))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactly(1L, 2L, 3L, 4L);
  }

  private void assertEveryRowReads() throws IOException {
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, COMMITS).boxed().toList());
  }

  private Snapshot snapshot() throws Exception {
    Engine engine = KernelEngines.engine(conf);
    return Table.forPath(engine, lake.resolve(BRONZE.relativePath()).toUri().toString())
        .getLatestSnapshot(engine);
  }

  private static String checkpointName() {
    return String.format("%020d.checkpoint.parquet", COMMITS);
  }

  private Path log() {
    return lake.resolve(BRONZE.relativePath()).resolve("_delta_log");
  }

  private List<String> logFiles() throws IOException {
    try (Stream<Path> files = Files.list(log())) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static List<org.oml.lakewriter.delta.TableRow> rows(long seq) {
    return KernelDeltaTableClientITCase.rows(seq);
  }

  /**
   * An engine whose JSON reads fail at the table's first data commit (version 1): the checkpoint
   * reads the log newest first, so it has the later commits' actions in hand when the read fails.
   */
  private static final class FailingFirstDataCommitRead extends ForwardingEngine {
    FailingFirstDataCommitRead(Engine delegate) {
      super(delegate);
    }

    @Override
    public JsonHandler getJsonHandler() {
      JsonHandler json = delegate.getJsonHandler();
      return new JsonHandler() {
        @Override
        public ColumnarBatch parseJson(
            io.delta.kernel.data.ColumnVector strings,
            StructType schema,
            Optional<io.delta.kernel.data.ColumnVector> selection) {
          return json.parseJson(strings, schema, selection);
        }

        @Override
        public CloseableIterator<ColumnarBatch> readJsonFiles(
            CloseableIterator<FileStatus> files, StructType schema, Optional<Predicate> predicate)
            throws IOException {
          return json.readJsonFiles(
              files.map(WholeCheckpointEngineITCase::failOnFirstDataCommit), schema, predicate);
        }

        @Override
        public void writeJsonFileAtomically(
            String path, CloseableIterator<io.delta.kernel.data.Row> data, boolean overwrite)
            throws IOException {
          json.writeJsonFileAtomically(path, data, overwrite);
        }
      };
    }
  }

  private static FileStatus failOnFirstDataCommit(FileStatus file) {
    if (file.getPath().endsWith("00000000000000000001.json")) {
      throw new UncheckedIOException(
          new IOException("injected log read failure: " + file.getPath()));
    }
    return file;
  }
}
