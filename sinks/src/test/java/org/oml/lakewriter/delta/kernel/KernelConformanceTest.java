package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.oml.lakewriter.delta.kernel.KernelConformance.actionsOf;
import static org.oml.lakewriter.delta.kernel.KernelConformance.atVersion;
import static org.oml.lakewriter.delta.kernel.KernelConformance.commitFile;
import static org.oml.lakewriter.delta.kernel.KernelConformance.commitTxn;
import static org.oml.lakewriter.delta.kernel.KernelConformance.commitVersions;
import static org.oml.lakewriter.delta.kernel.KernelConformance.latest;
import static org.oml.lakewriter.delta.kernel.KernelConformance.logDir;
import static org.oml.lakewriter.delta.kernel.KernelConformance.pin;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.Rewrite;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * The Delta Kernel conformance suite: every Kernel behaviour that the lake writer's exactly-once
 * rests on, pinned on real Delta tables on the local filesystem, through the project's own engine
 * and log store ({@link KernelEngines}, {@link AtomicLocalLogStore}) and client ({@link
 * KernelDeltaTableClient}). A Kernel upgrade that changes one of them fails here, by name, with the
 * Kernel version in the test's display name and in each assertion's description. The table of what
 * is pinned and why is {@code docs/kernel-conformance.md}; {@link TxnRetentionConformanceTest}
 * holds the {@code delta.setTransactionRetentionDuration} part.
 */
@DisplayNameGeneration(KernelConformance.WithKernelVersion.class)
class KernelConformanceTest {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final String APP = DeltaTableClient.APP_ID;

  @TempDir Path lake;

  private LakeConfig config;
  private Configuration conf;
  private Engine engine;
  private KernelDeltaTableClient client;
  private String table;

