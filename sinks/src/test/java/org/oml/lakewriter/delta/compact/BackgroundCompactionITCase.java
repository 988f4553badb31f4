package org.oml.lakewriter.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.delta.compact.CompactionITCase.canonical;
import static org.oml.lakewriter.delta.compact.CompactionITCase.unit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.LiveSink;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.testing.SinkDriver;

/**
 * Compaction on its own thread, as the job runs it ({@link BackgroundCompaction} around the
 * scheduler, through a table client of its own): a writer and a committer alive throughout, the
 * compactions racing the committer's data commits and MERGE rewrites of the same tables, read back
 * by an independent reader ({@link LakeReader}) and compared with the same batches written
 * without compaction.
 */
class BackgroundCompactionITCase {
  private static final CompactionPolicy POLICY =
      new CompactionPolicy(true, 4, 1L << 20, 8L << 20, Duration.ofSeconds(60));

  @TempDir Path dir;

  /**
   * 60 checkpoints of promotions and retractions, committed without waiting for the compactions:
   * every compaction commits on the compactor's thread, every checkpoint commits (none is refused
   * for a file a compaction took), and every table ends with the rows and txn version of the lake
   * written without compaction. A replay of the last checkpoint applies nothing.
   */
  @Test
  void compactionsRunOnTheirOwnThreadBesideTheCommitsAndKeepEveryRow() throws Exception {
    LakeConfig plain = SinkDriver.lake(dir.resolve("plain"));
    LakeConfig compacted = SinkDriver.lake(dir.resolve("compacted"));
    List<DeltaCommittable> last = List.of();
    try (Job without = new Job(plain, null, null);
        Job with = new Job(compacted, POLICY, null)) {
      for (int unit = 0; unit < 60; unit++) {
        without.checkpoint(unit(unit));
        last = with.write(unit(unit));
        assertThat(with.commit(last))
            .extracting(FakeCommitRequest::state)
            .containsOnly(FakeCommitRequest.State.PENDING);
      }
      assertThat(with.background.awaitIdle(Duration.ofSeconds(60))).isTrue();
      assertThat(with.scheduler.stats().commits()).isPositive();
      assertThat(with.compactionCommits).isNotEmpty().containsOnly("delta-compactor");
      assertThat(with.commit(last))
          .as("a replay of the last checkpoint")
          .extracting(FakeCommitRequest::state)
          .containsOnly(FakeCommitRequest.State.ALREADY_COMMITTED);
    }
    assertSameRows(plain, compacted);
    TableId bronze = TableId.of("t0", TableKind.BRONZE_JOURNAL_EVENTS);
    assertThat(LakeReader.open(compacted).fileCount(bronze))
        .isLessThan(LakeReader.open(plain).fileCount(bronze));
  }

  /**
   * A compaction held in the middle of reading its files does not hold up the committer: the
   * following checkpoints commit meanwhile, and once the compaction goes on, it commits on the
   * tables those checkpoints changed.
   */
  @Test
  void theCommitterDoesNotWaitForARunningCompaction() throws Exception {
    LakeConfig plain = SinkDriver.lake(dir.resolve("plain"));
    LakeConfig compacted = SinkDriver.lake(dir.resolve("compacted"));
    ReadGate gate = new ReadGate();
    try (Job without = new Job(plain, null, null);
        Job with = new Job(compacted, POLICY, gate)) {
      int unit = 0;
      while (gate.entered.getCount() > 0) {
        assertThat(unit).as("checkpoints before a compaction starts").isLessThan(20);
        without.checkpoint(unit(unit));
        with.checkpoint(unit(unit));
        unit++;
        gate.entered.await(200, TimeUnit.MILLISECONDS);
      }
      for (int more = 0; more < 5; more++, unit++) {
        without.checkpoint(unit(unit));
        with.checkpoint(unit(unit));
      }
      assertThat(with.compactionCommits).as("while the compaction is held").isEmpty();
      gate.open.countDown();
      assertThat(with.background.awaitIdle(Duration.ofSeconds(60))).isTrue();
      with.checkpoint(unit(unit)); // a round after the tables the held one saw changed
      without.checkpoint(unit(unit));
      assertThat(with.background.awaitIdle(Duration.ofSeconds(60))).isTrue();
      assertThat(with.scheduler.stats().commits()).isPositive();
    }
    assertSameRows(plain, compacted);
  }

