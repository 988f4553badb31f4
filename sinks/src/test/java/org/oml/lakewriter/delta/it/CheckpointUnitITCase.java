package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.event.EventKind.DEMOTE;
import static org.oml.lakewriter.event.EventKind.ERASE;

import java.io.IOException;
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
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The batches of one checkpoint are one commit unit: on real Delta tables, read back by Kernel's
 * scan and by the log's own files, each table gets one file and one commit for the whole
 * checkpoint, with {@code txn} version = the last batch's end; a retraction of a row promoted
 * earlier in the same checkpoint applies; and a replay of the unit, by the committer or by a
 * restored writer that re-cuts the same batches, applies nothing twice.
 */
class CheckpointUnitITCase {
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);
  private static final TableId BRONZE = TableId.of(TENANT, TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path dir;

  private static List<Batch> checkpointOne() {
    return List.of(
        new Batch(0, 10, List.of(promote(1, "k1"), promote(2, "k2"), Events.journal(3, TENANT))),
        new Batch(10, 20, List.of(retract(11, DEMOTE, "k1"), promote(12, "k3"))),
        new Batch(20, 30, List.of(retract(21, ERASE, "k2"), promote(22, "k1"))));
  }

  @Test
  void aCheckpointsBatchesLandAsOneCommitPerTableAndAReplayAppliesNothingTwice()
      throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    List<DeltaCommittable> unit = writeOneCheckpoint(lake, checkpointOne());
    assertThat(unit).extracting(DeltaCommittable::batchName).containsExactly("(0, 30]");
    assertThat(SinkDriver.commit(lake, unit))
        .extracting(FakeCommitRequest::state)
        .containsExactly(FakeCommitRequest.State.PENDING);

    LakeReader reader = LakeReader.open(lake);
    for (TableId table : List.of(BRONZE, SILVER)) {
      assertThat(reader.txnVersion(table)).as(table + " txn").isEqualTo(30);
      assertThat(reader.fileCount(table)).as(table + " files").isEqualTo(1);
      assertThat(dataCommits(table)).as(table + " commits").isEqualTo(1);
    }
    assertSilver(reader, Map.of("k1", "demoted", "k2", "erased", "k3", "active"));
    assertThat(bronzeSeqs(reader)).containsExactly(1L, 2L, 3L, 11L, 12L, 21L, 22L);

    // Replay 1: the committer's state comes back after a failover and commits the unit again.
    assertThat(SinkDriver.commit(lake, unit))
        .extracting(FakeCommitRequest::state)
        .containsExactly(FakeCommitRequest.State.ALREADY_COMMITTED);
    // Replay 2: a writer restored from an earlier checkpoint re-cuts the same batches and one
    // more, in a single checkpoint of its own.
    List<Batch> recut = new ArrayList<>(checkpointOne());
    recut.add(new Batch(30, 40, List.of(promote(31, "k4"), retract(32, DEMOTE, "k3"))));
    List<DeltaCommittable> again = writeOneCheckpoint(lake, recut);
    assertThat(again).extracting(DeltaCommittable::batchName).containsExactly("(0, 40]");
    SinkDriver.commit(lake, again);

    reader = LakeReader.open(lake);
    assertSilver(reader, Map.of("k1", "demoted", "k2", "erased", "k3", "demoted", "k4", "active"));
    assertThat(bronzeSeqs(reader)).containsExactly(1L, 2L, 3L, 11L, 12L, 21L, 22L, 31L, 32L);
    for (TableId table : List.of(BRONZE, SILVER)) {
      assertThat(reader.txnVersion(table)).as(table + " txn").isEqualTo(40);
      assertThat(dataCommits(table)).as(table + " commits").isEqualTo(2);
    }
  }

  /** A fresh writer takes every batch in one checkpoint: one barrier after the last. */
  private static List<DeltaCommittable> writeOneCheckpoint(LakeConfig lake, List<Batch> batches)
      throws Exception {
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC())) {
      for (Batch batch : batches) {
        writer.write(batch, null);
      }
      return writer.prepareCommit();
    }
  }

  private static void assertSilver(LakeReader reader, Map<String, String> states)
      throws IOException {
    Map<String, String> silver = new HashMap<>();
    for (Map<String, Object> row : reader.rows(SILVER)) {
      assertThat(silver.put((String) row.get("artifact_id"), (String) row.get("state")))
          .as("one row per key")
          .isNull();
    }
    assertThat(silver).isEqualTo(states);
  }

  private static List<Long> bronzeSeqs(LakeReader reader) throws IOException {
    return reader.rows(BRONZE).stream().map(r -> (Long) r.get("seq")).sorted().toList();
  }

  /** Commits in the table's log after its creation (version 0), counted from the log's files. */
  private long dataCommits(TableId table) throws IOException {
    try (Stream<Path> log = Files.list(dir.resolve(table.relativePath()).resolve("_delta_log"))) {
      return log.map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d{20}\\.json"))
          .filter(n -> !n.equals("00000000000000000000.json"))
          .count();
    }
  }

  private static OutboxEvent promote(long seq, String artifact) {
    return Events.promote(seq, TENANT, artifact, 1, "body-" + artifact + "-" + seq);
  }

  private static OutboxEvent retract(long seq, org.oml.lakewriter.event.EventKind kind, String a) {
    return Events.retract(seq, TENANT, kind, a, 1);
  }
}
