package org.oml.lakewriter.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.delta.testing.Events.promote;
import static org.oml.lakewriter.delta.testing.Events.retract;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.LiveSink;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Compaction in the job, on real tables: a writer and a committer alive throughout (as in a
 * running job), the committer compacting after its checkpoints' commits, read back by an
 * independent reader ({@link LakeReader}) and compared with the same batches written without
 * compaction.
 */
class CompactionITCase {
  private static final int TENANTS = 3;
  private static final CompactionPolicy POLICY =
      new CompactionPolicy(true, 4, 1L << 20, 8L << 20, Duration.ofSeconds(60));

  private static final long KEYED_CAP = 8L << 10;

  @TempDir Path dir;

  /**
   * 60 checkpoints of promotions and retractions (demote, erase of rows promoted two checkpoints
   * before) for 3 tenants, written three times: without compaction, with the job's size-tiered
   * compaction, and with a compactor that takes every small file ({@code maintain compact}'s).
   * Every table holds exactly the same rows and txn versions in all three; the tiered lake rewrites
   * each row at most log2(60) times (the full one more than twice as often in all); and no table
   * ever has more than min-files − 1 small files, plus the checkpoint's new file, plus one file
   * per size tier (at most log2(60) + 1) after a checkpoint.
   */
  @Test
  void theJobCompactsDueTablesKeepsEveryRowAndBoundsTheFilesAndTheRewrites() throws Exception {
    int units = 60;
    int tiers = 1 + (int) Math.ceil(Math.log(units) / Math.log(2));
    LakeConfig plain = SinkDriver.lake(dir.resolve("plain"));
    LakeConfig compacted = SinkDriver.lake(dir.resolve("compacted"));
    LakeConfig fullyCompacted = SinkDriver.lake(dir.resolve("full"));
    int maxFiles = 0;
    long rewritten;
    long fullRewritten;
    try (Pipeline without = new Pipeline(plain, null);
        Pipeline with = new Pipeline(compacted, POLICY);
        Pipeline full = new Pipeline(fullyCompacted, POLICY, false)) {
      for (int unit = 0; unit < units; unit++) {
        Batch batch = unit(unit);
        without.checkpoint(batch);
        with.checkpoint(batch);
        full.checkpoint(batch);
        for (TableId table : LakeReader.open(compacted).tables()) {
          maxFiles = Math.max(maxFiles, LakeReader.open(compacted).fileCount(table));
        }
      }
      assertThat(with.scheduler.stats().commits()).isPositive();
      rewritten = with.scheduler.stats().rowsRewritten();
      fullRewritten = full.scheduler.stats().rowsRewritten();
    }
    assertThat(maxFiles)
        .as("files per table after any checkpoint")
        .isLessThanOrEqualTo(POLICY.minFiles() + tiers);
    LakeReader a = LakeReader.open(plain);
    long rows = 0;
    for (LakeConfig lake : List.of(compacted, fullyCompacted)) {
      LakeReader b = LakeReader.open(lake);
      assertThat(b.tables()).isEqualTo(a.tables());
      for (TableId table : a.tables()) {
        assertThat(canonical(b.rows(table))).as(table.toString()).isEqualTo(canonical(a.rows(table)));
        assertThat(b.txnVersion(table)).isEqualTo(a.txnVersion(table));
      }
    }
    for (TableId table : a.tables()) {
      assertThat(a.fileCount(table)).isGreaterThanOrEqualTo(units);
      rows += a.rows(table).size();
    }
    System.out.printf(
        "%d checkpoints, %d rows: the tiered compaction rewrote %d rows, the full one %d;"
            + " at most %d files per table%n",
        units, rows, rewritten, fullRewritten, maxFiles);
    assertThat(rewritten).as("rows rewritten, tiered").isLessThanOrEqualTo(rows * (tiers - 1));
    assertThat(fullRewritten).as("rows rewritten, every small file").isGreaterThan(2 * rewritten);
  }

