package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.promoted;
import static org.oml.lakewriter.delta.merge.BatchFoldTest.retraction;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.compact.CompactionPolicy;
import org.oml.lakewriter.delta.compact.TableCompactor;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.EventKind;

/**
 * Retractions on a real silver table of many files with random artifact ids (the production
 * shape: statistics on {@code artifact_id} rule out no file): a retraction reads only the file
 * that holds its key, and still lands on its row when another engine rewrote that file behind the
 * writer's back.
 */
class RetractionIndexITCase {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final int FILES = 20;
  private static final int ROWS_PER_FILE = 10;

  @TempDir Path dir;

  /** Random 32-hex-digit ids, {@code ROWS_PER_FILE} per file, one file per committed batch. */
  private final List<String> ids = new ArrayList<>();

  @Test
  void aRetractionReadsOnlyTheFileThatHoldsItsKey() throws Exception {
    LakeConfig lake = fill();
    assertThat(LakeReader.open(lake).fileCount(SILVER)).isEqualTo(FILES);
    String target = ids.get(7 * ROWS_PER_FILE + 3);

    // A restart: a new writer, whose index is built from the lake.
    try (Reads reads = new Reads(new KernelDeltaTableClient(lake))) {
      SilverMerge merge = new SilverMerge(reads);
      SilverMerge.Outcome outcome =
          merge.write(
              "(1000, 1100]",
              1100,
              SILVER,
              List.of(),
              List.of(retraction(1001, target, EventKind.DEMOTE)));
      assertThat(outcome.filesRead()).as("files the retraction read").isEqualTo(1);
      assertThat(reads.files).hasSize(1);
      assertThat(outcome.filesReplaced()).isEqualTo(1);
      assertThat(outcome.retractsWithoutRow()).isZero();
      commit(lake, 1100, outcome);
    }
    assertOnlyDemoted(lake, target, 1001);
    assertThat(LakeReader.open(lake).fileCount(SILVER)).isEqualTo(FILES);
  }

  @Test
  void aFileRewrittenByAnotherEngineAfterTheIndexWasBuiltStillGetsTheRetraction()
      throws Exception {
    // A compaction (dataChange = false): the index follows it from the log, no rebuild.
    afterAForeignRewriteTheRetractionLands(false, 0, 1);
  }

  @Test
  void anotherEnginesDataChangeRebuildsTheIndexFromTheLake() throws Exception {
    // The same file replaced, flagged as a data change: the log cannot vouch for the rows.
    afterAForeignRewriteTheRetractionLands(true, 1, 0);
  }

  @Test
  void theJobsOwnCompactionIsFollowedFromTheLogWithoutARebuild() throws Exception {
    afterTheJobsOwnCompaction(false);
  }

  @Test
  void aCompactionFirstSeenByTheCopyOnWriteIsFollowedAndThePlanMadeAgain() throws Exception {
    // The index was checked at the barrier (as the writer does when it settles pending files),
    // so the copy-on-write's own check is the first to see the compaction.
    afterTheJobsOwnCompaction(true);
  }

