package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.event.EventKind.DEMOTE;
import static org.oml.lakewriter.event.EventKind.ERASE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.ListOutbox;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Issue 11 item 1 on real Delta tables: another engine's OPTIMIZE of {@code acme/silver} between
 * the write and the commit of a batch that retracts rows, then a failover. Each phase is a NEW
 * writer or committer (a restart); the restored job re-delivers the checkpointed committable. In the
 * end silver equals the fold of the outbox: no promotion missing, every retraction applied, and no
 * table's txn version ever above a batch it does not hold.
 */
class QuarantineReplanITCase {
  private static final TableId ACME_SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final TableId ACME_BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId BETA_SILVER = TableId.of("beta", TableKind.SILVER_MEMORIES);

  @TempDir Path dir;

  @Test
  void anOptimizeBetweenWriteAndCommitIsReplannedFromTheOutboxAcrossAFailover() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    ListOutbox outbox = new ListOutbox("replan-" + System.nanoTime());
    Batch first =
        batch(
            0,
            10,
            promote(1, "acme", "k1"),
            promote(2, "acme", "k2"),
            promote(3, "acme", "k3"),
            promote(4, "acme", "k4"),
            promote(5, "beta", "b1"),
            promote(6, "beta", "b2"),
            Events.journal(7, "acme"));
    outbox.add(first.events());
    SinkDriver.commit(lake, SinkDriver.write(lake, List.of(first), outbox));

    Batch second =
        batch(
            10,
            20,
            retract(11, "acme", DEMOTE, "k1"),
            retract(12, "acme", ERASE, "k2"),
            promote(13, "acme", "k5"),
            retract(14, "beta", DEMOTE, "b1"),
            Events.journal(15, "acme"));
    outbox.add(second.events());
    List<DeltaCommittable> checkpointed = SinkDriver.write(lake, List.of(second), outbox);
    String replaced = silverCommit(checkpointed.get(0)).removes().get(0).relativePath();
    // Between write and commit, another engine compacts acme's silver file away.
    OutOfBandCompaction.replace(dir.resolve(ACME_SILVER.relativePath()), replaced);

    List<FakeCommitRequest> requests = SinkDriver.commit(lake, checkpointed);
    assertThat(requests).extracting(FakeCommitRequest::state).doesNotContain(State.FAILED_KNOWN);
    Quarantine record = new LakeQuarantineStore(lake).list().get("acme");
    assertThat(record.action()).isEqualTo(Quarantine.Action.REPLAN);
    assertThat(record.table()).isEqualTo(ACME_SILVER.relativePath());
    assertThat(record.resumeAfter()).isEqualTo(10);
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.txnVersion(ACME_SILVER)).isEqualTo(10); // not over the unapplied batch
    assertThat(reader.txnVersion(ACME_BRONZE)).isEqualTo(20); // bronze took it before silver failed
    assertThat(silver(lake, BETA_SILVER).get("b1")).containsEntry("state", "demoted");

    // Failover: the job restores from the checkpoint that holds (10, 20], and a new writer cuts
    // (20, 30], which retracts a row promoted in the failed batch.
    Batch third =
        batch(
            20,
            30,
            retract(21, "acme", ERASE, "k3"),
            retract(22, "acme", DEMOTE, "k5"),
            promote(23, "acme", "k6"),
            retract(24, "beta", ERASE, "b2"));
    outbox.add(third.events());
    List<DeltaCommittable> after = new ArrayList<>(checkpointed);
    after.addAll(SinkDriver.write(lake, List.of(third), outbox));
    assertThat(outbox.reads()).isEqualTo(1);
    assertThat(new LakeQuarantineStore(lake).list().get("acme").replay().batchEnd()).isEqualTo(30);
    assertThat(SinkDriver.commit(lake, after))
        .extracting(FakeCommitRequest::state)
        .doesNotContain(State.FAILED_KNOWN);

    assertThat(new LakeQuarantineStore(lake).list()).isEmpty();
    Map<String, Map<String, Object>> acme = silver(lake, ACME_SILVER);
    assertThat(acme).containsOnlyKeys("k1", "k2", "k3", "k4", "k5", "k6");
    assertRow(acme.get("k1"), "demoted", 11);
    assertRow(acme.get("k2"), "erased", 12);
    assertRow(acme.get("k3"), "erased", 21);
    assertRow(acme.get("k4"), "active", 4);
    assertRow(acme.get("k5"), "demoted", 22);
    assertRow(acme.get("k6"), "active", 23);
    Map<String, Map<String, Object>> beta = silver(lake, BETA_SILVER);
    assertRow(beta.get("b1"), "demoted", 14);
    assertRow(beta.get("b2"), "erased", 24);
    reader = LakeReader.open(lake);
    assertThat(reader.contents(ACME_BRONZE).orElseThrow().seqs())
        .containsExactly(1L, 2L, 3L, 4L, 7L, 11L, 12L, 13L, 15L, 21L, 22L, 23L);
    assertThat(reader.txnVersion(ACME_SILVER)).isEqualTo(30);
  }

  private static void assertRow(Map<String, Object> row, String state, long seq) {
    assertThat(row).as("silver row").isNotNull();
    assertThat(row.get("state")).as(row.get("artifact_id") + " state").isEqualTo(state);
    assertThat(row.get("seq")).as(row.get("artifact_id") + " seq").isEqualTo(seq);
  }

  /** Silver rows by artifact id; one row per key. */
  private static Map<String, Map<String, Object>> silver(LakeConfig lake, TableId table)
      throws Exception {
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : LakeReader.open(lake).rows(table)) {
      assertThat(rows.put((String) row.get("artifact_id"), row))
          .as("one row per key: " + row.get("artifact_id"))
          .isNull();
    }
    return rows;
  }

  private static TableCommit silverCommit(DeltaCommittable committable) {
    return committable.tables().stream()
        .filter(t -> t.table().equals(ACME_SILVER))
        .findFirst()
        .orElseThrow();
  }

  private static Batch batch(long from, long to, OutboxEvent... events) {
    return new Batch(from, to, List.of(events));
  }

  private static OutboxEvent promote(long seq, String tenant, String artifact) {
    return Events.promote(seq, tenant, artifact, 1, "body-" + seq);
  }

  private static OutboxEvent retract(long seq, String tenant, EventKind kind, String artifact) {
    return Events.retract(seq, tenant, kind, artifact, 1);
  }
}
