package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
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
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.kernel.KernelConformance.InterposingLogStore;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.logstore.AtomicLocalLogStore;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;

/**
 * Two writers that cut the same outbox into batches with different bounds, on real Delta tables
 * (Delta Kernel 4.4.0): writer A commits {@code (b, b+100]}, writer B {@code (b, b+60]}, both from
 * seq {@code b+1}. Whoever commits second must not apply a seq a second time: B's batch is then
 * already applied, and A's is refused as overlapping (nothing committed) and planned again above
 * the table's version, as the writer's quarantine does. Before this check, A's commit after B's
 * was accepted (Kernel compares only the batch's end with the recorded version) and seqs 1 to 60
 * landed twice; and an A that lost the race for a log version to B was rebased over B's commit by
 * Kernel, with the same result.
 */
class OverlappingBatchITCase {
  private static final TableId TABLE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path dir;

  @Test
  void aCommitWhoseEventsTheTableAlreadyRecordsIsRefusedAndReplanned() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient a = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient b = new KernelDeltaTableClient(lake)) {
      List<DataFile> aFiles = a.writeDataFiles(TABLE, rows(1, 100, "a"));
      assertThat(b.commitEvents(TABLE, 60, 1, b.writeDataFiles(TABLE, rows(1, 60, "b")), null))
          .isEqualTo(CommitOutcome.COMMITTED);

      assertThatThrownBy(() -> a.commitEvents(TABLE, 100, 1, aFiles, null))
          .isInstanceOfSatisfying(
              TableUnusableException.class, e -> assertThat(e.replannable()).isTrue())
          .hasMessageContaining("records txn version 60")
          .hasMessageContaining("OVERLAPPING_BATCH");
      assertThat(contents(lake).txnVersion()).isEqualTo(60);
      assertThat(contents(lake).seqs()).containsExactlyInAnyOrderElementsOf(seqs(1, 60));

      // Planned again above the table's version: only seqs 61 to 100.
      assertThat(a.commitEvents(TABLE, 100, 61, a.writeDataFiles(TABLE, rows(61, 100, "a")), null))
          .isEqualTo(CommitOutcome.COMMITTED);
      // B's next batch, cut at 60 again, is behind A's end now.
      assertThat(b.commitEvents(TABLE, 90, 61, b.writeDataFiles(TABLE, rows(61, 90, "b")), null))
          .isEqualTo(CommitOutcome.ALREADY_APPLIED);
    }
    assertThat(contents(lake).txnVersion()).isEqualTo(100);
    assertThat(contents(lake).seqs()).containsExactlyInAnyOrderElementsOf(seqs(1, 100));
  }

  /** What the check prevents, shown on the same lake: the unchecked commit lands 1..60 twice. */
  @Test
  void withoutTheCheckTheOverlapLandsTwice() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient a = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient b = new KernelDeltaTableClient(lake)) {
      List<DataFile> aFiles = a.writeDataFiles(TABLE, rows(1, 100, "a"));
      b.commit(TABLE, 60, b.writeDataFiles(TABLE, rows(1, 60, "b")));
      assertThat(a.commit(TABLE, 100, aFiles)).isEqualTo(CommitOutcome.COMMITTED);
    }
    assertThat(contents(lake).seqs()).hasSize(160);
  }

  /**
   * A's check passes on its snapshot, then B takes the log version A was about to write (the
   * conformance suite's log store runs B's whole commit just before A's log entry is written). A
   * must check again on B's snapshot and refuse, not be rebased over B's commit.
   */
  @Test
  void aCommitThatLosesTheLogVersionIsCheckedAgainNotRebased() throws Exception {
    LakeConfig lake =
        new LakeConfig(
            dir.toUri().toString(),
            Map.of(AtomicLocalLogStore.CONF_KEY, InterposingLogStore.class.getName()));
    try (KernelDeltaTableClient a = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient b = new KernelDeltaTableClient(lake)) {
      List<DataFile> aFiles = a.writeDataFiles(TABLE, rows(1, 100, "a"));
      List<DataFile> bFiles = b.writeDataFiles(TABLE, rows(1, 60, "b"));
      long tableVersion = contents(lake).tableVersion();
      AtomicReference<CommitOutcome> bOutcome = new AtomicReference<>();
      InterposingLogStore.BEFORE_NEXT_COMMIT.set(
          () -> {
            try {
              bOutcome.set(b.commitEvents(TABLE, 60, 1, bFiles, null));
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          });

      assertThatThrownBy(() -> a.commitEvents(TABLE, 100, 1, aFiles, null))
          .isInstanceOfSatisfying(
              TableUnusableException.class, e -> assertThat(e.replannable()).isTrue())
          .hasMessageContaining("records txn version 60");
      assertThat(InterposingLogStore.BEFORE_NEXT_COMMIT.get()).as("B ran inside A's commit").isNull();
      assertThat(bOutcome.get()).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(contents(lake).tableVersion()).as("only B's commit").isEqualTo(tableVersion + 1);
    }
    assertThat(contents(lake).seqs()).containsExactlyInAnyOrderElementsOf(seqs(1, 60));
  }

  /**
   * The two writers race round after round, from the same point each time. Every seq must end in
   * the table exactly once, whichever wins each round.
   */
  @Test
  void racingWritersWithDifferentBoundsApplyEverySeqOnce() throws Exception {
    int rounds = 60;
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    int refused = 0;
    int alreadyApplied = 0;
    try (KernelDeltaTableClient a = new KernelDeltaTableClient(lake);
        KernelDeltaTableClient b = new KernelDeltaTableClient(lake)) {
      CyclicBarrier start = new CyclicBarrier(2);
      for (int r = 0; r < rounds; r++) {
        long base = 100L * r;
        Future<CommitOutcome> aRace = pool.submit(() -> race(a, start, base, base + 100, "a"));
        Future<CommitOutcome> bRace = pool.submit(() -> race(b, start, base, base + 60, "b"));
        CommitOutcome bOutcome = bRace.get();
        try {
          assertThat(aRace.get()).as("round %d: A commits only if B did not", r)
              .isEqualTo(CommitOutcome.COMMITTED);
          assertThat(bOutcome).as("round %d", r).isEqualTo(CommitOutcome.ALREADY_APPLIED);
          alreadyApplied++;
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(TableUnusableException.class);
          assertThat(bOutcome).as("round %d", r).isEqualTo(CommitOutcome.COMMITTED);
          refused++;
          // A plans again above the table's version.
          assertThat(
                  a.commitEvents(
                      TABLE,
                      base + 100,
                      base + 61,
                      a.writeDataFiles(TABLE, rows(base + 61, base + 100, "a")),
                      null))
              .isEqualTo(CommitOutcome.COMMITTED);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "OverlappingBatchITCase: %d rounds, A refused and replanned %d, B already applied %d%n",
        rounds, refused, alreadyApplied);
    TableContents contents = contents(lake);
    assertThat(contents.txnVersion()).isEqualTo(100L * rounds);
    assertThat(contents.seqs()).containsExactlyInAnyOrderElementsOf(seqs(1, 100L * rounds));
  }

  private static CommitOutcome race(
      DeltaTableClient client, CyclicBarrier start, long base, long end, String writer)
      throws Exception {
    List<DataFile> files = client.writeDataFiles(TABLE, rows(base + 1, end, writer));
    start.await();
    return client.commitEvents(TABLE, end, base + 1, files, null);
  }

  private static List<TableRow> rows(long from, long to, String writer) {
    List<TableRow> rows = new ArrayList<>();
    for (long seq = from; seq <= to; seq++) {
      rows.add(
          TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, seq)
              .set("kind", "journal")
              .set("tenant_id", "acme")
              .set("writer_identity", "writer-" + writer)
              .build());
    }
    return rows;
  }

  private static List<Long> seqs(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  private static TableContents contents(LakeConfig lake) throws IOException {
    return LakeReader.open(lake).contents(TABLE).orElseThrow();
  }
}