  /**
   * A retraction planned (and handed over) before a compaction, committed after it: the guard keeps
   * its file out of the compaction, so the rewrite commits and the row is demoted once.
   */
  @Test
  void aRewritePlannedBeforeACompactionCommitsAfterIt() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    TableId silver = TableId.of("t0", TableKind.SILVER_MEMORIES);
    try (Pipeline job = new Pipeline(lake, POLICY.withMinFiles(100))) {
      for (int unit = 0; unit < 6; unit++) {
        job.checkpoint(unit(unit));
      }
      List<DeltaCommittable> planned =
          job.write(new Batch(600, 700, List.of(retract(601, "t0", EventKind.DEMOTE, "a-5-1", 1))));
      assertThat(planned.get(0).tables().stream().filter(t -> t.table().equals(silver)))
          .singleElement()
          .satisfies(t -> assertThat(t.removes()).hasSize(1));
      TableCompactor.Result result = job.compactor(POLICY).compact(silver, TableCompactor.IoCheck.NONE);
      assertThat(result.compacted()).isTrue();
      assertThat(job.commit(planned))
          .extracting(FakeCommitRequest::state)
          .containsOnly(FakeCommitRequest.State.PENDING);
    }
    Map<String, Map<String, Object>> rows = byArtifact(LakeReader.open(lake).rows(silver));
    assertThat(rows.get("a-5-1").get("state")).isEqualTo("demoted");
    assertThat(rows.get("a-5-1").get("seq")).isEqualTo(601L);
  }

  /**
   * A retraction planned while a compaction of its table reads and writes (after it chose its
   * files, before its commit): the writer does not wait for the compaction, and the compaction,
   * which would take the rewrite's file, commits nothing. The rewrite commits, and the row is
   * demoted once.
   */
  @Test
  void aRewritePlannedWhileACompactionRunsWinsAndTheCompactionCommitsNothing() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    TableId silver = TableId.of("t0", TableKind.SILVER_MEMORIES);
    ReadGate gate = new ReadGate();
    ExecutorService compactorThread = Executors.newSingleThreadExecutor();
    try (Pipeline job = new Pipeline(lake, POLICY.withMinFiles(100));
        DeltaTableClient held =
            new ForwardingDeltaTableClient(new KernelDeltaTableClient(lake)) {
              @Override
              public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
                gate.pass();
                return super.readDataFile(table, file);
              }
            }) {
      for (int unit = 0; unit < 6; unit++) {
        job.checkpoint(unit(unit));
      }
      Future<TableCompactor.Result> compaction =
          compactorThread.submit(
              () ->
                  new TableCompactor(held, POLICY, job.guard)
                      .compact(silver, TableCompactor.IoCheck.NONE));
      assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
      List<DeltaCommittable> planned =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return job.write(
                          new Batch(
                              600, 700, List.of(retract(601, "t0", EventKind.DEMOTE, "a-5-1", 1))));
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  })
              .get(30, TimeUnit.SECONDS);
      gate.open.countDown();
      TableCompactor.Result result = compaction.get(30, TimeUnit.SECONDS);
      assertThat(result.compacted()).isFalse();
      assertThat(result.reason()).contains("a rewrite planned meanwhile replaces 1 of its files");
      assertThat(result.abandoned()).isTrue();
      assertThat(job.commit(planned))
          .extracting(FakeCommitRequest::state)
          .containsOnly(FakeCommitRequest.State.PENDING);
    } finally {
      compactorThread.shutdownNow();
    }
    Map<String, Map<String, Object>> rows = byArtifact(LakeReader.open(lake).rows(silver));
    assertThat(rows.get("a-5-1").get("state")).isEqualTo("demoted");
    assertThat(rows.get("a-5-1").get("seq")).isEqualTo(601L);
    assertThat(LakeReader.open(lake).fileCount(silver)).as("not compacted").isGreaterThanOrEqualTo(6);
  }

  /**
   * The same without the guard's record of the plan (as before this change): the compaction takes
   * the file, and the rewrite's commit is refused as no longer live, never committed twice.
   */
  @Test
  void withoutTheGuardTheRewriteIsRefusedNotDuplicated() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    TableId silver = TableId.of("t0", TableKind.SILVER_MEMORIES);
    try (Pipeline job = new Pipeline(lake, POLICY.withMinFiles(100))) {
      for (int unit = 0; unit < 6; unit++) {
        job.checkpoint(unit(unit));
      }
      List<DeltaCommittable> planned =
          job.write(new Batch(600, 700, List.of(retract(601, "t0", EventKind.DEMOTE, "a-5-1", 1))));
      try (KernelDeltaTableClient other = new KernelDeltaTableClient(lake)) {
        assertThat(
                new TableCompactor(other, POLICY, CompactionGuard.unshared())
                    .compact(silver, TableCompactor.IoCheck.NONE)
                    .compacted())
            .isTrue();
        DeltaCommittable batch = planned.get(0);
        var table = batch.tables().stream().filter(t -> t.table().equals(silver)).findFirst().get();
        assertThatThrownBy(
                () -> other.commitRewrite(silver, 700, table.files(), table.rewrite()))
            .isInstanceOf(TableUnusableException.class)
            .hasMessageContaining("no longer live");
      }
    }
    Map<String, Map<String, Object>> rows = byArtifact(LakeReader.open(lake).rows(silver));
    assertThat(rows.get("a-5-1").get("state")).isEqualTo("active");
  }

  /**
   * The writer's key index was built before the compaction; the retraction after it reads only
   * the compacted file that holds its key, and replaces only that file.
   */
  @Test
  void aRetractionAfterACompactionRewritesOnlyTheFileThatHoldsItsKey() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    TableId silver = TableId.of("t0", TableKind.SILVER_MEMORIES);
    try (Pipeline job = new Pipeline(lake, POLICY)) {
      for (int unit = 0; unit < 9; unit++) {
        job.checkpoint(unit(unit));
      }
      assertThat(job.scheduler.stats().recent()).anyMatch(r -> r.table().equals(silver) && r.compacted());
      List<String> live = LakeReader.open(lake).filePaths(silver);
      job.reads.clear();
      List<DeltaCommittable> planned =
          job.write(new Batch(900, 1000, List.of(retract(901, "t0", EventKind.ERASE, "a-0-2", 1))));
      var table =
          planned.get(0).tables().stream().filter(t -> t.table().equals(silver)).findFirst().get();
      assertThat(job.reads).hasSize(1);
      assertThat(table.removes()).extracting(DataFile::relativePath).containsExactlyElementsOf(job.reads);
      assertThat(live).contains(job.reads.get(0));
      job.commit(planned);
    }
    Map<String, Map<String, Object>> rows = byArtifact(LakeReader.open(lake).rows(silver));
    assertThat(rows.get("a-0-2").get("state")).isEqualTo("erased");
    assertThat(rows.values()).filteredOn(r -> "erased".equals(r.get("state"))).hasSize(3);
  }

  /**
   * The cap of keyed tables: with {@code keyed-target-file-size} below the target, silver and gold
   * lineage are compacted into files of at most that size while bronze, in the same run, gets files
   * above it; so a retraction after 30 checkpoints reads and rewrites a file of at most the cap,
   * where the same run without the cap reads a file larger than the cap (its compacted rows).
   * Both runs hold the same rows.
   */
  @Test
  void keyedTablesAreCompactedIntoFilesOfAtMostTheirOwnTarget() throws Exception {
    long cap = KEYED_CAP;
    CompactionPolicy capped =
        new CompactionPolicy(true, 4, 1L << 20, 8L << 20, cap, Duration.ofSeconds(60));
    TableId silver = TableId.of("t0", TableKind.SILVER_MEMORIES);
    Map<String, Long> retractionRead = new TreeMap<>();
    Map<String, LakeConfig> lakes = new TreeMap<>();
    for (Map.Entry<String, CompactionPolicy> run :
        Map.of("capped", capped, "uncapped", POLICY).entrySet()) {
      LakeConfig lake = SinkDriver.lake(dir.resolve(run.getKey()));
      lakes.put(run.getKey(), lake);
      try (Pipeline job = new Pipeline(lake, run.getValue())) {
        for (int unit = 0; unit < 30; unit++) {
          job.checkpoint(unit(unit));
        }
        Map<String, Long> sizes = new TreeMap<>();
        job.committerClient
            .smallFiles(silver, Long.MAX_VALUE)
            .files()
            .values()
            .forEach(f -> sizes.put(f.relativePath(), f.sizeBytes()));
        job.reads.clear();
        job.checkpoint(
            new Batch(3000, 3100, List.of(retract(3001, "t0", EventKind.DEMOTE, "a-0-2", 1))));
        assertThat(job.reads).hasSize(1);
        retractionRead.put(run.getKey(), sizes.get(job.reads.get(0)));
        if (run.getValue() == capped) {
          for (TableKind kind : List.of(TableKind.SILVER_MEMORIES, TableKind.GOLD_LINEAGE)) {
            for (int t = 0; t < TENANTS; t++) {
              TableId table = TableId.of("t" + t, kind);
              assertThat(maxFileBytes(job.committerClient, table)).as(table.toString()).isLessThanOrEqualTo(cap);
              assertThat(job.committerClient.smallFiles(table, Long.MAX_VALUE).files()).as(table.toString()).hasSizeGreaterThan(1);
            }
          }
          assertThat(maxFileBytes(job.committerClient, TableId.of("t0", TableKind.BRONZE_JOURNAL_EVENTS)))
              .as("bronze is not capped")
              .isGreaterThan(cap);
        }
      }
    }
    assertThat(retractionRead.get("capped")).as("bytes read by the retraction").isLessThanOrEqualTo(cap);
    assertThat(retractionRead.get("uncapped")).isGreaterThan(cap);
    LakeReader a = LakeReader.open(lakes.get("uncapped"));
    LakeReader b = LakeReader.open(lakes.get("capped"));
    assertThat(b.tables()).isEqualTo(a.tables());
    for (TableId table : a.tables()) {
      assertThat(canonical(b.rows(table))).as(table.toString()).isEqualTo(canonical(a.rows(table)));
    }
  }

  private static long maxFileBytes(DeltaTableClient client, TableId table) throws IOException {
    return client.smallFiles(table, Long.MAX_VALUE).files().values().stream()
        .mapToLong(DataFile::sizeBytes)
        .max()
        .orElse(0);
  }

  /** Checkpoint {@code unit}: 3 promotions per tenant, a demote and an erase of older rows. */
  static Batch unit(int unit) {
    long from = unit * 100L;
    long seq = from;
    List<OutboxEvent> events = new ArrayList<>();
    for (int t = 0; t < TENANTS; t++) {
      String tenant = "t" + t;
      for (int i = 0; i < 3; i++) {
        events.add(promote(++seq, tenant, "a-" + unit + "-" + i, 1, "body-" + unit + "-" + i));
      }
      if (unit >= 2) {
        events.add(retract(++seq, tenant, EventKind.DEMOTE, "a-" + (unit - 2) + "-0", 1));
      }
      if (unit >= 3 && unit % 3 == 0) {
        events.add(retract(++seq, tenant, EventKind.ERASE, "a-" + (unit - 3) + "-1", 1));
      }
    }
    return new Batch(from, from + 100, events);
  }

  private static Map<String, Map<String, Object>> byArtifact(List<Map<String, Object>> rows) {
    Map<String, Map<String, Object>> byId = new TreeMap<>();
    rows.forEach(r -> assertThat(byId.put((String) r.get("artifact_id"), r)).isNull());
    return byId;
  }

  /** Rows in seq order, binary values as hex, so that lists of rows compare by value. */
  static List<Map<String, Object>> canonical(List<Map<String, Object>> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      Map<String, Object> copy = new TreeMap<>();
      row.forEach((k, v) -> copy.put(k, v instanceof byte[] b ? HexFormat.of().formatHex(b) : v));
      out.add(copy);
    }
    out.sort(
        java.util.Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("seq"))
            .thenComparing(r -> String.valueOf(r.get("artifact_id"))));
    return out;
  }

  /** A writer and a committer alive throughout, sharing a compaction guard, as in the job. */
  private static final class Pipeline extends LiveSink {
    final CompactionGuard guard = CompactionGuard.unshared();
    final List<String> reads = new ArrayList<>();
    final LakeConfig lake;
    final CompactionScheduler scheduler;
    final KernelDeltaTableClient committerClient;

    Pipeline(LakeConfig lake, CompactionPolicy policy) throws IOException {
      this(lake, policy, true);
    }

    /** With {@code tiered} false, the committer compacts every small file ({@link TableCompactor#full}). */
    Pipeline(LakeConfig lake, CompactionPolicy policy, boolean tiered) throws IOException {
      this.lake = lake;
      committerClient = new KernelDeltaTableClient(lake);
      scheduler =
          policy == null
              ? null
              : new CompactionScheduler(
                  tiered
                      ? new TableCompactor(committerClient, policy, guard)
                      : TableCompactor.full(committerClient, policy, guard),
                  policy,
                  guard,
                  System::nanoTime);
      DeltaTableClient counting =
          new ForwardingDeltaTableClient(new KernelDeltaTableClient(lake)) {
            @Override
            public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
              count(table, file);
              return super.readDataFile(table, file);
            }

            @Override
            public List<TableRow> readDataFile(
                TableId table, DataFile file, Set<String> columns) throws IOException {
              count(table, file);
              return super.readDataFile(table, file, columns);
            }

            private void count(TableId table, DataFile file) {
              if (table.kind() == TableKind.SILVER_MEMORIES) {
                reads.add(file.relativePath()); // silver's (gold/lineage is rewritten too)
              }
            }
          };
      start(
          writer(counting, policy == null ? null : guard), committer(committerClient, scheduler));
    }

    TableCompactor compactor(CompactionPolicy policy) {
      return new TableCompactor(committerClient, policy, guard);
    }
  }
}
