package org.oml.lakewriter.delta.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.compact.CompactionGuard;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.delta.testing.GoldOracle;
import org.oml.lakewriter.delta.testing.GoldWorkload;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The gold tables the writer and committer stream, against {@link GoldOracle}'s independent fold of
 * the same events: random commit units, barriers and commits; crashes in the middle of a unit's
 * commit (some of its tables committed, the others not), followed either by a restore (the unit's
 * committable committed again) or by a stateless start that replays from an earlier seq onto the
 * lake with its history; out-of-band compactions of the gold tables; and a final double commit.
 */
class GoldStreamTest {
  private static final List<String> TENANTS = List.of("acme", "beta");

  @Test
  void goldEqualsTheFoldOfTheEventsUnderRandomUnitsCrashesAndReplays() throws Exception {
    for (int seed = 0; seed < 60; seed++) {
      run(seed, 240);
    }
    // The workload reaches every case: memories that come and go, crashes of both kinds.
    assertThat(memoryRows).isGreaterThan(100);
    assertThat(crashes).isGreaterThan(30);
  }

  private long memoryRows;
  private long crashes;

  private static OutboxEvent event(long seq) {
    return GoldWorkload.event(TENANTS.get((int) (seq % TENANTS.size())), seq);
  }

  private static List<OutboxEvent> events(long from, long to) {
    List<OutboxEvent> events = new ArrayList<>();
    for (long seq = from + 1; seq <= to; seq++) {
      events.add(event(seq));
    }
    return events;
  }

  private void run(int seed, long n) throws Exception {
    Random random = new Random(seed);
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    DeltaSinkWriter writer = newWriter(client);
    List<DeltaCommittable> handed = new ArrayList<>();
    long pos = 0;
    long committedUpTo = 0;
    while (pos < n) {
      long end = Math.min(n, pos + 1 + random.nextInt(14));
      writer.write(new Batch(pos, end, events(pos, end)), null);
      pos = end;
      if (random.nextInt(10) < 4) {
        handed.addAll(writer.prepareCommit());
      }
      if (handed.isEmpty()) {
        continue;
      }
      int roll = random.nextInt(100);
      if (roll < 45) {
        commit(client, handed);
        committedUpTo = handed.get(handed.size() - 1).batchEnd();
        handed.clear();
        if (random.nextInt(10) == 0) {
          // Another engine rewrites the gold tables (an OPTIMIZE) while nothing is pending: the
          // key indexes must see it and rebuild. (With a rewrite pending, its commit would be
          // refused and the tenant quarantined, as for silver; the job's own compaction is kept
          // off pending files by the CompactionGuard.)
          for (String tenant : TENANTS) {
            for (TableKind kind : List.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES)) {
              TableId table = TableId.of(tenant, kind);
              if (client.txnVersion(table) >= 0) {
                client.outOfBandCommit(table, rows -> rows);
              }
            }
          }
        }
      } else if (roll < 53) {
        crashes++;
        DeltaCommittable unit = handed.get(0);
        List<TableCommit> tables = unit.tables();
        for (TableCommit table : tables.subList(0, random.nextInt(tables.size() + 1))) {
          client.commitRewrite(table.table(), unit.batchEnd(), table.files(), table.rewrite());
        }
        if (random.nextBoolean()) {
          // A restore: the checkpoint's committable is committed again, then the job goes on.
          commit(client, List.of(unit));
          committedUpTo = unit.batchEnd();
          pos = committedUpTo;
        } else {
          // A stateless start onto the lake with its history, from an earlier seq.
          pos = Math.max(0, committedUpTo - random.nextInt(12));
        }
        handed.clear();
        writer.close();
        writer = newWriter(client);
      }
    }
    handed.addAll(writer.prepareCommit());
    commit(client, handed);
    commit(client, handed); // a replayed commit changes nothing
    writer.close();
    for (String tenant : TENANTS) {
      List<OutboxEvent> all = events(0, n).stream().filter(e -> e.tenantId().equals(tenant)).toList();
      GoldOracle expected = GoldOracle.of(all);
      String what = "seed " + seed + " tenant " + tenant;
      memoryRows += expected.memories().size();
      assertThat(rows(client, tenant, TableKind.GOLD_LINEAGE, "artifact_id", "version"))
          .as(what + " lineage")
          .isEqualTo(expected.lineage());
      assertThat(rows(client, tenant, TableKind.GOLD_WORKAREAS, "workarea_id", null))
          .as(what + " workareas")
          .isEqualTo(expected.workareas());
      assertThat(
              rows(client, tenant, TableKind.GOLD_WORKAREA_MEMORIES, "artifact_id", "version"))
          .as(what + " memories")
          .isEqualTo(expected.memories());
    }
  }

  private static DeltaSinkWriter newWriter(FakeDeltaTableClient client) {
    return new DeltaSinkWriter(
        client,
        Clock.systemUTC(),
        WriterSettings.defaults().withCompactionGuard(CompactionGuard.unshared()));
  }

  private static void commit(FakeDeltaTableClient client, List<DeltaCommittable> committables)
      throws Exception {
    new DeltaCommitter(client, FrontierListener.NONE)
        .commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(committables)));
  }

  /** The committed rows by key, each as column name to value; a duplicate key fails. */
  static Map<String, Map<String, Object>> rows(
      FakeDeltaTableClient client, String tenant, TableKind kind, String key, String key2) {
    LakeSchemas.TableSchema schema = LakeSchemas.of(kind);
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    for (TableRow row : client.committedRows(TableId.of(tenant, kind))) {
      Map<String, Object> columns = new HashMap<>();
      for (int i = 0; i < schema.columns().size(); i++) {
        columns.put(schema.columns().get(i).name(), row.value(i));
      }
      String id =
          columns.get(key) + (key2 == null ? "" : "@" + columns.get(key2));
      assertThat(rows.put(id, columns)).as("duplicate row " + id + " in " + kind).isNull();
    }
    return rows;
  }
}
