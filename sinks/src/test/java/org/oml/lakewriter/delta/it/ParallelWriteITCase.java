package org.oml.lakewriter.delta.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.DeltaCommitter;
import org.oml.lakewriter.delta.frontier.FrontierListener;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeCommitRequest;
import org.oml.lakewriter.delta.testing.ForwardingDeltaTableClient;
import org.oml.lakewriter.delta.writer.DeltaSinkWriter;
import org.oml.lakewriter.delta.writer.WriterSettings;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * The writer writes a unit's tenants in parallel ({@code sink.write-parallelism}), on real tables:
 * the lake it makes is row for row the lake the same units make one tenant at a time (bronze,
 * silver with retractions of rows promoted in the same and in earlier units, gold), tenants'
 * files are written on several threads at once, and a failing tenant fails the unit only once
 * every tenant's task has ended.
 */
class ParallelWriteITCase {
  private static final int TENANTS = 12;
  private static final int UNITS = 4;
  private static final int EVENTS_PER_UNIT = 600;
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;

  @Test
  void tenantsWrittenInParallelMakeTheLakeThatOneAtATimeMakes() throws Exception {
    List<Batch> units = units(new Random(20261201));
    LakeConfig sequential = LakeConfig.of(dir.resolve("sequential").toUri().toString());
    LakeConfig parallel = LakeConfig.of(dir.resolve("parallel").toUri().toString());
    Recording seqClient = write(sequential, units, 1);
    Recording parClient = write(parallel, units, 4);

    assertThat(seqClient.maxInFlight.get()).as("one tenant at a time").isEqualTo(1);
    assertThat(seqClient.threads).containsOnly(Thread.currentThread().getName());
    assertThat(parClient.maxInFlight.get()).as("tenants written at once").isBetween(2, 4);
    assertThat(parClient.threads).allMatch(t -> t.startsWith("delta-writer-"));

    LakeReader a = LakeReader.open(sequential);
    LakeReader b = LakeReader.open(parallel);
    assertThat(b.tables()).containsExactlyInAnyOrderElementsOf(a.tables());
    assertThat(a.tables())
        .contains(
            TableId.of(tenant(3), TableKind.BRONZE_JOURNAL_EVENTS),
            TableId.of(tenant(3), TableKind.SILVER_MEMORIES),
            TableId.of(tenant(3), TableKind.GOLD_LINEAGE));
    int retracted = 0;
    for (TableId table : a.tables()) {
      assertThat(b.txnVersion(table)).as(table + " txn").isEqualTo(a.txnVersion(table));
      List<Map<String, Object>> expected = sorted(a.rows(table));
      assertThat(expected).as(table + " rows").isNotEmpty();
      assertThat(sorted(b.rows(table))).as(table.toString()).isEqualTo(expected);
      if (table.kind() == TableKind.SILVER_MEMORIES) {
        retracted += (int) expected.stream().filter(r -> !"active".equals(r.get("state"))).count();
      }
    }
    assertThat(retracted).as("silver rows retracted").isGreaterThan(TENANTS);
  }

  @Test
  void aTenantThatFailsFailsTheUnitOnlyAfterEveryTenantsTaskHasEnded() throws Exception {
    List<Batch> units = units(new Random(7));
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    TableId failing = TableId.of(tenant(0), TableKind.BRONZE_JOURNAL_EVENTS);
    Recording client = new Recording(new KernelDeltaTableClient(lake), failing);
    try (DeltaSinkWriter writer = writer(client, 4)) {
      writer.write(units.get(0), null);
      assertThatThrownBy(writer::prepareCommit)
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining(failing.toString());
      assertThat(client.inFlight.get()).as("tasks still writing when the unit failed").isZero();
      assertThat(client.written)
          .as("the other tenants' tables were written")
          .contains(TableId.of(tenant(TENANTS - 1), TableKind.BRONZE_JOURNAL_EVENTS));
    }
  }

