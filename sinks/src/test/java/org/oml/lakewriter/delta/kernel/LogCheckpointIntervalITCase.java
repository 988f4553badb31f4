package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableStats;
import org.oml.lakewriter.delta.testing.CountingLakeFileSystem;

/**
 * The log checkpoint interval a client keeps on its tables ({@link
 * LakeConfig#logCheckpointInterval}), on real Delta tables: a table made by an older writer (at 10)
 * is moved to the configured interval by the next data commit of a new client, in that commit (its
 * txn with it), and from then on it is checkpointed at the new interval only; and the tables'
 * phases within the interval ({@link LakeConfig#logCheckpointsStaggered}). The tests of the interval
 * are unstaggered, so that their checkpoints are at its multiples.
 */
class LogCheckpointIntervalITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path lake;

  @Test
  void aNewClientMovesAnOlderTableToItsIntervalInItsFirstCommit() throws Exception {
    LakeConfig old = unstaggered().withLogCheckpointInterval(10);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(old, true, false)) {
      for (long txn = 1; txn <= 12; txn++) { // versions 1..12
        commit(client, txn);
      }
    }
    assertThat(checkpoints()).containsExactly(10L);
    assertThat(stats(old).checkpointInterval()).isEqualTo(10);

    LakeConfig now = unstaggered();
    assertThat(now.logCheckpointInterval()).isEqualTo(LakeConfig.DEFAULT_LOG_CHECKPOINT_INTERVAL);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(now, true, false)) {
      commit(client, 13); // version 13, with the new property
      TableStats moved = stats(now);
      assertThat(moved.tableVersion()).as("no commit of its own").isEqualTo(13);
      assertThat(moved.txnVersion()).isEqualTo(13);
      assertThat(moved.checkpointInterval()).isEqualTo(100);
      assertThat(client.commit(BRONZE, 13, client.writeDataFiles(BRONZE, rows(13))))
          .as("a replay of the batch that moved it")
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(now, true, false)) {
      for (long txn = 14; txn <= 100; txn++) { // versions 14..100
        commit(client, txn);
      }
    }
    assertThat(checkpoints()).as("none at 20..90, one at 100").containsExactly(10L, 100L);
    TableStats last = stats(now);
    assertThat(last.tableVersion()).isEqualTo(100);
    assertThat(last.checkpointVersion()).contains(100L);
    assertThat(LakeReader.open(now).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 100).boxed().toList());
  }

  @Test
  void aNewTableIsCreatedWithTheClientsInterval() throws Exception {
    LakeConfig config = unstaggered().withLogCheckpointInterval(3);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 7; txn++) {
        commit(client, txn);
      }
    }
    assertThat(stats(config).checkpointInterval()).isEqualTo(3);
    assertThat(checkpoints()).containsExactly(3L, 6L);
  }

  /**
   * A due log checkpoint is written from the commit's post-commit snapshot, so the commit that
   * checkpoints lists no log. Kernel's own checkpoint hook loaded the snapshot of its version
   * again, which lists the whole {@code _delta_log} directory twice (15 listings in this test):
   * on the commit path, and a cost that grew with the table's age. Two listings per checkpoint are
   * left: the log cleanup's, on the client's background thread, and the snapshot cache's reload at
   * the next commit (it drops its snapshot at a checkpoint, so that the next one starts from it).
   */
  @Test
  void aDueCheckpointIsWrittenWithoutLoadingTheSnapshotAgain() throws Exception {
    LakeConfig config =
        CountingLakeFileSystem.lake(lake)
            .withLogCheckpointInterval(5)
            .withLogCheckpointsStaggered(false)
            .withLogCompactionInterval(0);
    long afterFirst;
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      commit(client, 1); // creates the table: its only snapshot load
      afterFirst = CountingLakeFileSystem.totalListings(lake);
      for (long txn = 2; txn <= 20; txn++) {
        commit(client, txn);
      }
    } // close() waits for the background thread
    assertThat(checkpoints()).containsExactly(5L, 10L, 15L, 20L);
    assertThat(CountingLakeFileSystem.totalListings(lake) - afterFirst)
        .as("listings after the table was made: 4 log cleanups, 3 reloads (5, 10, 15), no hook's")
        .isEqualTo(4 + 3);
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
  }

  /**
   * By default each table checkpoints at a phase of its own, fixed by its path, so that tables
   * committed in the same rounds do not all checkpoint in the same one; a new client (a restarted
   * writer) keeps each table's phase, and the independent reader reads every row through them.
   */
  @Test
  void staggeredTablesCheckpointAtTheirOwnPhasesAcrossARestart() throws Exception {
    TableId beta = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
    LakeConfig config = LakeConfig.of(lake.toUri().toString()).withLogCheckpointInterval(10);
    assertThat(config.logCheckpointsStaggered()).as("the default").isTrue();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 12; txn++) { // versions 1..12 of both tables
        commit(client, BRONZE, txn);
        commit(client, beta, txn);
      }
    }
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 13; txn <= 25; txn++) {
        commit(client, BRONZE, txn);
        commit(client, beta, txn);
      }
    }
    // acme's phase at interval 10 is 9 and beta's is 8 (LogCheckpointScheduleTest pins the hash).
    assertThat(checkpoints(BRONZE)).containsExactly(1L, 11L, 21L);
    assertThat(checkpoints(beta)).containsExactly(2L, 12L, 22L);
    for (TableId table : List.of(BRONZE, beta)) {
      TableStats stats = new KernelTableReader(config).stats(table).orElseThrow();
      assertThat(stats.tableVersion()).isEqualTo(25);
      assertThat(stats.txnVersion()).isEqualTo(25);
      assertThat(stats.checkpointVersion()).contains(table == BRONZE ? 21L : 22L);
      assertThat(LakeReader.open(config).contents(table).orElseThrow().seqs())
          .as("%s read back through its checkpoints", table)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, 25).boxed().toList());
    }
  }

  /**
   * A commit that reached a due version by rebasing over another engine's commit writes that
   * version's checkpoint: due-ness is decided on the version the commit made, not the one it was
   * built for.
   */
  @Test
  void aCommitRebasedOntoADueVersionStillWritesItsCheckpoint() throws Exception {
    LakeConfig config =
        new LakeConfig(
                lake.toUri().toString(),
                Map.of(
                    AtomicLocalLogStore.CONF_KEY,
                    KernelConformance.InterposingLogStore.class.getName()))
            .withLogCheckpointInterval(5)
            .withLogCheckpointsStaggered(false);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 3; txn++) { // versions 1..3
        commit(client, txn);
      }
      Engine other = KernelConformance.engine(KernelEngines.hadoopConf(config));
      String path = client.tablePath(BRONZE);
      KernelConformance.InterposingLogStore.BEFORE_NEXT_COMMIT.set(
          () ->
              KernelConformance.commitTxn(
                  other, KernelConformance.latest(other, path), "other-engine", "other-app", 1, 0));
      commit(client, 4); // version 4 is the other engine's: ours is rebased onto 5, which is due
    } finally {
      KernelConformance.InterposingLogStore.BEFORE_NEXT_COMMIT.set(null);
    }
    assertThat(checkpoints()).containsExactly(5L);
    TableStats stats = stats(config);
    assertThat(stats.tableVersion()).isEqualTo(5);
    assertThat(stats.txnVersion()).isEqualTo(4);
    assertThat(stats.checkpointVersion()).contains(5L);
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .containsExactly(1L, 2L, 3L, 4L);
  }

  /**
   * A due commit whose result has no post-commit snapshot (Kernel's API makes it optional; 4.4
   * returned one even for the rebased commit above): its checkpoint is written from that version
   * loaded again, as Kernel's own hook would.
   */
  @Test
  void aDueCommitWithoutAPostCommitSnapshotIsCheckpointedFromTheLog() throws Exception {
    LakeConfig config = unstaggered().withLogCheckpointInterval(5);
    String path;
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config, true, false)) {
      for (long txn = 1; txn <= 3; txn++) { // versions 1..3
        commit(client, txn);
      }
      path = client.tablePath(BRONZE);
    }
    Engine engine = KernelConformance.engine(KernelEngines.hadoopConf(config));
    TransactionCommitResult committed =
        KernelConformance.commitTxn(
            engine, KernelConformance.latest(engine, path), "other-engine", "other-app", 1, 0);
    TransactionCommitResult withoutSnapshot =
        new TransactionCommitResult(
            committed.getVersion(),
            committed.getPostCommitHooks(),
            committed.getTransactionReport(),
            Optional.empty());

    assertThat(PostCommitHooks.run(engine, BRONZE, path, 4, withoutSnapshot, true).checkpointed())
        .isTrue();
    assertThat(checkpoints()).containsExactly(4L);
    assertThat(PostCommitHooks.run(engine, BRONZE, path, 4, withoutSnapshot, false).checkpointed())
        .as("not due: none written")
        .isFalse();
    assertThat(stats(config).checkpointVersion()).contains(4L);
  }

  private LakeConfig unstaggered() {
    return LakeConfig.of(lake.toUri().toString()).withLogCheckpointsStaggered(false);
  }

  private static void commit(KernelDeltaTableClient client, long txn) throws Exception {
    commit(client, BRONZE, txn);
  }

  private static void commit(KernelDeltaTableClient client, TableId table, long txn)
      throws Exception {
    assertThat(client.commit(table, txn, client.writeDataFiles(table, rows(txn))))
        .isEqualTo(CommitOutcome.COMMITTED);
  }

  private static List<org.oml.lakewriter.delta.TableRow> rows(long seq) {
    return KernelDeltaTableClientITCase.rows(seq);
  }

  private TableStats stats(LakeConfig config) throws Exception {
    return new KernelTableReader(config).stats(BRONZE).orElseThrow();
  }

  private List<Long> checkpoints() throws Exception {
    return checkpoints(BRONZE);
  }

  private List<Long> checkpoints(TableId table) throws Exception {
    Path log = lake.resolve(table.relativePath()).resolve("_delta_log");
    try (Stream<Path> files = Files.list(log)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".checkpoint.parquet"))
          .map(n -> Long.parseLong(n.substring(0, 20)))
          .sorted()
          .toList();
    }
  }
}
