package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FailingTableClient;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.RecordingFrontier;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/** Replays, crashes between tables and re-cut batches on real Delta tables, read back by scan. */
class ExactlyOnceITCase {
  private static final TableId ACME_BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId ACME_SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final TableId BETA_BRONZE = TableId.of("beta", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId BETA_SILVER = TableId.of("beta", TableKind.SILVER_MEMORIES);

  /** The tables the test events touch: acme has odd seqs only, so never a promotion. */
  private static final List<TableId> TABLES = List.of(ACME_BRONZE, BETA_BRONZE, BETA_SILVER);

  @TempDir Path dir;

  @Test
  void commitTwiceChangesNothing() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    List<DeltaCommittable> committables = SinkDriver.write(lake, cut(0, 40, 10));
    SinkDriver.commit(lake, committables);
    Map<TableId, TableContents> before = snapshot(lake);

    List<FakeCommitRequest> replay = SinkDriver.commit(lake, committables);

    assertThat(replay).extracting(FakeCommitRequest::state).containsOnly(State.ALREADY_COMMITTED);
    assertThat(snapshot(lake)).isEqualTo(before);
    assertExactlyOnce(lake, 40);
  }

  @Test
  void crashBetweenTablesConvergesOnRetryByANewCommitter() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    List<DeltaCommittable> committables = SinkDriver.write(lake, cut(0, 40, 20));
    // Batch (0, 20] touches five tables (each tenant's gold/lineage too); crash after four of
    // them, before beta's silver.
    FailingTableClient crashing = new FailingTableClient(new KernelDeltaTableClient(lake), 4);
    assertThatThrownBy(() -> SinkDriver.commit(crashing, committables, FrontierListener.NONE))
        .hasRootCauseMessage("injected crash before committing " + BETA_SILVER + " @20");
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.txnVersion(BETA_BRONZE)).isEqualTo(20);
    assertThat(reader.txnVersion(BETA_SILVER)).isEqualTo(-1);

    RecordingFrontier frontier = new RecordingFrontier();
    List<FakeCommitRequest> retry =
        SinkDriver.commit(new KernelDeltaTableClient(lake), committables, frontier);

    assertThat(retry).extracting(FakeCommitRequest::state).containsOnly(State.PENDING);
    assertThat(frontier.reported()).containsExactly(40L);
    assertExactlyOnce(lake, 40);
    for (TableId table : TABLES) {
      assertThat(reader.txnVersion(table)).as(table.toString()).isEqualTo(40);
    }
  }

  @Test
  void freshStartWithReCutBatchesAddsEachRowOnce() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, cut(0, 30, 10));
    // A crash left (30, 45] in acme's tables but not in beta's.
    List<DeltaCommittable> lost = SinkDriver.write(lake, cut(30, 45, 15));
    assertThatThrownBy(
            () ->
                SinkDriver.commit(
                    new FailingTableClient(new KernelDeltaTableClient(lake), 1),
                    lost,
                    FrontierListener.NONE))
        .isInstanceOf(IllegalStateException.class);
    assertThat(LakeReader.open(lake).txnVersion(ACME_BRONZE)).isEqualTo(45);
    assertThat(LakeReader.open(lake).txnVersion(BETA_BRONZE)).isEqualTo(30);

    // A new deployment without state: the source restarts at 22 and cuts differently.
    SinkDriver.run(lake, List.of(batch(22, 37), batch(37, 52), batch(52, 60)));

    assertExactlyOnce(lake, 60);
    assertThat(LakeReader.open(lake).txnVersion(ACME_BRONZE)).isEqualTo(60);
  }

  @Test
  void replayOfAnOldCheckpointAfterNewerCommitsIsSkipped() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    List<DeltaCommittable> old = SinkDriver.write(lake, cut(0, 20, 10));
    SinkDriver.commit(lake, old);
    SinkDriver.run(lake, cut(20, 40, 10));
    Map<TableId, TableContents> before = snapshot(lake);

    assertThat(SinkDriver.commit(lake, old))
        .extracting(FakeCommitRequest::state)
        .containsOnly(State.ALREADY_COMMITTED);
    assertThat(snapshot(lake)).isEqualTo(before);
  }

  /** Batches over (from, to] of `size` seqs each, events of acme and beta interleaved. */
  static List<Batch> cut(long from, long to, long size) {
    List<Batch> batches = new ArrayList<>();
    for (long start = from; start < to; start += size) {
      batches.add(batch(start, Math.min(to, start + size)));
    }
    return batches;
  }

  static Batch batch(long from, long to) {
    return new Batch(from, to, events(from, to));
  }

  /** Deterministic in seq: odd seqs belong to acme, even seqs to beta. */
  static List<OutboxEvent> events(long from, long to) {
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = from + 1; seq <= to; seq++) {
      String tenant = seq % 2 == 1 ? "acme" : "beta";
      events.add(Events.mixed(tenant, seq - 1, seq).get(0));
    }
    return events;
  }

  private static void assertExactlyOnce(LakeConfig lake, long upTo) throws Exception {
    LakeReader reader = LakeReader.open(lake);
    List<Long> all = LongStream.rangeClosed(1, upTo).boxed().toList();
    assertThat(reader.contents(ACME_BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 1).toList());
    assertThat(reader.contents(BETA_BRONZE).orElseThrow().seqs())
        .containsExactlyElementsOf(all.stream().filter(s -> s % 2 == 0).toList());
    List<Long> promoted = all.stream().filter(s -> s % 4 == 0).toList();
    assertThat(reader.contents(BETA_SILVER).orElseThrow().seqs())
        .containsExactlyElementsOf(promoted);
    assertThat(reader.rows(ACME_SILVER)).isEmpty(); // odd seqs are never multiples of 4
  }

  private static Map<TableId, TableContents> snapshot(LakeConfig lake) throws Exception {
    LakeReader reader = LakeReader.open(lake);
    Map<TableId, TableContents> contents = new LinkedHashMap<>();
    for (TableId table : reader.tables()) {
      TableContents c = reader.contents(table).orElseThrow();
      // Compare by version, txn, files and seqs (byte[] values have identity equality).
      List<Map<String, Object>> seqs =
          c.seqs().stream().map(s -> Map.<String, Object>of("seq", s)).toList();
      contents.put(table, new TableContents(c.tableVersion(), c.txnVersion(), c.fileCount(), seqs));
    }
    return contents;
  }
}