  private static Recording write(LakeConfig lake, List<Batch> units, int parallelism)
      throws Exception {
    Recording client = new Recording(new KernelDeltaTableClient(lake), null);
    try (DeltaSinkWriter writer = writer(client, parallelism);
        DeltaCommitter committer =
            new DeltaCommitter(new KernelDeltaTableClient(lake), FrontierListener.NONE)) {
      for (Batch unit : units) {
        writer.write(unit, null);
        List<DeltaCommittable> ready = writer.prepareCommit();
        committer.commit(FakeCommitRequest.asRequests(FakeCommitRequest.of(ready)));
      }
    }
    return client;
  }

  private static DeltaSinkWriter writer(DeltaTableClient client, int parallelism) {
    return new DeltaSinkWriter(
        client, CLOCK, WriterSettings.defaults().withWriteParallelism(parallelism));
  }

  /**
   * {@link #UNITS} units over {@link #TENANTS} tenants: journal events, promotions, and
   * retractions of keys promoted earlier (in the same unit or an earlier one).
   */
  private static List<Batch> units(Random random) {
    List<Batch> units = new ArrayList<>();
    Map<String, List<String>> promoted = new HashMap<>();
    long seq = 0;
    for (int u = 0; u < UNITS; u++) {
      long from = seq;
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = 0; i < EVENTS_PER_UNIT; i++) {
        String tenant = tenant(random.nextInt(TENANTS));
        List<String> keys = promoted.computeIfAbsent(tenant, t -> new ArrayList<>());
        int roll = random.nextInt(10);
        if (roll < 5) {
          events.add(Events.journal(++seq, tenant));
        } else if (roll < 8 || keys.isEmpty()) {
          String key = "k-" + Long.toHexString(random.nextLong());
          keys.add(key);
          events.add(Events.promote(++seq, tenant, key, 1, "body-" + key));
        } else {
          String key = keys.remove(random.nextInt(keys.size()));
          EventKind kind = random.nextBoolean() ? EventKind.DEMOTE : EventKind.ERASE;
          events.add(Events.retract(++seq, tenant, kind, key, 1));
        }
      }
      units.add(new Batch(from, seq, events));
    }
    return units;
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> copy = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      Map<String, Object> comparable = new TreeMap<>();
      row.forEach(
          (k, v) -> comparable.put(k, v instanceof byte[] b ? HexFormat.of().formatHex(b) : v));
      copy.add(comparable);
    }
    copy.sort(Comparator.comparing(Object::toString));
    return copy;
  }

  private static String tenant(int t) {
    return String.format("tenant%02d", t);
  }

  /**
   * Records the threads that write data files and how many writes were in flight at once; a write
   * waits (up to 2 s, until that has been seen once) until another one is in flight, so that a
   * writer that writes tenants in parallel shows it however fast the disk is. Writing to {@code failing} throws {@link
   * TableUnusableException}.
   */
  private static final class Recording extends ForwardingDeltaTableClient {
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final Set<TableId> written = ConcurrentHashMap.newKeySet();
    final AtomicInteger maxInFlight = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    private final TableId failing;

    Recording(DeltaTableClient delegate, TableId failing) {
      super(delegate);
      this.failing = failing;
    }

    @Override
    public List<DataFile> writeDataFiles(TableId table, List<TableRow> rows) throws IOException {
      threads.add(Thread.currentThread().getName());
      int now = inFlight.incrementAndGet();
      maxInFlight.accumulateAndGet(now, Math::max);
      try {
        if (!Thread.currentThread().getName().startsWith("delta-writer-")) {
          return write(table, rows);
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (maxInFlight.get() < 2 && inFlight.get() < 2 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        maxInFlight.accumulateAndGet(inFlight.get(), Math::max);
        return write(table, rows);
      } finally {
        inFlight.decrementAndGet();
      }
    }

    private List<DataFile> write(TableId table, List<TableRow> rows) throws IOException {
      if (table.equals(failing)) {
        throw new TableUnusableException(table, "injected: the table cannot be used", null);
      }
      List<DataFile> files = delegate.writeDataFiles(table, rows);
      written.add(table);
      return files;
    }
  }
}
