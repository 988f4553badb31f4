package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.oml.lakewriter.event.EventKind.DEMOTE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeCommitRequest.State;
import org.oml.lakewriter.delta.testing.OutOfBandCompaction;
import org.oml.lakewriter.delta.testing.SinkDriver;
import org.oml.lakewriter.event.Batch;

/**
 * Issue 11 item 1, the silent loss itself, on real Delta tables and with nothing but the sink's
 * phases: an OPTIMIZE of {@code acme/silver} between write and commit, then a restart (a new
 * writer and a new committer; Flink re-delivers only what the committer did not settle). The txn
 * version of acme's silver must never pass the batch whose retraction it does not hold. Before the
 * fix the failed committable was discarded and the next batch raised the txn version over it.
 */
class OptimizeThenRestartGapITCase {
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);

  @TempDir Path dir;

  @Test
  void aRestartNeverRaisesTheTxnVersionOverABatchThatWasNotApplied() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    SinkDriver.run(
        lake,
        List.of(
            new Batch(
                0,
                10,
                List.of(
                    Events.promote(1, "acme", "k1", 1, "b1"),
                    Events.promote(2, "acme", "k2", 1, "b2")))));
    List<DeltaCommittable> second =
        SinkDriver.write(
            lake, List.of(new Batch(10, 20, List.of(Events.retract(11, "acme", DEMOTE, "k1", 1)))));
    String replaced = second.get(0).tables().get(second.get(0).tables().size() - 1).removes().get(0).relativePath();
    OutOfBandCompaction.replace(dir.resolve(SILVER.relativePath()), replaced);

    List<DeltaCommittable> redelivered = new ArrayList<>();
    try {
      for (FakeCommitRequest r : SinkDriver.commit(lake, second)) {
        if (r.state() == State.RETRY) {
          redelivered.add(r.getCommittable());
        }
      }
    } catch (IllegalStateException failover) {
      redelivered.addAll(second); // still in the checkpoint: the restored job commits it again
    }

    // Restart: a new writer cuts the next batch, a new committer commits what is left.
    List<DeltaCommittable> after = new ArrayList<>(redelivered);
    after.addAll(
        SinkDriver.write(
            lake,
            List.of(new Batch(20, 30, List.of(Events.promote(21, "acme", "k3", 1, "b3"))))));
    try {
      SinkDriver.commit(lake, after);
    } catch (IllegalStateException failover) {
      // a failover is loud; the check below is about silence
    }

    LakeReader reader = LakeReader.open(lake);
    long txn = reader.txnVersion(SILVER);
    Map<String, Object> k1 =
        reader.rows(SILVER).stream()
            .filter(r -> "k1".equals(r.get("artifact_id")))
            .findFirst()
            .orElseThrow();
    if (txn >= 20) {
      assertThat(k1.get("state"))
          .as("acme silver is at txn " + txn + ", so it must hold the demote of batch (10, 20]")
          .isEqualTo("demoted");
    } else {
      assertThat(txn).as("held below the unapplied batch").isEqualTo(10);
    }
  }

}