  /**
   * Closing the committer while a compaction is held interrupts it, and nothing of it commits
   * after: the lease would be released next. A new committer on the same lake (a restarted job)
   * compacts the tables later, with every row kept.
   */
  @Test
  void closingStopsARunningCompactionAndANewCommitterCompactsLater() throws Exception {
    LakeConfig plain = SinkDriver.lake(dir.resolve("plain"));
    LakeConfig compacted = SinkDriver.lake(dir.resolve("compacted"));
    ReadGate gate = new ReadGate();
    int unit = 0;
    try (Job without = new Job(plain, null, null)) {
      Job with = new Job(compacted, POLICY, gate);
      while (gate.entered.getCount() > 0) {
        assertThat(unit).as("checkpoints before a compaction starts").isLessThan(20);
        without.checkpoint(unit(unit));
        with.checkpoint(unit(unit));
        unit++;
        gate.entered.await(200, TimeUnit.MILLISECONDS);
      }
      long versionsBefore = tableVersions(compacted);
      long started = System.nanoTime();
      with.close();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
      assertThat(gate.interrupted).as("the held read was interrupted").isTrue();
      gate.open.countDown();
      Thread.sleep(200);
      assertThat(with.compactionCommits).isEmpty();
      assertThat(tableVersions(compacted)).as("no commit after close").isEqualTo(versionsBefore);

      try (Job restarted = new Job(compacted, POLICY, null)) {
        without.checkpoint(unit(unit));
        restarted.checkpoint(unit(unit));
        assertThat(restarted.background.awaitIdle(Duration.ofSeconds(60))).isTrue();
        assertThat(restarted.compactionCommits).isNotEmpty();
      }
    }
    assertSameRows(plain, compacted);
  }

  private static long tableVersions(LakeConfig lake) throws IOException {
    LakeReader reader = LakeReader.open(lake);
    long sum = 0;
    for (TableId table : reader.tables()) {
      sum += reader.tableVersion(table);
    }
    return sum;
  }

  private static void assertSameRows(LakeConfig expected, LakeConfig actual) throws IOException {
    LakeReader a = LakeReader.open(expected);
    LakeReader b = LakeReader.open(actual);
    assertThat(b.tables()).isEqualTo(a.tables());
    for (TableId table : a.tables()) {
      assertThat(canonical(b.rows(table))).as(table.toString()).isEqualTo(canonical(a.rows(table)));
      assertThat(b.txnVersion(table)).as(table.toString()).isEqualTo(a.txnVersion(table));
    }
  }

  /** A writer and a committer alive throughout; with a policy, compactions in the background. */
  private static final class Job extends LiveSink {
    final List<String> compactionCommits = Collections.synchronizedList(new ArrayList<>());
    final CompactionScheduler scheduler;
    final BackgroundCompaction background;

    Job(LakeConfig lake, CompactionPolicy policy, ReadGate gate) throws IOException {
      CompactionGuard guard = CompactionGuard.unshared();
      if (policy == null) {
        scheduler = null;
        background = null;
      } else {
        ForwardingDeltaTableClient compactions =
            new ForwardingDeltaTableClient(new KernelDeltaTableClient(lake)) {
              @Override
              public List<TableRow> readDataFile(TableId table, DataFile file) throws IOException {
                if (gate != null) {
                  gate.pass();
                }
                return super.readDataFile(table, file);
              }

              @Override
              public boolean commitCompaction(
                  TableId table, List<DataFile> removes, List<DataFile> adds) throws IOException {
                boolean committed = super.commitCompaction(table, removes, adds);
                if (committed) {
                  compactionCommits.add(Thread.currentThread().getName());
                }
                return committed;
              }
            };
        scheduler =
            new CompactionScheduler(
                new TableCompactor(compactions, policy, guard), policy, guard, System::nanoTime);
        background = new BackgroundCompaction(scheduler, compactions, Duration.ofSeconds(10));
      }
      start(
          writer(new KernelDeltaTableClient(lake), policy == null ? null : guard),
          committer(new KernelDeltaTableClient(lake), background));
    }
  }
}
