package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * The compaction commit on Kernel 4.4.0 itself: what it writes into the log, what it leaves of
 * the txn version, and the Kernel behaviour that decided it carries no txn action at all.
 */
class CompactionCommitITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /**
   * Pins the reason a compaction commit carries no txn action: Kernel refuses a transaction whose
   * txn version for the app id is at or below the recorded one (so "the same version again" is not
   * possible), and a higher one would claim a batch that never came.
   */
  @Test
  void kernelRefusesATxnActionAtTheRecordedVersion() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      client.commit(BRONZE, 10, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)));
    }
    Engine engine = KernelEngines.engine(KernelEngines.hadoopConf(lake));
    String path = dir.resolve(BRONZE.relativePath()).toUri().toString();
    Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
    assertThatThrownBy(
            () ->
                snapshot
                    .buildUpdateTableTransaction("compaction", Operation.MANUAL_UPDATE)
                    .withTransactionId(DeltaTableClient.APP_ID, 10)
                    .build(engine))
        .isInstanceOf(ConcurrentTransactionException.class);
  }

  @Test
  void aCompactionCommitChangesNoDataAndLeavesTheTxnVersion() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    List<DataFile> committed = new ArrayList<>();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (int i = 1; i <= 5; i++) {
        List<DataFile> files = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(i));
        client.commit(BRONZE, i * 10L, files);
        committed.addAll(files);
      }
    }
    List<java.util.Map<String, Object>> before = LakeReader.open(lake).rows(BRONZE);
    long versionBefore = LakeReader.open(lake).tableVersion(BRONZE);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      assertThat(client.smallFiles(BRONZE, 1 << 20).files()).hasSize(5);
      List<TableRow> rows = new ArrayList<>();
      for (DataFile file : committed) {
        rows.addAll(client.readDataFile(BRONZE, file));
      }
      List<DataFile> adds = client.writeDataFiles(BRONZE, rows);
      assertThat(client.commitCompaction(BRONZE, committed, adds)).isTrue();
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(50);
      // A second compaction of the same (now removed) files commits nothing.
      assertThat(client.commitCompaction(BRONZE, committed, client.writeDataFiles(BRONZE, rows)))
          .isFalse();
      // Exactly-once is untouched: a replay is already applied, the next batch commits.
      assertThat(client.commit(BRONZE, 50, List.of())).isEqualTo(CommitOutcome.ALREADY_APPLIED);
      assertThat(
              client.commit(
                  BRONZE, 60, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(6))))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.rows(BRONZE).subList(0, 5)).isEqualTo(before);
    assertThat(reader.fileCount(BRONZE)).isEqualTo(2);
    Path commit =
        dir.resolve(BRONZE.relativePath())
            .resolve("_delta_log")
            .resolve(String.format("%020d.json", versionBefore + 1));
    int adds = 0;
    int removes = 0;
    for (String line : Files.readAllLines(commit, StandardCharsets.UTF_8)) {
      JsonNode action = JSON.readTree(line);
      assertThat(action.has("txn")).as("a txn action in " + line).isFalse();
      if (action.has("add")) {
        adds++;
        assertThat(action.get("add").get("dataChange").asBoolean()).isFalse();
      }
      if (action.has("remove")) {
        removes++;
        assertThat(action.get("remove").get("dataChange").asBoolean()).isFalse();
      }
    }
    assertThat(adds).isEqualTo(1);
    assertThat(removes).isEqualTo(5);
  }

  /**
   * Another engine's commit (here a client with a snapshot cache of its own) can take the log
   * version a compaction was built for. The compaction is then made again on the winner's
   * snapshot, and the table's txn version stays the winner's, also in the cache the committer
   * shares with the compactor: a replay of the winner's batch is still skipped. (Kernel's own
   * rebase would keep the txn version read before the winner.)
   */
  @Test
  void aCompactionThatLosesTheLogVersionIsMadeAgainOnTheWinnersSnapshot() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient committer = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient compactor = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient external = new KernelDeltaTableClient(lake, true, false)) {
      List<DataFile> small = commitFiveSmallFiles(committer);
      List<DataFile> adds = compactor.writeDataFiles(BRONZE, rowsOf(compactor, small));
      AtomicInteger attempts = new AtomicInteger();
      compactor.beforeCompactionCommit(
          () -> {
            if (attempts.incrementAndGet() == 1) {
              commitBatch(external, 60);
            }
          });

      assertThat(compactor.commitCompaction(BRONZE, small, adds)).isTrue();

      assertThat(attempts).hasValue(2);
      assertThat(compactor.readTxnVersion(BRONZE)).isEqualTo(60);
      assertThat(committer.readTxnVersion(BRONZE)).isEqualTo(60);
      assertThat(committer.commit(BRONZE, 60, committer.writeDataFiles(BRONZE, rows(60))))
          .as("a replay of the winner's batch")
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.rows(BRONZE))
        .extracting(r -> r.get("seq"))
        .containsExactly(1L, 2L, 3L, 4L, 5L, 60L);
    assertThat(reader.fileCount(BRONZE)).as("the compacted file and the winner's").isEqualTo(2);
    assertThat(reader.txnVersion(BRONZE)).isEqualTo(60);
  }

  /** A racing commit that removed one of the compaction's files leaves it nothing to commit. */
  @Test
  void aCompactionWhoseFileARacingCommitRemovedCommitsNothing() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient external = new KernelDeltaTableClient(lake, true, false);
        KernelDeltaTableClient compactor = new KernelDeltaTableClient(lake)) {
      List<DataFile> small = commitFiveSmallFiles(compactor);
      List<DataFile> adds = compactor.writeDataFiles(BRONZE, rowsOf(compactor, small));
      List<DataFile> firstTwo = small.subList(0, 2);
      List<DataFile> externalAdds = external.writeDataFiles(BRONZE, rowsOf(external, firstTwo));
      AtomicInteger attempts = new AtomicInteger();
      compactor.beforeCompactionCommit(
          () -> {
            attempts.incrementAndGet();
            try {
              assertThat(external.commitCompaction(BRONZE, firstTwo, externalAdds)).isTrue();
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });

      assertThat(compactor.commitCompaction(BRONZE, small, adds)).isFalse();
      assertThat(attempts).as("checked again, and found two files gone").hasValue(1);
      assertThat(compactor.readTxnVersion(BRONZE)).isEqualTo(50);
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.rows(BRONZE))
        .extracting(r -> r.get("seq"))
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
    assertThat(reader.fileCount(BRONZE)).isEqualTo(4);
  }

  /**
   * Our own clients never build two transactions on one cached snapshot at once: the committer's
   * data commit to a table waits while the compactor's commit to it is in progress, then commits
   * on the compacted table.
   */
  @Test
  void aDataCommitWaitsWhileACompactionCommitsToTheSameTable() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    ExecutorService committerThread = Executors.newSingleThreadExecutor();
    try (KernelDeltaTableClient committer = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient compactor = new KernelDeltaTableClient(lake)) {
      List<DataFile> small = commitFiveSmallFiles(committer);
      List<DataFile> adds = compactor.writeDataFiles(BRONZE, rowsOf(compactor, small));
      List<DataFile> batch = committer.writeDataFiles(BRONZE, rows(60));
      List<Future<CommitOutcome>> dataCommit = new ArrayList<>();
      compactor.beforeCompactionCommit(
          () -> {
            dataCommit.add(committerThread.submit(() -> committer.commit(BRONZE, 60, batch)));
            assertThatThrownBy(() -> dataCommit.get(0).get(500, TimeUnit.MILLISECONDS))
                .as("the data commit while the compaction commits")
                .isInstanceOf(TimeoutException.class);
          });

      assertThat(compactor.commitCompaction(BRONZE, small, adds)).isTrue();

      assertThat(dataCommit.get(0).get(30, TimeUnit.SECONDS)).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(compactor.readTxnVersion(BRONZE)).isEqualTo(60);
    } finally {
      committerThread.shutdownNow();
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.rows(BRONZE))
        .extracting(r -> r.get("seq"))
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 60L);
    assertThat(reader.fileCount(BRONZE)).isEqualTo(2);
    assertThat(reader.txnVersion(BRONZE)).isEqualTo(60);
  }

  /** Five batches of one row each (seq i, txn i * 10), one file each. */
  private static List<DataFile> commitFiveSmallFiles(KernelDeltaTableClient client)
      throws Exception {
    List<DataFile> committed = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      List<DataFile> files = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(i));
      client.commit(BRONZE, i * 10L, files);
      committed.addAll(files);
    }
    return committed;
  }

  private static void commitBatch(KernelDeltaTableClient client, long seq) {
    try {
      assertThat(client.commit(BRONZE, seq, client.writeDataFiles(BRONZE, rows(seq))))
          .isEqualTo(CommitOutcome.COMMITTED);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<TableRow> rows(long seq) {
    return KernelDeltaTableClientITCase.rows(seq);
  }

  private static List<TableRow> rowsOf(KernelDeltaTableClient client, List<DataFile> files)
      throws Exception {
    List<TableRow> rows = new ArrayList<>();
    for (DataFile file : files) {
      rows.addAll(client.readDataFile(BRONZE, file));
    }
    return rows;
  }

  @Test
  void aCheckpointIsWrittenAndReadable() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (int i = 1; i <= 3; i++) {
        client.commit(
            BRONZE, i * 10L, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(i)));
      }
      long version = client.checkpoint(BRONZE);
      assertThat(version).isEqualTo(3);
      assertThat(
              dir.resolve(BRONZE.relativePath())
                  .resolve("_delta_log")
                  .resolve(String.format("%020d.checkpoint.parquet", version)))
          .exists();
      assertThat(client.checkpoint(BRONZE)).as("again: already there").isEqualTo(3);
      assertThat(client.checkpoint(TableId.of("nobody", TableKind.BRONZE_JOURNAL_EVENTS)))
          .isEqualTo(DeltaTableClient.NO_VERSION);
    }
    assertThat(LakeReader.open(lake).rows(BRONZE)).hasSize(3);
    assertThat(LakeReader.open(lake).txnVersion(BRONZE)).isEqualTo(30);
  }
}