  @BeforeEach
  void setUp() throws Exception {
    // A checkpoint every 10 commits: behaviour 5 needs one within a few commits.
    config =
        LakeConfig.of(lake.toUri().toString())
            .withLogCheckpointInterval(10)
            .withLogCheckpointsStaggered(false);
    conf = KernelEngines.hadoopConf(config);
    engine = KernelConformance.engine(conf);
    client = new KernelDeltaTableClient(config, true, false);
    table = client.tablePath(BRONZE);
    // Creates the table (version 0) with the writer's own schema and properties.
    client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(0));
  }

  @AfterEach
  void tearDown() {
    client.close();
    KernelConformance.InterposingLogStore.BEFORE_NEXT_COMMIT.set(null);
  }

  @Test
  void runsOnTheKernelVersionItWasWrittenFor(TestInfo test) {
    KernelConformance.assertWrittenFor(test);
  }

  /** Behaviour 1: one txn version per appId, read back separately; an unknown appId is absent. */
  @Test
  void txnVersionIsReadBackPerAppId() throws Exception {
    commitTxn(engine, latest(engine, table), "conformance", "app-a", 5, 0); // version 1
    commitTxn(engine, latest(engine, table), "conformance", "app-b", 3, 0); // version 2
    commitTxn(engine, latest(engine, table), "conformance", "app-a", 7, 0); // version 3
    commitTxn(engine, latest(engine, table), "conformance", APP, 42, 0); // version 4

    Snapshot now = latest(engine, table);
    assertThat(now.getLatestTransactionVersion(engine, "app-a"))
        .as(pin("the latest txn version of app-a"))
        .contains(7L);
    assertThat(now.getLatestTransactionVersion(engine, "app-b"))
        .as(pin("app-b's txn version, untouched by app-a's later commit"))
        .contains(3L);
    assertThat(now.getLatestTransactionVersion(engine, "never-committed"))
        .as(pin("an appId that never committed reads as absent"))
        .isEmpty();
    Snapshot before = atVersion(engine, table, 1);
    assertThat(before.getLatestTransactionVersion(engine, "app-a"))
        .as(pin("app-a at table version 1"))
        .contains(5L);
    assertThat(before.getLatestTransactionVersion(engine, "app-b"))
        .as(pin("app-b before its first commit reads as absent"))
        .isEmpty();
    try (KernelDeltaTableClient fresh = new KernelDeltaTableClient(config, true, false)) {
      assertThat(fresh.readTxnVersion(BRONZE))
          .as(pin("the client reads only its own appId " + APP))
          .isEqualTo(42L);
    }
  }

  /**
   * Behaviour 2, at build time: a transaction whose txn version is at or below the table's is
   * refused by {@code build}, before anything is written, with {@code
   * ConcurrentTransactionException}; one above it builds.
   */
  @Test
  void aTxnAtOrBelowTheRecordedVersionIsRefusedAtBuild() throws Exception {
    commitTxn(engine, latest(engine, table), "conformance", APP, 10, 0);
    Snapshot recorded = latest(engine, table);
    for (long version : new long[] {10, 9, 0}) {
      Throwable refused =
          catchThrowable(
              () ->
                  recorded
                      .buildUpdateTableTransaction("conformance", Operation.WRITE)
                      .withTransactionId(APP, version)
                      .build(engine));
      assertThat(refused)
          .as(pin("building txn " + version + " on a table at txn 10"))
          .isExactlyInstanceOf(ConcurrentTransactionException.class);
    }
    assertThat(commitTxn(engine, recorded, "conformance", APP, 11, 0).getVersion())
        .as(pin("txn 11 on a table at txn 10 commits"))
        .isEqualTo(recorded.getVersion() + 1);
    assertThat(commitVersions(table))
        .as(pin("no refused transaction wrote a log version"))
        .containsExactly(0L, 1L, 2L);
  }

  /**
   * Behaviour 2, at commit time: two transactions built from the same snapshot; once one commits
   * txn {@code v}, the other's commit with txn {@code <= v} is refused with {@code
   * ConcurrentTransactionException} (no second commit), while one with a higher txn is rebased.
   */
  @Test
  void aTxnAtOrBelowAWinnersIsRefusedAtCommit() throws Exception {
    Snapshot base = latest(engine, table);
    var loserSame =
        base.buildUpdateTableTransaction("loser", Operation.WRITE)
            .withTransactionId(APP, 20)
            .build(engine);
    var loserLower =
        base.buildUpdateTableTransaction("loser", Operation.WRITE)
            .withTransactionId(APP, 19)
            .build(engine);
    var higher =
        base.buildUpdateTableTransaction("later", Operation.WRITE)
            .withTransactionId(APP, 30)
            .build(engine);
    commitTxn(engine, base, "winner", APP, 20, 0); // version 1

    assertThat(catchThrowable(() -> loserSame.commit(engine, CloseableIterable.emptyIterable())))
        .as(pin("the same txn version after a winner committed it"))
        .isExactlyInstanceOf(ConcurrentTransactionException.class);
    assertThat(catchThrowable(() -> loserLower.commit(engine, CloseableIterable.emptyIterable())))
        .as(pin("a lower txn version after a winner committed a higher one"))
        .isExactlyInstanceOf(ConcurrentTransactionException.class);
    assertThat(commitVersions(table))
        .as(pin("a refused commit writes no log version"))
        .containsExactly(0L, 1L);
    assertThat(higher.commit(engine, CloseableIterable.emptyIterable()).getVersion())
        .as(pin("a higher txn version is rebased onto the winner's commit"))
        .isEqualTo(2L);
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, APP))
        .as(pin("the rebased commit's txn"))
        .contains(30L);
  }

  /**
   * Behaviour 2 as the client sees it: a second writer commits the same batch in the window between
   * our client's txn check and its log write; Kernel refuses ours at commit and the client reports
   * {@link CommitOutcome#ALREADY_APPLIED}, never a second commit.
   */
  @Test
  void theClientMapsKernelsRefusalToAlreadyApplied() throws Exception {
    List<DataFile> first = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1, 2));
    assertThat(client.commit(BRONZE, 10, first)).isEqualTo(CommitOutcome.COMMITTED); // version 1
    assertThat(client.commit(BRONZE, 10, first))
        .as(pin("a batch at the recorded txn version"))
        .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    assertThat(client.commit(BRONZE, 9, first))
        .as(pin("a batch below the recorded txn version"))
        .isEqualTo(CommitOutcome.ALREADY_APPLIED);

    try (KernelDeltaTableClient racing = interposingClient();
        KernelDeltaTableClient second = new KernelDeltaTableClient(config, true, false)) {
      second.tagCommits("second-writer");
      List<DataFile> theirs = second.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(3));
      List<DataFile> ours = racing.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(3));
      KernelConformance.InterposingLogStore.BEFORE_NEXT_COMMIT.set(
          () -> assertThat(commitQuietly(second, 20, theirs)).isEqualTo(CommitOutcome.COMMITTED));

      assertThat(racing.commit(BRONZE, 20, ours))
          .as(pin("our commit of txn 20 after a second writer committed txn 20 under it"))
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    assertThat(commitVersions(table))
        .as(pin("exactly one commit of batch 20"))
        .containsExactly(0L, 1L, 2L);
    assertThat(String.join("\n", actionsOf(table, 2))).contains("second-writer");
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .as(pin("the batch's rows once"))
        .containsExactly(1L, 2L, 3L);
  }

  /**
   * Behaviour 1 for the client's own txn action: the client hands {@code txn} to Kernel with the
   * data actions (not through {@code withTransactionId}, whose check replays the log on every
   * commit). Kernel writes it as one {@code txn} line with the fields its builder writes, and reads
   * it back as the table's txn version, for our appId only, from the commit file and from a new
   * client.
   */
  @Test
  void theClientsTxnActionIsWrittenAsKernelsBuilderWritesIt() throws Exception {
    commitTxn(engine, latest(engine, table), "conformance", "other-app", 5, 0); // version 1
    List<DataFile> files = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1, 2));
    assertThat(client.commit(BRONZE, 30, files)).isEqualTo(CommitOutcome.COMMITTED); // version 2

    List<String> ours = txnLines(2);
    List<String> kernels = txnLines(1);
    assertThat(ours).as(pin("one txn action in the client's commit")).hasSize(1);
    assertThat(ours.get(0))
        .contains("\"appId\":\"" + APP + "\"", "\"version\":30", "\"lastUpdated\":");
    assertThat(kernels).hasSize(1);
    assertThat(ours.get(0).replaceAll("[0-9]+", "N").replace(APP, "A"))
        .as(pin("the same fields, in the same shape, as the txn line Kernel's builder writes"))
        .isEqualTo(kernels.get(0).replaceAll("[0-9]+", "N").replace("other-app", "A"));
    Snapshot now = latest(engine, table);
    assertThat(now.getLatestTransactionVersion(engine, APP)).contains(30L);
    assertThat(now.getLatestTransactionVersion(engine, "other-app")).contains(5L);
    try (KernelDeltaTableClient fresh = new KernelDeltaTableClient(config, true, false)) {
      assertThat(fresh.readTxnVersion(BRONZE)).isEqualTo(30L);
      assertThat(fresh.commit(BRONZE, 30, files))
          .as(pin("the batch replayed by a new client"))
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    assertThat(commitVersions(table)).containsExactly(0L, 1L, 2L);
  }

  private List<String> txnLines(long version) throws Exception {
    return actionsOf(table, version).stream().filter(l -> l.startsWith("{\"txn\"")).toList();
  }

  /**
   * Behaviour 3: a copy-on-write MERGE's remove, add and txn are one log version; a reader of the
   * version before sees none of them.
   */
  @Test
  void removeAddAndTxnCommitAtomically() throws Exception {
    DataFile old = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)).get(0);
    client.commit(BRONZE, 10, List.of(old)); // version 1
    DataFile replacement =
        client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1, 2)).get(0);
    assertThat(
            client.commitRewrite(
                BRONZE, 20, List.of(replacement), new Rewrite(10, List.of(old)))) // version 2
        .isEqualTo(CommitOutcome.COMMITTED);

    List<String> actions = actionsOf(table, 2);
    assertThat(actions)
        .as(pin("version 2 holds the remove, the add and the txn"))
        .anySatisfy(a -> assertThat(a).startsWith("{\"remove\"").contains(old.relativePath()))
        .anySatisfy(a -> assertThat(a).startsWith("{\"add\"").contains(replacement.relativePath()))
        .anySatisfy(
            a -> assertThat(a).startsWith("{\"txn\"").contains("\"version\":20").contains(APP));

    Snapshot previous = atVersion(engine, table, 1);
    assertThat(previous.getLatestTransactionVersion(engine, APP))
        .as(pin("a reader of version 1 sees the old txn"))
        .contains(10L);
    assertThat(livePaths(previous))
        .as(pin("a reader of version 1 sees the old file and not the new one"))
        .containsExactly(name(old));
    Snapshot now = latest(engine, table);
    assertThat(now.getLatestTransactionVersion(engine, APP)).contains(20L);
    assertThat(livePaths(now)).containsExactly(name(replacement));
  }

  /**
   * Behaviour 3, failed: the version file our MERGE wants exists already (a second writer's commit
   * of the same batch). Kernel refuses the MERGE, and none of its remove, add or txn is visible.
   */
  @Test
  void aFailedMergeCommitMakesNoneOfItsActionsVisible() throws Exception {
    DataFile old = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)).get(0);
    client.commit(BRONZE, 10, List.of(old)); // version 1
    try (KernelDeltaTableClient racing = interposingClient();
        KernelDeltaTableClient second = new KernelDeltaTableClient(config, true, false)) {
      DataFile replacement =
          racing.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1, 2)).get(0);
      List<DataFile> theirs = second.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(2));
      KernelConformance.InterposingLogStore.BEFORE_NEXT_COMMIT.set(
          () -> commitQuietly(second, 20, theirs)); // takes version 2 first

      assertThat(
              racing.commitRewrite(BRONZE, 20, List.of(replacement), new Rewrite(10, List.of(old))))
          .as(pin("a MERGE whose version was taken by the same batch"))
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
      assertThat(commitVersions(table))
          .as(pin("the failed MERGE wrote no log version"))
          .containsExactly(0L, 1L, 2L);
      assertThat(actionsOf(table, 2))
          .as(pin("version 2 is the second writer's, with no remove"))
          .noneMatch(a -> a.startsWith("{\"remove\""))
          .noneMatch(a -> a.contains(replacement.relativePath()));
      assertThat(livePaths(latest(engine, table)))
          .as(pin("the file the MERGE would have removed is live, its replacement is not"))
          .containsExactlyInAnyOrder(name(old), name(theirs.get(0)));
    }
  }

  /**
   * Behaviour 3, failed without a txn conflict: a transaction that may not rebase ({@code
   * withMaxRetries(0)}) loses its version to an unrelated commit; Kernel throws {@code
   * MaxCommitRetryLimitReachedException} and nothing of it is visible.
   */
  @Test
  void aCommitThatMayNotRebaseLeavesNothingVisible() throws Exception {
    Snapshot base = latest(engine, table);
    var mine =
        base.buildUpdateTableTransaction("mine", Operation.WRITE)
            .withTransactionId(APP, 10)
            .withMaxRetries(0)
            .build(engine);
    commitTxn(engine, base, "other", "other-app", 1, 0); // takes version 1

    assertThat(catchThrowable(() -> mine.commit(engine, CloseableIterable.emptyIterable())))
        .as(pin("a commit whose version is taken, with no retries allowed"))
        .isExactlyInstanceOf(MaxCommitRetryLimitReachedException.class);
    assertThat(commitVersions(table))
        .as(pin("the failed commit wrote no log version"))
        .containsExactly(0L, 1L);
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, APP))
        .as(pin("the failed commit's txn is not visible"))
        .isEmpty();
  }

  /**
   * Behaviour 4, one batch and many writers: N writers, each with its own engine (as separate
   * processes would have), commit the same batch on the same table version at once. Exactly one
   * wins each round, every other gets {@code ConcurrentTransactionException}, no commit file is
   * overwritten, and the table stays readable and writable.
   */
  @Test
  void putIfAbsentHoldsWhenWritersRaceForTheSameBatch() throws Exception {
    int writers = 4;
    int rounds = 15;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    Map<Long, String> winners = new java.util.HashMap<>();
    try {
      for (int round = 1; round <= rounds; round++) {
        long txn = round * 10L;
        CyclicBarrier barrier = new CyclicBarrier(writers);
        List<Future<Object>> results = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          String name = "writer-" + w;
          results.add(pool.submit(() -> race(barrier, name, APP, txn)));
        }
        List<Object> outcomes = new ArrayList<>();
        for (Future<Object> r : results) {
          outcomes.add(r.get());
        }
        List<Object> wins = outcomes.stream().filter(o -> o instanceof String).toList();
        assertThat(wins).as(pin("round " + round + ": exactly one writer wins")).hasSize(1);
        assertThat(outcomes.stream().filter(o -> !(o instanceof String)))
            .as(pin("round " + round + ": every loser gets ConcurrentTransactionException"))
            .allMatch(o -> o.getClass() == ConcurrentTransactionException.class);
        winners.put((long) round, (String) wins.get(0));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(commitVersions(table)).as(pin("one log version per round")).hasSize(rounds + 1);
    for (Map.Entry<Long, String> winner : winners.entrySet()) {
      assertThat(String.join("\n", actionsOf(table, winner.getKey())))
          .as(pin("version " + winner.getKey() + " still holds its winner's commit"))
          .contains("/" + winner.getValue() + "\",")
          .contains("\"version\":" + winner.getKey() * 10);
    }
    assertNoTempFiles();
    assertReadableAndWritable(rounds * 10L);
  }

  /**
   * Behaviour 4, distinct writers: N writers with distinct appIds commit on the same table version
   * at once; each gets a version of its own (the losers of each put-if-absent rebase), so no commit
   * is lost or overwritten and every appId's txn reads back.
   */
  @Test
  void putIfAbsentLosesNoCommitWhenDistinctWritersRace() throws Exception {
    int writers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Object> outcomes = new ArrayList<>();
    try {
      CyclicBarrier barrier = new CyclicBarrier(writers);
      List<Future<Object>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        String name = "writer-" + w;
        results.add(pool.submit(() -> race(barrier, name, "app-" + name, 5)));
      }
      for (Future<Object> r : results) {
        outcomes.add(r.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(outcomes)
        .as(pin("every distinct writer commits"))
        .allMatch(o -> o instanceof String);
    assertThat(commitVersions(table))
        .as(pin("one log version per writer, none lost"))
        .containsExactly(0L, 1L, 2L, 3L, 4L);
    Set<String> engines = new HashSet<>();
    for (long v = 1; v <= writers; v++) {
      engines.add(
          actionsOf(table, v).stream()
              .filter(a -> a.contains("\"engineInfo\""))
              .findFirst()
              .orElseThrow());
    }
    assertThat(engines).as(pin("each version holds a different writer's commit")).hasSize(writers);
    Snapshot now = latest(engine, table);
    for (int w = 0; w < writers; w++) {
      assertThat(now.getLatestTransactionVersion(engine, "app-writer-" + w))
          .as(pin("writer-" + w + "'s txn reads back"))
          .contains(5L);
    }
    assertNoTempFiles();
  }

  /**
   * Behaviour 5: txn actions survive a log checkpoint. More commits than {@code
   * delta.checkpointInterval} (the checkpoint hook runs), then an explicit checkpoint at the latest
   * version; then the commit files the checkpoints cover are deleted, as log cleanup would. Both
   * appIds' txn versions are read back from the checkpoints alone.
   */
  @Test
  void txnActionsSurviveACheckpointAndLogCleanup() throws Exception {
    commitTxn(engine, latest(engine, table), "conformance", "other-app", 3, 0); // version 1
    int interval = config.logCheckpointInterval();
    long txn = 0;
    for (int i = 0; i < interval + 1; i++) { // versions 2..12; version 10 is checkpointed
      txn += 10;
      client.commit(
          BRONZE, txn, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(txn)));
    }
    assertThat(logDir(table).resolve(String.format("%020d.checkpoint.parquet", interval)))
        .as(pin("the checkpoint hook wrote a checkpoint at version " + interval))
        .exists();
    deleteCommitsBefore(interval);
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, "other-app"))
        .as(pin("a txn whose only commit file is gone, read from the hook's checkpoint"))
        .contains(3L);

    Snapshot last = latest(engine, table);
    last.writeCheckpoint(engine);
    deleteCommitsBefore(last.getVersion());
    try (KernelDeltaTableClient fresh = new KernelDeltaTableClient(config, true, false)) {
      assertThat(fresh.readTxnVersion(BRONZE))
          .as(pin("the client's txn version read from an explicit checkpoint alone"))
          .isEqualTo(txn);
      assertThat(fresh.commit(BRONZE, txn, List.of()))
          .as(pin("a replayed batch after log cleanup"))
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    assertThat(latest(engine, table).getLatestTransactionVersion(engine, "other-app"))
        .as(pin("other-app's txn read from the explicit checkpoint alone"))
        .contains(3L);
    assertReadableAndWritable(txn);
  }

  /**
   * Behaviour 4 through the client, the second fence as the job has it: N clients (each with its
   * own engine and snapshot cache, as N processes would have) write their own files for the same
   * batch and commit it at once. Per batch exactly one commits, every other one reports {@link
   * CommitOutcome#ALREADY_APPLIED}, and each row is in the table once.
   */
  @Test
  void clientsRacingForTheSameBatchCommitItOnce() throws Exception {
    int writers = 4;
    int rounds = 8;
    List<KernelDeltaTableClient> clients = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      for (int w = 0; w < writers; w++) {
        clients.add(new KernelDeltaTableClient(config, true, false));
      }
      for (int round = 1; round <= rounds; round++) {
        long batchEnd = round * 10L;
        CyclicBarrier barrier = new CyclicBarrier(writers);
        List<Future<CommitOutcome>> results = new ArrayList<>();
        for (KernelDeltaTableClient writer : clients) {
          results.add(
              pool.submit(
                  () -> {
                    List<DataFile> files =
                        writer.writeDataFiles(
                            BRONZE, KernelDeltaTableClientITCase.rows(batchEnd - 1, batchEnd));
                    barrier.await();
                    return writer.commit(BRONZE, batchEnd, files);
                  }));
        }
        List<CommitOutcome> outcomes = new ArrayList<>();
        for (Future<CommitOutcome> r : results) {
          outcomes.add(r.get());
        }
        assertThat(outcomes)
            .as(pin("batch " + batchEnd + ": one COMMITTED, the others ALREADY_APPLIED"))
            .containsOnlyOnce(CommitOutcome.COMMITTED)
            .containsOnly(CommitOutcome.COMMITTED, CommitOutcome.ALREADY_APPLIED);
      }
    } finally {
      pool.shutdownNow();
      clients.forEach(KernelDeltaTableClient::close);
    }
    assertThat(commitVersions(table)).as(pin("one log version per batch")).hasSize(rounds + 1);
    List<Long> seqs = LakeReader.open(config).contents(BRONZE).orElseThrow().seqs();
    assertThat(seqs).as(pin("every row once")).doesNotHaveDuplicates().hasSize(2 * rounds);
    assertNoTempFiles();
  }

  /** One racer: load the latest snapshot, wait for all, commit; its name, or its failure. */
  private Object race(CyclicBarrier barrier, String name, String appId, long txn) throws Exception {
    Engine own = KernelConformance.engine(KernelEngines.hadoopConf(config));
    Snapshot base = latest(own, table);
    barrier.await();
    try {
      commitTxn(own, base, name, appId, txn, 10);
      return name;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private KernelDeltaTableClient interposingClient() throws Exception {
    LakeConfig interposing =
        new LakeConfig(
                config.lakeRoot(),
                Map.of(
                    AtomicLocalLogStore.CONF_KEY,
                    KernelConformance.InterposingLogStore.class.getName()))
            .withLogCheckpointInterval(config.logCheckpointInterval())
            .withLogCheckpointsStaggered(false);
    return new KernelDeltaTableClient(interposing, true, false);
  }

  private static CommitOutcome commitQuietly(
      KernelDeltaTableClient writer, long batchEnd, List<DataFile> files) {
    try {
      return writer.commit(BRONZE, batchEnd, files);
    } catch (Exception e) {
      throw new AssertionError("the second writer's commit failed", e);
    }
  }

  private static String name(DataFile file) {
    String path = file.relativePath();
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** The live data files' names. */
  private Set<String> livePaths(Snapshot snapshot) throws Exception {
    Set<String> paths = new HashSet<>();
    try (var batches = snapshot.getScanBuilder().build().getScanFiles(engine)) {
      while (batches.hasNext()) {
        try (var rows = batches.next().getRows()) {
          rows.forEachRemaining(
              r -> {
                String path =
                    io.delta.kernel.internal.InternalScanFileUtils.getAddFileStatus(r).getPath();
                paths.add(path.substring(path.lastIndexOf('/') + 1));
              });
        }
      }
    }
    return paths;
  }

  /**
   * Deletes the commit files (and checksums) before a checkpoint's version, as Delta's log cleanup
   * does; the checkpoint version's own commit file stays (Kernel 4.4.0 refuses a log without it).
   */
  private void deleteCommitsBefore(long version) throws Exception {
    try (Stream<Path> files = Files.list(logDir(table))) {
      for (Path file : files.collect(Collectors.toList())) {
        String name = file.getFileName().toString();
        if (name.matches("\\d{20}\\.(json|crc)")
            && Long.parseLong(name.substring(0, 20)) < version) {
          Files.delete(file);
        }
      }
    }
    assertThat(commitFile(table, 0)).doesNotExist();
  }

  private void assertNoTempFiles() throws Exception {
    try (Stream<Path> files = Files.list(logDir(table))) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")))
          .as(pin("no temp file left in the log"))
          .isEmpty();
    }
  }

  /** The table loads, reports {@code txn}, takes a new batch, and its rows read back. */
  private void assertReadableAndWritable(long txn) throws Exception {
    try (KernelDeltaTableClient fresh = new KernelDeltaTableClient(config, true, false)) {
      assertThat(fresh.readTxnVersion(BRONZE))
          .as(pin("the txn version after the test"))
          .isEqualTo(txn);
      assertThat(
              fresh.commit(
                  BRONZE,
                  txn + 1,
                  fresh.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(999_999))))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    assertThat(LakeReader.open(config).contents(BRONZE).orElseThrow().seqs())
        .as(pin("the table's rows read back"))
        .contains(999_999L);
  }
}