  private void afterTheJobsOwnCompaction(boolean checkedAtTheBarrier) throws Exception {
    LakeConfig lake = fill();
    String first = ids.get(2 * ROWS_PER_FILE + 3);
    String target = ids.get(17 * ROWS_PER_FILE + 2);
    try (Reads reads = new Reads(new KernelDeltaTableClient(lake))) {
      SilverMerge merge = new SilverMerge(reads);
      demoteAt1100(lake, merge, first);
      if (checkedAtTheBarrier) {
        merge.barrier(); // hands the unit over
        merge.barrier(); // its commit seen: the index is checked here, for the next interval
      }
      // The committer's compaction, with a client of its own, as in the job, after the last
      // check: the log since that check holds the compaction (and this writer's commit, if the
      // index was not checked at the barrier). Its keyed cap is raised so that the table's 20
      // files become one: the test is about the index following a compaction, not about the cap.
      try (KernelDeltaTableClient committer = new KernelDeltaTableClient(lake)) {
        CompactionPolicy off = CompactionPolicy.OFF;
        CompactionPolicy uncapped =
            new CompactionPolicy(
                true, 2, off.smallFileBytes(), off.targetFileBytes(), off.budget());
        TableCompactor.Result compacted =
            new TableCompactor(committer, uncapped, new CompactionGuard())
                .compact(SILVER, TableCompactor.IoCheck.NONE);
        assertThat(compacted.filesRemoved()).isEqualTo(FILES);
        assertThat(compacted.filesAdded()).isEqualTo(1);
      }
      List<String> live = LakeReader.open(lake).filePaths(SILVER);
      assertThat(live).hasSize(1);
      if (!checkedAtTheBarrier) {
        merge.barrier();
      }
      reads.files.clear();

      SilverMerge.Outcome two =
          merge.write(
              "(1100, 1200]",
              1200,
              SILVER,
              List.of(),
              List.of(retraction(1101, target, EventKind.ERASE)));
      assertThat(merge.keyIndexRebuilds()).as("rebuilds").isZero();
      assertThat(merge.keyIndexCatchUps()).as("catch-ups").isEqualTo(1);
      assertThat(two.retractsWithoutRow()).isZero();
      assertThat(reads.files).containsExactlyElementsOf(live);
      assertThat(two.commit().removes()).extracting(DataFile::relativePath).isEqualTo(live);
      commit(lake, 1200, two);
    }
    Map<String, Map<String, Object>> rows = rowsByKey(lake);
    assertThat(rows).hasSize(FILES * ROWS_PER_FILE);
    assertThat(rows.get(first).get("state")).isEqualTo(StateTransitions.DEMOTED);
    assertThat(rows.get(target).get("state")).isEqualTo(StateTransitions.ERASED);
  }

