package org.oml.lakewriter.delta.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * A gold workload: each seq's event is a pure function of (tenant, seq), drawn over a few keys and
 * workareas so that they meet often: submissions (journal, some without a key), promotions and
 * re-promotions, every retraction kind, reassignments between workareas (validated or not),
 * validations and invalidations, in every order within and across batches. Every event is valid
 * (it lands in bronze).
 */
public final class GoldWorkload {
  private static final int ARTIFACTS = 5;
  private static final int VERSIONS = 2;
  private static final int WORKAREAS = 4;

  private GoldWorkload() {}

  public static OutboxEvent event(String tenant, long seq) {
    Random r = new Random(seq * 0x9E3779B97F4A7C15L ^ tenant.hashCode());
    // A window of artifacts that slides with seq: keys meet often, and new ones keep coming (a
    // retracted key never becomes active again, so a fixed set would end with no memory).
    String artifact = "art-" + (seq / 30 + r.nextInt(ARTIFACTS));
    long version = 1 + r.nextInt(VERSIONS);
    String workarea = "wa-" + r.nextInt(WORKAREAS);
    String path = "/" + workarea + "/doc-" + r.nextInt(3);
    int pick = r.nextInt(100);
    if (pick < 22) {
      OutboxEvent.Builder journal = Events.journal(seq, tenant).toBuilder();
      if (pick < 3) {
        journal.artifactId(null).artifactVersion(null); // about no artifact: no lineage
      } else {
        journal.artifactId(artifact).artifactVersion(version);
      }
      return journal.workareaId(workarea).pathAtWrite(pick % 2 == 0 ? null : path).build();
    }
    if (pick < 48) {
      return Events.materialize(seq, tenant, "body-" + tenant + "-" + seq).toBuilder()
          .artifactId(artifact)
          .artifactVersion(version)
          .workareaId(workarea)
          .pathAtWrite(path)
          .build();
    }
    if (pick < 76) {
      EventKind kind =
          pick < 54
              ? EventKind.DEMOTE
              : pick < 57 ? EventKind.ERASE : pick < 62 ? EventKind.SIMULATION_END : EventKind.REASSIGN;
      return Events.retract(seq, tenant, kind, artifact, version).toBuilder()
          .workareaId(workarea)
          .pathAtWrite(kind == EventKind.REASSIGN && pick % 3 != 0 ? path : null)
          .build();
    }
    EventKind kind = pick < 90 ? EventKind.WORKAREA_VALIDATED : EventKind.WORKAREA_INVALIDATED;
    return Events.base(seq, tenant, kind)
        .artifactId(null)
        .artifactVersion(null)
        .workareaId(workarea)
        .writerIdentity("validator-" + r.nextInt(2))
        .pathAtWrite(kind == EventKind.WORKAREA_VALIDATED ? "/" + workarea : null)
        .build();
  }

  /** The events of {@code (from, to]}, one tenant. */
  public static List<OutboxEvent> events(String tenant, long from, long to) {
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = from + 1; seq <= to; seq++) {
      events.add(event(tenant, seq));
    }
    return events;
  }
}
