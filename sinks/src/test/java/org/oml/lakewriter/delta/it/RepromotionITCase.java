package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.event.EventKind.DEMOTE;
import static org.oml.lakewriter.event.EventKind.ERASE;

import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Producer retries of promotions on real Delta tables, read back by Kernel's scan: silver keeps
 * one row per key, in the state its retractions left, with the first promotion's body, whether
 * the retry comes in the same batch, in a batch not committed yet, after a commit, after a restart
 * (a new writer), or after another engine compacted the table.
 */
class RepromotionITCase {
  private static final String TENANT = "acme";
  private static final TableId SILVER = TableId.of(TENANT, TableKind.SILVER_MEMORIES);
  private static final TableId BRONZE = TableId.of(TENANT, TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path dir;

  @Test
  void retriedPromotionsNeverAddARowNorBringABodyBack() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    // Run 1: k1..k3 promoted, k1 retried in the same batch; k2 demoted and retried in one batch
    // not yet committed; k3 erased then retried in the same batch.
    SinkDriver.run(
        lake,
        List.of(
            new Batch(
                0,
                10,
                List.of(promote(1, "k1"), promote(2, "k2"), promote(3, "k3"), promote(4, "k1"))),
            new Batch(10, 20, List.of(retract(11, DEMOTE, "k2"), promote(12, "k2"))),
            new Batch(20, 30, List.of(retract(21, ERASE, "k3"), promote(22, "k3")))));
    // Another engine compacts the silver file of run 1 behind the writer's back.
    String file = LakeReader.open(lake).filePaths(SILVER).get(0);
    OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), file);

    // Run 2, a restart: one writer, several checkpoints; every key retried again, k4 new.
    try (DeltaSinkWriter writer =
        new DeltaSinkWriter(new KernelDeltaTableClient(lake), Clock.systemUTC())) {
      writer.write(new Batch(30, 40, List.of(promote(31, "k1"), promote(32, "k4"))), null);
      commit(lake, writer.prepareCommit());
      // Another compaction while this writer runs: its key index is checked and rebuilt.
      OutOfBandCompaction.replace(
          dir.resolve(SILVER.relativePath()), LakeReader.open(lake).filePaths(SILVER).get(0));
      writer.write(new Batch(40, 50, List.of(promote(41, "k2"), promote(42, "k3"))), null);
      writer.write(new Batch(50, 60, List.of(promote(51, "k4"), retract(52, ERASE, "k4"))), null);
      commit(lake, writer.prepareCommit());
      writer.write(new Batch(60, 70, List.of(promote(61, "k4"))), null);
      commit(lake, writer.prepareCommit());
    }

    LakeReader reader = LakeReader.open(lake);
    Map<String, Map<String, Object>> silver = new HashMap<>();
    for (Map<String, Object> row : reader.rows(SILVER)) {
      assertThat(silver.put((String) row.get("artifact_id"), row)).as("one row per key").isNull();
    }
    assertThat(silver).containsOnlyKeys("k1", "k2", "k3", "k4");
    assertThat(silver.get("k1")).containsEntry("state", "active").containsEntry("seq", 1L);
    assertThat(silver.get("k2")).containsEntry("state", "demoted").containsEntry("seq", 11L);
    assertThat(silver.get("k3")).containsEntry("state", "erased").containsEntry("seq", 21L);
    assertThat(silver.get("k4")).containsEntry("state", "erased").containsEntry("seq", 52L);
    for (String key : List.of("k3", "k4")) {
      assertThat(silver.get(key).get("body")).as("an erase cleared " + key + "'s body").isNull();
    }
    for (String key : List.of("k1", "k2")) {
      assertThat((byte[]) silver.get(key).get("body"))
          .isEqualTo(Events.sealed("body-" + key + "-first"));
    }
    // Bronze still records every event, retries included.
    assertThat(reader.rows(BRONZE)).hasSize(15);
  }

  private static void commit(LakeConfig lake, List<DeltaCommittable> committables)
      throws Exception {
    SinkDriver.commit(lake, committables);
  }

  /** The first promotions (seq 1-3) carry the body silver must keep; retries carry another. */
  private static OutboxEvent promote(long seq, String artifact) {
    String body = "body-" + artifact + (seq <= 3 ? "-first" : "-retry-" + seq);
    return Events.promote(seq, TENANT, artifact, 1, body);
  }

  private static OutboxEvent retract(long seq, EventKind kind, String artifact) {
    return Events.retract(seq, TENANT, kind, artifact, 1);
  }
}