  private void afterAForeignRewriteTheRetractionLands(
      boolean dataChange, long rebuilds, long catchUps) throws Exception {
    LakeConfig lake = fill();
    String first = ids.get(3 * ROWS_PER_FILE + 1);
    String target = ids.get(11 * ROWS_PER_FILE + 5);
    try (Reads reads = new Reads(new KernelDeltaTableClient(lake))) {
      SilverMerge merge = new SilverMerge(reads);
      // The index is built by a first retraction and kept in step with the writer's own commit.
      demoteAt1100(lake, merge, first);
      merge.barrier();
      String holder = fileHolding(lake, target);

      // Another engine compacts the file that holds the target, within the checkpoint interval.
      String copy =
          OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), holder, dataChange);
      reads.files.clear();
      SilverMerge.Outcome two =
          merge.write(
              "(1100, 1200]",
              1200,
              SILVER,
              List.of(),
              List.of(retraction(1101, target, EventKind.ERASE)));
      assertThat(two.retractsWithoutRow()).isZero();
      assertThat(two.commit().removes()).extracting(DataFile::relativePath).containsExactly(copy);
      assertThat(reads.files).containsExactly(copy);
      assertThat(merge.keyIndexRebuilds()).as("rebuilds").isEqualTo(rebuilds);
      assertThat(merge.keyIndexCatchUps()).as("catch-ups").isEqualTo(catchUps);
      commit(lake, 1200, two);
    }
    Map<String, Map<String, Object>> rows = rowsByKey(lake);
    assertThat(rows).hasSize(FILES * ROWS_PER_FILE);
    assertThat(rows.get(first).get("state")).isEqualTo(StateTransitions.DEMOTED);
    assertThat(rows.get(target).get("state")).isEqualTo(StateTransitions.ERASED);
    assertThat(rows.get(target).get("seq")).isEqualTo(1101L);
  }

  @Test
  void afterARestartARetractionLandsOnAFileAnotherEngineRewrote() throws Exception {
    LakeConfig lake = fill();
    String target = ids.get(15 * ROWS_PER_FILE);
    String copy =
        OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), fileHolding(lake, target));
    try (Reads reads = new Reads(new KernelDeltaTableClient(lake))) {
      SilverMerge merge = new SilverMerge(reads);
      SilverMerge.Outcome outcome =
          merge.write(
              "(1000, 1100]",
              1100,
              SILVER,
              List.of(),
              List.of(retraction(1001, target, EventKind.DEMOTE)));
      assertThat(reads.files).containsExactly(copy);
      commit(lake, 1100, outcome);
    }
    assertOnlyDemoted(lake, target, 1001);
  }

  @Test
  void aRestartTakesTheKeysOfFilesSavedInTheKeyCacheAndReadsOnlyTheOthers() throws Exception {
    LakeConfig lake = fill();
    KeyCache cache = KeyCache.in(dir.resolve("key-cache").toString());
    String first = ids.get(4 * ROWS_PER_FILE + 2);
    // A first run builds the index from the lake, demotes a key (its file is rewritten) and saves
    // the index as it closes.
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      SilverMerge merge = new SilverMerge(client, cache);
      demoteAt1100(lake, merge, first);
      assertThat(merge.filesFromKeyCache()).isZero();
      merge.saveKeys();
    }
    assertThat(dir.resolve("key-cache").resolve(SILVER.relativePath() + ".keys")).exists();
    // A file committed after the save (the first run killed before it saved again).
    String late = "0123456789abcdef0123456789abcdef";
    addFile(lake, 1200, promoted(late, 1101));

    // The restart: a new writer and client on the same cache.
    String retried = ids.get(9 * ROWS_PER_FILE + 1);
    String target = ids.get(13 * ROWS_PER_FILE + 7);
    String fresh = "fedcba9876543210fedcba9876543210";
    KernelDeltaTableClient restarted = new KernelDeltaTableClient(lake);
    try (Reads reads = new Reads(restarted)) {
      SilverMerge merge = new SilverMerge(reads, KeyCache.in(dir.resolve("key-cache").toString()));
      SilverMerge.Outcome outcome =
          merge.write(
              "(1200, 1300]",
              1300,
              SILVER,
              List.of(promoted(retried, 1201), promoted(late, 1202), promoted(fresh, 1203)),
              List.of(retraction(1204, target, EventKind.DEMOTE)));
      assertThat(merge.filesFromKeyCache()).as("live files taken from the cache").isEqualTo(FILES);
      assertThat(restarted.keyFilesRead()).as("key columns read: the late file's").isEqualTo(1);
      assertThat(outcome.promotionsOfExistingKeys()).isEqualTo(2);
      assertThat(outcome.retractsWithoutRow()).isZero();
      assertThat(reads.files).containsExactly(fileHolding(lake, target));
      commit(lake, 1300, outcome);
    }
    Map<String, Map<String, Object>> rows = rowsByKey(lake);
    assertThat(rows).hasSize(FILES * ROWS_PER_FILE + 2);
    assertThat(rows.get(first).get("state")).isEqualTo(StateTransitions.DEMOTED);
    assertThat(rows.get(target).get("state")).isEqualTo(StateTransitions.DEMOTED);
    assertThat(rows.get(retried).get("state")).isEqualTo(StateTransitions.ACTIVE);
    assertThat(rows.get(retried).get("seq")).as("the retry changed nothing").isNotEqualTo(1201L);
  }

  @Test
  void aDamagedKeyCacheIsNotUsedAndTheRestartReadsTheTable() throws Exception {
    LakeConfig lake = fill();
    Path cacheDir = dir.resolve("key-cache");
    String retried = ids.get(3);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      SilverMerge merge = new SilverMerge(client, KeyCache.in(cacheDir.toString()));
      merge.write("(1000, 1100]", 1100, SILVER, List.of(promoted(retried, 1001)), List.of());
      merge.saveKeys();
    }
    Path saved = cacheDir.resolve(SILVER.relativePath() + ".keys");
    byte[] bytes = Files.readAllBytes(saved);
    bytes[bytes.length / 2] ^= 0x10; // one bit flipped on disk
    Files.write(saved, bytes);

    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      SilverMerge merge = new SilverMerge(client, KeyCache.in(cacheDir.toString()));
      SilverMerge.Outcome outcome =
          merge.write("(1000, 1100]", 1100, SILVER, List.of(promoted(retried, 1001)), List.of());
      assertThat(merge.filesFromKeyCache()).isZero();
      assertThat(client.keyFilesRead()).as("every live file's keys read").isEqualTo(FILES);
      assertThat(outcome.promotionsOfExistingKeys()).isEqualTo(1);
      assertThat(outcome.commit()).as("nothing to commit").isNull();
    }
  }

  /** Demotes {@code id} in batch (1000, 1100] (seq 1001) and commits it. */
  private static void demoteAt1100(LakeConfig lake, SilverMerge merge, String id)
      throws IOException {
    commit(
        lake,
        1100,
        merge.write(
            "(1000, 1100]",
            1100,
            SILVER,
            List.of(),
            List.of(retraction(1001, id, EventKind.DEMOTE))));
  }

  /** One committed batch of the given promotions, by a writer that saves no keys. */
  private static void addFile(LakeConfig lake, long batchEnd, TableRow... rows) throws Exception {
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      SilverMerge.Outcome outcome =
          new SilverMerge(client).write("late", batchEnd, SILVER, List.of(rows), List.of());
      assertThat(client.commit(SILVER, batchEnd, outcome.commit().files()))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
  }

  /** {@code FILES} committed batches of {@code ROWS_PER_FILE} promotions with random ids. */
  private LakeConfig fill() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    Random random = new Random(42);
    long seq = 0;
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      SilverMerge merge = new SilverMerge(client);
      for (int f = 0; f < FILES; f++) {
        List<TableRow> rows = new ArrayList<>();
        for (int r = 0; r < ROWS_PER_FILE; r++) {
          byte[] id = new byte[16];
          random.nextBytes(id);
          ids.add(HexFormat.of().formatHex(id));
          rows.add(promoted(ids.get(ids.size() - 1), ++seq));
        }
        long batchEnd = (f + 1) * 50L;
        SilverMerge.Outcome outcome = merge.write("f" + f, batchEnd, SILVER, rows, List.of());
        assertThat(client.commit(SILVER, batchEnd, outcome.commit().files()))
            .isEqualTo(CommitOutcome.COMMITTED);
      }
    }
    return lake;
  }

  /**
   * Commits as the committer does, with a client of its own (a fresh one: a client that committed
   * before the out-of-band commit would plan the removes on its cached post-commit snapshot).
   */
  private static void commit(LakeConfig lake, long batchEnd, SilverMerge.Outcome outcome)
      throws IOException {
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      assertThat(
              client.commitRewrite(
                  SILVER, batchEnd, outcome.commit().files(), outcome.commit().rewrite()))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
  }

  private void assertOnlyDemoted(LakeConfig lake, String target, long seq) throws Exception {
    Map<String, Map<String, Object>> rows = rowsByKey(lake);
    assertThat(rows).hasSize(FILES * ROWS_PER_FILE);
    for (Map.Entry<String, Map<String, Object>> row : rows.entrySet()) {
      boolean isTarget = row.getKey().equals(target);
      assertThat(row.getValue().get("state"))
          .as(row.getKey())
          .isEqualTo(isTarget ? StateTransitions.DEMOTED : StateTransitions.ACTIVE);
    }
    assertThat(rows.get(target).get("seq")).isEqualTo(seq);
  }

  /** The committed rows by artifact id, one per id. */
  private static Map<String, Map<String, Object>> rowsByKey(LakeConfig lake) throws Exception {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : LakeReader.open(lake).rows(SILVER)) {
      assertThat(rows.put((String) row.get("artifact_id"), row)).as("one row per key").isNull();
    }
    return rows;
  }

  /** The live file that holds the id's row, found by reading every file (test only). */
  private static String fileHolding(LakeConfig lake, String id) throws Exception {
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (String path : LakeReader.open(lake).filePaths(SILVER)) {
        String relative = path;
        DataFile file = new DataFile(relative, Files.size(table(lake).resolve(relative)), 0, null);
        for (TableRow row : client.readDataFile(SILVER, file)) {
          if (id.equals(row.value(LakeSchemas.SILVER_MEMORIES.indexOf("artifact_id")))) {
            return relative;
          }
        }
      }
    }
    throw new AssertionError("no file holds " + id);
  }

  private static Path table(LakeConfig lake) {
    return Path.of(URI.create(lake.lakeRoot())).resolve(SILVER.relativePath());
  }

  /** Counts the data files read whole. */
  private static final class Reads extends ForwardingDeltaTableClient {
    final List<String> files = new ArrayList<>();

    Reads(DeltaTableClient delegate) {
      super(delegate);
    }

    @Override
    public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
      files.add(file.relativePath());
      return super.readDataFile(table, file);
    }

    @Override
    public List<TableRow> readDataFile(TableId table, DataFile file, Set<String> columns)
        throws IOException {
      files.add(file.relativePath());
      return super.readDataFile(table, file, columns);
    }
  }
}
