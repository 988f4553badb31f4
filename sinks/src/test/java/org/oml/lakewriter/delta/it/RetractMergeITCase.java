package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.event.EventKind.DEMOTE;
import static org.oml.lakewriter.event.EventKind.ERASE;
import static org.oml.lakewriter.event.EventKind.REASSIGN;
import static org.oml.lakewriter.event.EventKind.SIMULATION_END;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FailingTableClient;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The silver MERGE on real Delta tables, read back with {@link LakeReader} (Kernel's scan API, none
 * of the writer's code): every kind of retraction, on rows of earlier batches, of the same batch
 * and of batches not yet committed; replays; a crash between the rewrite and the commit;
 * retractions without a row; plans that no longer match the table.
 */
class RetractMergeITCase {
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);
  private static final TableId BRONZE = TableId.of(TENANT, TableKind.BRONZE_JOURNAL_EVENTS);

  /** Seven promotions and a journal event. */
  private static final Batch FIRST =
      new Batch(
          0,
          10,
          List.of(
              promote(1, "k1"),
              promote(2, "k2"),
              promote(3, "k3"),
              promote(4, "k4"),
              promote(5, "k5"),
              promote(6, "k6"),
              promote(7, "k7"),
              Events.journal(8, TENANT)));

  /** Every kind on rows of FIRST, a terminal erase, a no-op, and one retraction without a row. */
  private static final Batch SECOND =
      new Batch(
          10,
          20,
          List.of(
              retract(11, DEMOTE, "k1"),
              retract(12, ERASE, "k2"),
              retract(13, SIMULATION_END, "k3"),
              retract(14, REASSIGN, "k4"),
              retract(15, ERASE, "k5"),
              retract(16, DEMOTE, "k5"),
              retract(17, DEMOTE, "k6"),
              retract(18, DEMOTE, "k6"),
              retract(19, DEMOTE, "never-promoted")));

  @TempDir Path dir;

  @Test
  void everyKindOnRowsOfAnEarlierBatch() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, List.of(FIRST));
    Map<String, Map<String, Object>> before = silverRows(lake);
    List<String> filesBefore = LakeReader.open(lake).filePaths(SILVER);
    assertThat(filesBefore).hasSize(1);

    List<DeltaCommittable> committables = SinkDriver.write(lake, List.of(SECOND));
    assertThat(committables.get(0).retractsWithoutRow()).isEqualTo(1);
    TableCommit silver = tableCommit(committables.get(0), SILVER);
    assertThat(silver.removes()).extracting(DataFile::relativePath).isEqualTo(filesBefore);
    assertThat(silver.files()).hasSize(1);
    SinkDriver.commit(lake, committables);

    assertThat(silverRows(lake)).isEqualTo(expectedAfterSecond(before));
    TableContents contents = LakeReader.open(lake).contents(SILVER).orElseThrow();
    assertThat(contents.tableVersion()).isEqualTo(2); // create, FIRST, SECOND
    assertThat(contents.txnVersion()).isEqualTo(20);
    assertThat(LakeReader.open(lake).filePaths(SILVER))
        .hasSize(1)
        .doesNotContainAnyElementsOf(filesBefore);
    // Bronze holds every event, the retraction without a row included.
    assertThat(LakeReader.open(lake).contents(BRONZE).orElseThrow().seqs())
        .containsExactly(
            1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
  }

  @Test
  void everyKindOnRowsOfTheSameBatchLandsOnceWithoutARewrite() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    Batch batch =
        new Batch(
            0,
            20,
            List.of(
                promote(1, "k1"),
                promote(2, "k2"),
                promote(3, "k3"),
                promote(4, "k4"),
                promote(5, "k5"),
                retract(6, DEMOTE, "k1"),
                retract(7, ERASE, "k2"),
                retract(8, SIMULATION_END, "k3"),
                retract(9, REASSIGN, "k4"),
                retract(10, ERASE, "k5"),
                retract(11, REASSIGN, "k5"),
                retract(12, DEMOTE, "k3"),
                promote(13, "k6"),
                Events.journal(14, TENANT)));
    List<DeltaCommittable> committables = SinkDriver.write(lake, List.of(batch));
    TableCommit silver = tableCommit(committables.get(0), SILVER);
    assertThat(silver.rewrite()).isNull(); // nothing to look up: no scan, no file read
    assertThat(silver.rowCount()).isEqualTo(6);
    SinkDriver.commit(lake, committables);

    Map<String, Map<String, Object>> rows = silverRows(lake);
    assertThat(rows.keySet()).containsExactly("k1@1", "k2@1", "k3@1", "k4@1", "k5@1", "k6@1");
    assertState(rows.get("k1@1"), "demoted", 6, "wa-1");
    assertState(rows.get("k2@1"), "erased", 7, "wa-1");
    assertState(rows.get("k3@1"), "demoted", 12, "wa-1"); // simulation_ended, then demoted
    assertState(rows.get("k4@1"), "active", 9, "wa-9");
    assertState(rows.get("k5@1"), "erased", 10, "wa-1"); // erased is terminal: no reassign
    assertState(rows.get("k6@1"), "active", 13, "wa-1");
    assertThat(rows.get("k4@1").get("path_at_write")).isEqualTo("/notes/4");
    assertThat(rows.get("k1@1").get("body")).isEqualTo(hex("body-1"));
    TableContents contents = LakeReader.open(lake).contents(SILVER).orElseThrow();
    assertThat(contents.tableVersion()).isEqualTo(1);
    assertThat(contents.fileCount()).isEqualTo(1);
  }

  @Test
  void retractionsOfBatchesWrittenButNotYetCommitted() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, List.of(new Batch(0, 10, List.of(promote(1, "p1"), promote(2, "p2")))));
    // One writer, one barrier, three batches: each retracts rows the previous one wrote.
    List<DeltaCommittable> committables =
        SinkDriver.write(
            lake,
            List.of(
                new Batch(10, 20, List.of(promote(11, "q1"), retract(12, DEMOTE, "p1"))),
                new Batch(
                    20,
                    30,
                    List.of(
                        retract(21, ERASE, "q1"),
                        retract(22, SIMULATION_END, "p2"),
                        retract(23, REASSIGN, "p1"))),
                new Batch(30, 40, List.of(retract(31, DEMOTE, "q1"), retract(32, DEMOTE, "p2")))));
    assertThat(committables).allMatch(c -> c.retractsWithoutRow() == 0);
    assertThat(tableCommit(committables.get(2), SILVER).rewrite().baseTxnVersion()).isEqualTo(30);
    assertThat(SinkDriver.commit(lake, committables))
        .extracting(FakeCommitRequest::state)
        .containsOnly(State.PENDING);

    Map<String, Map<String, Object>> rows = silverRows(lake);
    assertThat(rows.keySet()).containsExactly("p1@1", "p2@1", "q1@1");
    assertState(rows.get("p1@1"), "demoted", 23, "wa-9");
    assertState(rows.get("p2@1"), "demoted", 32, "wa-1");
    assertState(rows.get("q1@1"), "erased", 21, "wa-1");
    assertThat(LakeReader.open(lake).txnVersion(SILVER)).isEqualTo(40);
  }

  @Test
  void replayingABatchWithRetractionsChangesNothing() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    List<DeltaCommittable> first = SinkDriver.write(lake, List.of(FIRST));
    SinkDriver.commit(lake, first);
    List<DeltaCommittable> second = SinkDriver.write(lake, List.of(SECOND));
    SinkDriver.commit(lake, second);
    Map<TableId, Object> before = state(lake);

    // The same committables through a new committer: the txn check holds across copy-on-write.
    assertThat(SinkDriver.commit(lake, second))
        .extracting(FakeCommitRequest::state)
        .containsOnly(State.ALREADY_COMMITTED);
    assertThat(SinkDriver.commit(lake, List.of(first.get(0), second.get(0))))
        .extracting(FakeCommitRequest::state)
        .containsOnly(State.ALREADY_COMMITTED);
    assertThat(state(lake)).isEqualTo(before);

    // A fresh writer that re-reads the batches, whole or cut differently, writes nothing at all.
    SinkDriver.run(lake, List.of(FIRST, SECOND));
    SinkDriver.run(lake, List.of(new Batch(5, 20, concat(FIRST, SECOND, 5))));
    assertThat(state(lake)).isEqualTo(before);
  }

  @Test
  void crashAfterTheRewriteBeforeTheCommitLeavesSilverUnchangedAndTheRetryConverges()
      throws Exception {
    LakeConfig clean = SinkDriver.lake(dir.resolve("clean"));
    SinkDriver.run(clean, List.of(FIRST, SECOND));

    for (boolean retryFromCommittables : new boolean[] {true, false}) {
      LakeConfig lake = SinkDriver.lake(dir.resolve("crash-" + retryFromCommittables));
      SinkDriver.run(lake, List.of(FIRST));
      Map<TableId, Object> before = state(lake);
      List<DeltaCommittable> committables = SinkDriver.write(lake, List.of(SECOND));
      // The rewritten file is on disk; the commit of bronze goes through, the next table's (by
      // path gold/lineage, a rewrite too) crashes, so silver is not committed either.
      FailingTableClient crashing = new FailingTableClient(new KernelDeltaTableClient(lake), 1);
      assertThatThrownBy(() -> SinkDriver.commit(crashing, committables, FrontierListener.NONE))
          .hasRootCauseMessage(
              "injected crash before committing "
                  + TableId.of(TENANT, TableKind.GOLD_LINEAGE)
                  + " @20");
      assertThat(state(lake).get(SILVER)).isEqualTo(before.get(SILVER));
      assertThat(parquetFilesUnder(dir.resolve("crash-" + retryFromCommittables)))
          .isGreaterThan(LakeReader.open(lake).fileCount(SILVER));

      if (retryFromCommittables) {
        SinkDriver.commit(lake, committables); // Flink retries the same committables
      } else {
        SinkDriver.run(lake, List.of(SECOND)); // a restart without state re-plans from the lake
      }
      assertThat(silverRows(lake)).isEqualTo(silverRows(clean));
      assertThat(LakeReader.open(lake).txnVersion(SILVER)).isEqualTo(20);
      assertThat(LakeReader.open(lake).fileCount(SILVER)).isEqualTo(1);
    }
  }

  @Test
  void retractionsWithoutARowChangeNothingInSilverAndAreCounted() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    OutboxEvent mismatched = promote(2, "held").toBuilder().ciphertextDigest("not-it").build();
    SinkDriver.run(lake, List.of(new Batch(0, 10, List.of(promote(1, "d1"), mismatched))));
    Map<TableId, Object> before = state(lake);

    SimpleCounter counter = new SimpleCounter();
    List<DeltaCommittable> committables;
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(
            new KernelDeltaTableClient(lake),
            Clock.systemUTC(),
            WriterSettings.defaults().withRetractsWithoutRow(counter))) {
      writer.write(
          new Batch(
              10, 20, List.of(retract(11, ERASE, "held"), retract(12, DEMOTE, "never-promoted"))),
          null);
      committables = writer.prepareCommit();
    }
    assertThat(counter.getCount()).isEqualTo(2);
    assertThat(committables.get(0).retractsWithoutRow()).isEqualTo(2);
    assertThat(committables.get(0).tables()).extracting(TableCommit::table).containsExactly(BRONZE);
    SinkDriver.commit(lake, committables);

    assertThat(state(lake).get(SILVER)).isEqualTo(before.get(SILVER));
    assertThat(LakeReader.open(lake).rows(BRONZE))
        .filteredOn(r -> (Long) r.get("seq") > 10)
        .extracting(r -> r.get("kind") + " " + r.get("artifact_id"))
        .containsExactly("erase held", "demote never-promoted");
    assertThat(LakeReader.open(lake).rows(TableId.of(TENANT, TableKind.DEAD_LETTER)))
        .extracting(r -> r.get("artifact_id"))
        .containsExactly("held");
  }

  @Test
  void aRewriteWhoseBaseIsNotTheTablesFailsPreciselyAndChangesNothing() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, List.of(new Batch(0, 10, List.of(promote(1, "k1"), promote(2, "k2")))));
    List<DeltaCommittable> committables =
        SinkDriver.write(
            lake,
            List.of(
                new Batch(10, 20, List.of(retract(11, DEMOTE, "k1"))),
                new Batch(20, 30, List.of(retract(21, DEMOTE, "k2")))));
    Map<TableId, Object> before = state(lake);

    // (10, 20] never commits; (20, 30] was planned on top of it.
    FakeCommitRequest request = SinkDriver.commit(lake, List.of(committables.get(1))).get(0);
    // Never discarded: the tenant is quarantined (in the lake) for a re-plan, silver unchanged.
    assertThat(request.state()).isNotEqualTo(State.FAILED_KNOWN);
    Quarantine record = new LakeQuarantineStore(lake).list().get(TENANT);
    // The tenant's first rewrite by path fails precisely: gold/lineage's, planned on the same base.
    assertThat(record.table())
        .isEqualTo(TableId.of(TENANT, TableKind.GOLD_LINEAGE).relativePath());
    assertThat(record.action()).isEqualTo(Quarantine.Action.REPLAN);
    assertThat(record.reason())
        .contains("planned on txn version 20 but the table is at txn version 10");
    assertThat(record.resumeAfter()).isEqualTo(20);
    assertThat(state(lake).get(SILVER)).isEqualTo(before.get(SILVER));
  }

  @Test
  void aRewriteOfAFileNoLongerInTheTableFailsPreciselyAndChangesNothing() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(lake, List.of(new Batch(0, 10, List.of(promote(1, "k1"), promote(2, "k2")))));
    List<DeltaCommittable> committables =
        SinkDriver.write(lake, List.of(new Batch(10, 20, List.of(retract(11, DEMOTE, "k1")))));
    String replaced = tableCommit(committables.get(0), SILVER).removes().get(0).relativePath();
    // Between the writer and the committer, another engine compacts the file away.
    OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), replaced);
    Map<TableId, Object> before = state(lake);

    FakeCommitRequest request = SinkDriver.commit(lake, committables).get(0);
    assertThat(request.state()).isNotEqualTo(State.FAILED_KNOWN);
    Quarantine record = new LakeQuarantineStore(lake).list().get(TENANT);
    assertThat(record.action()).isEqualTo(Quarantine.Action.REPLAN);
    assertThat(record.reason()).contains("no longer live").contains(replaced);
    assertThat(state(lake).get(SILVER)).isEqualTo(before.get(SILVER));
    assertThat(silverRows(lake).get("k1@1").get("state")).isEqualTo("active");
  }

  private static Map<String, Map<String, Object>> expectedAfterSecond(
      Map<String, Map<String, Object>> before) {
    Map<String, Map<String, Object>> expected = new TreeMap<>();
    before.forEach((k, v) -> expected.put(k, new LinkedHashMap<>(v)));
    change(expected, "k1@1", 11, "state", "demoted");
    change(expected, "k2@1", 12, "state", "erased");
    expected.get("k2@1").put("body", null); // an erase clears the body (docs/erasure.md)
    change(expected, "k3@1", 13, "state", "simulation_ended");
    change(expected, "k4@1", 14, "workarea_id", "wa-9"); // state and path_at_write stay
    change(expected, "k5@1", 15, "state", "erased"); // the demote at 16 finds it erased
    expected.get("k5@1").put("body", null);
    change(expected, "k6@1", 17, "state", "demoted"); // the demote at 18 changes nothing
    return expected; // k7 is copied unchanged, seq included
  }

  private static void change(
      Map<String, Map<String, Object>> rows, String key, long seq, String column, Object value) {
    rows.get(key).put("seq", seq);
    rows.get(key).put(column, value);
  }

  private static void assertState(Map<String, Object> row, String state, long seq, String wa) {
    assertThat(row.get("state")).as(row.get("artifact_id") + " state").isEqualTo(state);
    assertThat(row.get("seq")).as(row.get("artifact_id") + " seq").isEqualTo(seq);
    assertThat(row.get("workarea_id")).as(row.get("artifact_id") + " workarea").isEqualTo(wa);
  }

  /** Silver rows by {@code artifact_id@version}, every column, binary values as hex. */
  private static Map<String, Map<String, Object>> silverRows(LakeConfig lake) throws Exception {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : LakeReader.open(lake).rows(SILVER)) {
      Map<String, Object> values = new LinkedHashMap<>();
      row.forEach(
          (k, v) -> values.put(k, v instanceof byte[] ? HexFormat.of().formatHex((byte[]) v) : v));
      String key = row.get("artifact_id") + "@" + row.get("version");
      assertThat(rows.put(key, values)).as("one row per key: " + key).isNull();
    }
    return rows;
  }

  /**
   * Per table: Delta version, txn version, live file paths and rows, as an independent reader sees
   * them.
   */
  private static Map<TableId, Object> state(LakeConfig lake) throws Exception {
    LakeReader reader = LakeReader.open(lake);
    Map<TableId, Object> state = new TreeMap<>();
    for (TableId table : reader.tables()) {
      TableContents c = reader.contents(table).orElseThrow();
      Object rows = table.equals(SILVER) ? silverRows(lake) : c.seqs();
      state.put(table, List.of(c.tableVersion(), c.txnVersion(), reader.filePaths(table), rows));
    }
    return state;
  }

  private static TableCommit tableCommit(DeltaCommittable committable, TableId table) {
    return committable.tables().stream()
        .filter(t -> t.table().equals(table))
        .findFirst()
        .orElseThrow();
  }

  private static long parquetFilesUnder(Path root) throws Exception {
    try (Stream<Path> files = Files.walk(root.resolve(SILVER.relativePath()), 1)) {
      return files.filter(p -> p.toString().endsWith(".parquet")).count();
    }
  }

  private static List<OutboxEvent> concat(Batch a, Batch b, long above) {
    return Stream.concat(a.events().stream(), b.events().stream())
        .filter(e -> e.seq() > above)
        .toList();
  }

  private static String hex(String body) {
    return HexFormat.of().formatHex(Events.sealed(body));
  }

  private static OutboxEvent promote(long seq, String artifact) {
    return Events.promote(seq, TENANT, artifact, 1, "body-" + seq);
  }

  private static OutboxEvent retract(long seq, EventKind kind, String artifact) {
    return Events.retract(seq, TENANT, kind, artifact, 1);
  }
}
