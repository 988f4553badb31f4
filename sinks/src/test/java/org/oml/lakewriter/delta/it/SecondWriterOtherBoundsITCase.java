package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.quarantine.LakeQuarantineStore;
import org.oml.lakewriter.delta.quarantine.Quarantine;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.ListOutbox;
import org.oml.lakewriter.delta.testing.SinkDriver;

/**
 * Issue 13, "a second writer with different batch bounds", through the whole sink on real Delta
 * tables: writer A cuts {@code (0, 100]} and has not committed it when writer B, started by mistake
 * without a lease, cuts and commits {@code (0, 60]}. A's commit must then apply nothing a second
 * time: each tenant whose tables took B's batch is held for a replan (nothing committed for it),
 * and A's next batch replays the tenant from the outbox above what the tables record. In the end
 * every seq is in bronze exactly once and silver equals the fold of the outbox. Each phase is a new
 * writer or committer, as after a restart.
 */
class SecondWriterOtherBoundsITCase {
  private static final List<String> TENANTS = List.of("acme", "beta");

  @TempDir Path dir;

  @Test
  void theLaterCommitOfOverlappingBoundsIsReplannedNotAppliedTwice() throws Exception {
    LakeConfig lake = SinkDriver.lake(dir);
    ListOutbox outbox = new ListOutbox("other-bounds-" + System.nanoTime());
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = 1; seq <= 130; seq++) {
      events.add(event(seq));
    }
    outbox.add(events);

    List<DeltaCommittable> writerA = SinkDriver.write(lake, List.of(batch(events, 0, 100)));
    List<DeltaCommittable> writerB = SinkDriver.write(lake, List.of(batch(events, 0, 60)));
    SinkDriver.commit(lake, writerB);
    for (String tenant : TENANTS) {
      assertThat(LakeReader.open(lake).txnVersion(bronze(tenant))).isEqualTo(60);
    }

    List<FakeCommitRequest> requests = SinkDriver.commit(lake, writerA);
    assertThat(requests)
        .extracting(FakeCommitRequest::state)
        .doesNotContain(FakeCommitRequest.State.FAILED_KNOWN);
    Map<String, Quarantine> held = new LakeQuarantineStore(lake).list();
    assertThat(held).containsOnlyKeys(TENANTS);
    for (String tenant : TENANTS) {
      assertThat(held.get(tenant).action()).isEqualTo(Quarantine.Action.REPLAN);
      assertThat(held.get(tenant).reason()).contains("OVERLAPPING_BATCH");
      // Nothing of A's batch was committed over B's.
      assertThat(bronzeSeqs(lake, tenant)).containsExactlyInAnyOrderElementsOf(seqs(tenant, 1, 60));
    }

    // A goes on (a new writer, as after its restart): its next batch replays both tenants.
    SinkDriver.commit(lake, SinkDriver.write(lake, List.of(batch(events, 100, 130)), outbox));

    assertThat(new LakeQuarantineStore(lake).list()).isEmpty();
    LakeReader reader = LakeReader.open(lake);
    for (String tenant : TENANTS) {
      assertThat(reader.txnVersion(bronze(tenant))).isEqualTo(130);
      assertThat(bronzeSeqs(lake, tenant))
          .as(tenant + ": every seq once")
          .containsExactlyInAnyOrderElementsOf(seqs(tenant, 1, 130));
      assertThat(silver(lake, tenant)).isEqualTo(expectedSilver(events, tenant));
    }
  }

  /**
   * Seq by seq: journal events, promotions of artifact {@code k<seq>}, and every tenth seq demotes
   * the artifact promoted five seqs before; tenants alternate.
   */
  private static OutboxEvent event(long seq) {
    String tenant = tenantOf(seq);
    if (seq % 10 == 0) {
      return Events.retract(seq, tenant, EventKind.DEMOTE, "k" + (seq - 5), 1);
    }
    if (seq % 5 == 0) {
      return Events.promote(seq, tenant, "k" + seq, 1, "body-" + seq);
    }
    return Events.journal(seq, tenant);
  }

  private static String tenantOf(long seq) {
    return TENANTS.get((int) ((seq / 3) % 2));
  }

  private static Map<String, String> expectedSilver(List<OutboxEvent> events, String tenant) {
    Map<String, String> states = new TreeMap<>();
    for (OutboxEvent e : events) {
      if (!tenantOf(e.seq()).equals(tenant)) {
        continue;
      }
      if (e.seq() % 10 == 0) {
        states.computeIfPresent("k" + (e.seq() - 5), (k, s) -> "demoted");
      } else if (e.seq() % 5 == 0) {
        states.put("k" + e.seq(), "active");
      }
    }
    return states;
  }

  private static Batch batch(List<OutboxEvent> events, long from, long to) {
    return new Batch(
        from, to, events.stream().filter(e -> e.seq() > from && e.seq() <= to).toList());
  }

  private static TableId bronze(String tenant) {
    return TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS);
  }

  private static List<Long> seqs(String tenant, long from, long to) {
    return LongStream.rangeClosed(from, to).filter(s -> tenantOf(s).equals(tenant)).boxed().toList();
  }

  private static List<Long> bronzeSeqs(LakeConfig lake, String tenant) throws Exception {
    return LakeReader.open(lake).contents(bronze(tenant)).orElseThrow().seqs();
  }

  /** Silver's state per artifact; fails on a key held twice. */
  private static Map<String, String> silver(LakeConfig lake, String tenant) throws Exception {
    Map<String, String> states = new TreeMap<>();
    for (Map<String, Object> row :
        LakeReader.open(lake).rows(TableId.of(tenant, TableKind.SILVER_MEMORIES))) {
      assertThat(states.put((String) row.get("artifact_id"), (String) row.get("state")))
          .as("one silver row per key: " + row.get("artifact_id"))
          .isNull();
    }
    return states;
  }
}
