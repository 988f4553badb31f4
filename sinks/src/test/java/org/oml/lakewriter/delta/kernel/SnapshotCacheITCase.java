package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.delta.kernel.utils.CloseableIterable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.CountingLakeFileSystem;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The writer and the committer of one job share one snapshot per table ({@link SnapshotCache}), on
 * real tables: a table's log is listed once, not per unit and per client, and a commit by anyone
 * else (another engine's OPTIMIZE, another writer) between two of ours is seen before the next use.
 */
class SnapshotCacheITCase {
  private static final int TENANTS = 4;
  private static final int UNITS = 6;

  @TempDir Path dir;

  /**
   * A running job (one writer, one committer, both alive throughout) writes and commits a unit per
   * checkpoint for 4 tenants, with promotions and retractions (silver rewrites). Once every table
   * exists, further units list no table's log at all: every use is served by the shared snapshot
   * after one existence check. Before the cache, each silver table's log was listed several times
   * per unit (the writer's barrier and index checks, the rewrite's candidates).
   */
  @Test
  void aTablesLogIsListedOnceNotPerUnitOrClient() throws Exception {
    LakeConfig lake = CountingLakeFileSystem.lake(dir);
    long firstUnitListings;
    long laterListings;
    try (DeltaSinkWriter writer =
            new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC());
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE)) {
      unit(writer, committer, 0);
      firstUnitListings = CountingLakeFileSystem.totalListings(dir);
      for (int unit = 1; unit <= UNITS; unit++) {
        unit(writer, committer, unit);
      }
      laterListings = CountingLakeFileSystem.totalListings(dir) - firstUnitListings;
    }
    // 12 new tables (bronze, gold/lineage, silver of 4 tenants): none is listed before it exists,
    // and Kernel's create lists its log once.
    String counts =
        "listings in the first unit: "
            + firstUnitListings
            + ", in the "
            + UNITS
            + " later units: "
            + laterListings
            + "; by table: "
            + CountingLakeFileSystem.listings(dir);
    assertThat(firstUnitListings).as(counts).isLessThanOrEqualTo(12);
    assertThat(laterListings).as(counts).isZero();

    LakeReader reader = LakeReader.open(LakeConfig.of(dir.toUri().toString()));
    long lastEnd = (UNITS + 1) * 100L;
    for (int t = 0; t < TENANTS; t++) {
      for (TableKind kind : List.of(TableKind.BRONZE_JOURNAL_EVENTS, TableKind.SILVER_MEMORIES)) {
        TableId table = TableId.of(tenant(t), kind);
        assertThat(reader.txnVersion(table)).as(table + " txn").isEqualTo(lastEnd);
        assertThat(dataCommits(table)).as(table + " commits").isEqualTo(UNITS + 1);
      }
      Map<String, String> silver = new HashMap<>();
      for (Map<String, Object> row : reader.rows(TableId.of(tenant(t), TableKind.SILVER_MEMORIES))) {
        assertThat(silver.put((String) row.get("artifact_id"), (String) row.get("state")))
            .as("one row per key")
            .isNull();
      }
      // Every unit promotes k<unit> and demotes the previous unit's key.
      assertThat(silver).hasSize(UNITS + 1).containsEntry("k" + UNITS, "active");
      assertThat(silver).containsEntry("k0", "demoted");
    }
  }

  /**
   * Between two units of a running job, another engine compacts a silver file (an OPTIMIZE) and
   * another writer (its own snapshots, as in another process or a restored job) commits the next
   * batch to a bronze table. The job's clients see both at their next use: the writer's view of
   * the tables moves on at once, the next retraction rewrites the compacted copy, and the
   * committer's replay of the batch the other writer took applies nothing twice.
   */
  @Test
  void anotherWritersCommitBetweenTwoOfOursIsSeen() throws Exception {
    LakeConfig lake = SinkDriverLake.of(dir);
    String tenant = "acme";
    TableId silver = TableId.of(tenant, TableKind.SILVER_MEMORIES);
    TableId bronze = TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS);
    try (KernelDeltaTableClient writerClient = new KernelDeltaTableClient(lake);
        DeltaSinkWriter writer = new DeltaSinkWriter(writerClient, Clock.systemUTC());
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE)) {
      commit(
          committer,
          writeUnit(
              writer,
              new Batch(
                  0,
                  10,
                  List.of(promote(1, tenant, "k1"), promote(2, tenant, "k2"), journal(3, tenant)))));
      SnapshotId before = writerClient.snapshotId(silver);
      assertThat(before.txnVersion()).isEqualTo(10);

      // Another engine's OPTIMIZE replaces silver's only data file by a copy.
      Path silverDir = dir.resolve(silver.relativePath());
      String original = onlyDataFile(silverDir);
      String copy = OutOfBandCompaction.replace(silverDir, original);
      SnapshotId afterOptimize = writerClient.snapshotId(silver);
      assertThat(afterOptimize.version()).as("the OPTIMIZE is seen").isEqualTo(before.version() + 1);

      // The next retraction must find k1 in the copy, not in the file the OPTIMIZE removed.
      commit(
          committer,
          writeUnit(writer, new Batch(10, 20, List.of(retract(11, tenant, "k1"), journal(12, tenant)))));
      assertThat(silverState(lake, silver)).isEqualTo(Map.of("k1", "demoted", "k2", "active"));
      assertThat(Files.exists(silverDir.resolve(copy))).isTrue();

      // Our writer prepares (20, 30]; before our committer gets to it, another writer with
      // snapshots of its own writes and commits the same batch.
      Batch third = new Batch(20, 30, List.of(journal(21, tenant), promote(22, tenant, "k3")));
      List<DeltaCommittable> ours = writeUnit(writer, third);
      SnapshotId ourView = writerClient.snapshotId(bronze);
      try (KernelDeltaTableClient otherClient = new KernelDeltaTableClient(lake, true, false);
          DeltaSinkWriter other = new DeltaSinkWriter(otherClient, Clock.systemUTC());
          DeltaCommitter otherCommitter =
              new DeltaCommitter(
                  new KernelDeltaTableClient(lake, true, false), FrontierListener.NONE)) {
        commit(otherCommitter, writeUnit(other, third));
      }
      assertThat(writerClient.snapshotId(bronze))
          .as("the other writer's commit is seen by the shared snapshot")
          .isEqualTo(new SnapshotId(ourView.version() + 1, 30));
      assertThat(commit(committer, ours))
          .extracting(FakeCommitRequest::state)
          .containsExactly(FakeCommitRequest.State.ALREADY_COMMITTED);
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(
            reader.rows(bronze).stream().map(r -> (Long) r.get("seq")).sorted().toList())
        .containsExactly(1L, 2L, 3L, 11L, 12L, 21L, 22L);
    assertThat(silverState(lake, silver))
        .isEqualTo(Map.of("k1", "demoted", "k2", "active", "k3", "active"));
  }

  /**
   * Once every client of a lake is closed its cache is gone: a job restarted in the same JVM loads
   * each table from the lake again instead of trusting what the previous run saw.
   */
  @Test
  void aRestartedJobStartsFromTheLake() throws Exception {
    LakeConfig lake = SinkDriverLake.of(dir);
    TableId bronze = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    try (KernelDeltaTableClient first = new KernelDeltaTableClient(lake);
        DeltaSinkWriter writer = new DeltaSinkWriter(first, Clock.systemUTC());
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE)) {
      commit(committer, writeUnit(writer, new Batch(0, 10, List.of(journal(1, "acme")))));
      first.snapshotId(bronze);
      long loads = first.snapshotLoads();
      try (KernelDeltaTableClient second = new KernelDeltaTableClient(lake)) {
        second.snapshotId(bronze);
        assertThat(second.snapshotLoads()).as("shared while the job runs").isEqualTo(loads);
      }
    }
    try (KernelDeltaTableClient restarted = new KernelDeltaTableClient(lake)) {
      assertThat(restarted.snapshotId(bronze)).isEqualTo(new SnapshotId(1, 10));
      assertThat(restarted.snapshotLoads()).as("a fresh cache after the restart").isEqualTo(1);
    }
  }

  /**
   * What the cache relies on for the window between its freshness check and a commit: a commit
   * built on a snapshot that another writer's commit has overtaken, carrying a txn version that
   * commit already recorded, is refused by Kernel's conflict check ({@code
   * ConcurrentTransactionException}), not written on top of it.
   */
  @Test
  void kernelRefusesACommitBuiltOnAStaleSnapshotWhoseTxnWasTaken() throws Exception {
    LakeConfig lake = SinkDriverLake.of(dir);
    TableId bronze = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
    try (KernelDeltaTableClient ours = new KernelDeltaTableClient(lake, true, false)) {
      ours.commit(bronze, 10, ours.writeDataFiles(bronze, KernelDeltaTableClientITCase.rows(1)));
    }
    Engine engine = KernelEngines.engine(KernelEngines.hadoopConf(lake));
    String path = dir.resolve(bronze.relativePath()).toUri().toString();
    Snapshot stale = TableManager.loadSnapshot(path).build(engine);
    assertThat(stale.getVersion()).isEqualTo(1);
    try (KernelDeltaTableClient other = new KernelDeltaTableClient(lake, true, false)) {
      other.commit(bronze, 20, other.writeDataFiles(bronze, KernelDeltaTableClientITCase.rows(11)));
    }
    Transaction late =
        stale
            .buildUpdateTableTransaction("stale-writer", Operation.WRITE)
            .withTransactionId(DeltaTableClient.APP_ID, 20)
            .withMaxRetries(10)
            .build(engine);
    assertThatThrownBy(() -> late.commit(engine, CloseableIterable.emptyIterable()))
        .isInstanceOf(ConcurrentTransactionException.class);
    assertThat(TableManager.loadSnapshot(path).build(engine).getVersion()).isEqualTo(2);
  }

  private static void unit(DeltaSinkWriter writer, DeltaCommitter committer, int unit)
      throws Exception {
    long from = unit * 100L;
    List<OutboxEvent> events = new ArrayList<>();
    long seq = from;
    for (int t = 0; t < TENANTS; t++) {
      events.add(journal(++seq, tenant(t)));
      events.add(promote(++seq, tenant(t), "k" + unit));
      if (unit > 0) {
        events.add(retract(++seq, tenant(t), "k" + (unit - 1)));
      }
    }
    List<FakeCommitRequest> requests =
        commit(committer, writeUnit(writer, new Batch(from, from + 100, events)));
    assertThat(requests).extracting(FakeCommitRequest::state).containsOnly(FakeCommitRequest.State.PENDING);
  }

  private static List<DeltaCommittable> writeUnit(DeltaSinkWriter writer, Batch batch)
      throws Exception {
    writer.write(batch, null);
    return writer.prepareCommit();
  }

  private static List<FakeCommitRequest> commit(
      DeltaCommitter committer, List<DeltaCommittable> committables) throws Exception {
    List<FakeCommitRequest> requests = FakeCommitRequest.of(committables);
    committer.commit(FakeCommitRequest.asRequests(requests));
    return requests;
  }

  private static Map<String, String> silverState(LakeConfig lake, TableId silver)
      throws Exception {
    Map<String, String> state = new HashMap<>();
    for (Map<String, Object> row : LakeReader.open(lake).rows(silver)) {
      assertThat(state.put((String) row.get("artifact_id"), (String) row.get("state")))
          .as("one row per key")
          .isNull();
    }
    return state;
  }

  private static String onlyDataFile(Path tableDir) throws Exception {
    try (Stream<Path> files = Files.list(tableDir)) {
      List<String> parquet =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".parquet"))
              .toList();
      assertThat(parquet).hasSize(1);
      return parquet.get(0);
    }
  }

  private long dataCommits(TableId table) throws Exception {
    try (Stream<Path> log = Files.list(dir.resolve(table.relativePath()).resolve("_delta_log"))) {
      return log.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .filter(n -> !n.equals("00000000000000000000.json"))
          .count();
    }
  }

  private static String tenant(int t) {
    return "tenant" + t;
  }

  private static OutboxEvent journal(long seq, String tenant) {
    return Events.journal(seq, tenant);
  }

  private static OutboxEvent promote(long seq, String tenant, String artifact) {
    return Events.promote(seq, tenant, artifact, 1, "body-" + artifact + "-" + seq);
  }

  private static OutboxEvent retract(long seq, String tenant, String artifact) {
    return Events.retract(seq, tenant, EventKind.DEMOTE, artifact, 1);
  }

  /** The plain lake of {@code SinkDriver}, without the counting filesystem. */
  private static final class SinkDriverLake {
    static LakeConfig of(Path dir) {
      return LakeConfig.of(dir.toUri().toString());
    }
  }
}
