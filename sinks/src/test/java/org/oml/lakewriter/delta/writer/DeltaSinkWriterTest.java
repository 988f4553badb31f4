package org.oml.lakewriter.delta.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

class DeltaSinkWriterTest {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);

  @Test
  void theBatchesOfACheckpointMakeOneCommittableWithOneFilePerTable() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    writer.write(new Batch(0, 4, Events.mixed("acme", 0, 4)), null);
    writer.write(new Batch(4, 8, Events.mixed("acme", 4, 8)), null);
    assertThat(client.log()).noneMatch(line -> line.startsWith("write"));

    List<DeltaCommittable> committables = writer.prepareCommit();
    assertThat(committables).extracting(DeltaCommittable::batchName).containsExactly("(0, 8]");
    assertThat(committables.get(0).tables())
        .extracting(TableCommit::table)
        .containsExactly(BRONZE, TableId.of("acme", TableKind.GOLD_LINEAGE), SILVER);
    assertThat(committables.get(0).tables().get(0).rowCount()).isEqualTo(8);
    assertThat(client.log().stream().filter(line -> line.startsWith("write")))
        .as("one file write per table, lineage's journal-only and promoted rows apart (no memory:"
            + " no workarea is validated)")
        .containsExactly(
            "write acme/bronze/journal_events 8",
            "write acme/silver/memories 2",
            "write acme/gold/lineage 4",
            "write acme/gold/lineage 2");
    assertThat(writer.prepareCommit()).isEmpty();
  }

  @Test
  void aCommitUnitIsWrittenEarlyAtItsRowCapAndNeverSpansAGap() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    DeltaSinkWriter writer =
        new DeltaSinkWriter(
            client,
            Clock.systemUTC(),
            WriterSettings.defaults().withUnitLimits(new CommitUnitLimits(8, 1 << 20)));
    writer.write(new Batch(0, 4, Events.mixed("acme", 0, 4)), null);
    writer.write(new Batch(4, 8, Events.mixed("acme", 4, 8)), null); // 8 rows: written now
    assertThat(client.log()).anyMatch(line -> line.startsWith("write"));
    writer.write(new Batch(8, 10, Events.mixed("acme", 8, 10)), null);
    writer.write(new Batch(12, 14, Events.mixed("acme", 12, 14)), null); // (10, 12] never cut

    assertThat(writer.prepareCommit())
        .extracting(DeltaCommittable::batchName)
        .containsExactly("(0, 8]", "(8, 10]", "(12, 14]");
  }

  @Test
  void aCommitUnitIsWrittenEarlyAtItsByteCap() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    long oneBatch = Events.mixed("acme", 0, 4).stream().mapToLong(e -> e.estimatedBytes()).sum();
    DeltaSinkWriter writer =
        new DeltaSinkWriter(
            client,
            Clock.systemUTC(),
            WriterSettings.defaults().withUnitLimits(new CommitUnitLimits(1_000, oneBatch + 1)));
    writer.write(new Batch(0, 4, Events.mixed("acme", 0, 4)), null);
    assertThat(client.log()).noneMatch(line -> line.startsWith("write"));
    writer.write(new Batch(4, 8, Events.mixed("acme", 4, 8)), null); // past the byte cap
    assertThat(client.log()).anyMatch(line -> line.startsWith("write"));
    writer.write(new Batch(8, 10, Events.mixed("acme", 8, 10)), null);

    assertThat(writer.prepareCommit())
        .extracting(DeltaCommittable::batchName)
        .containsExactly("(0, 8]", "(8, 10]");
  }

  @Test
  void dropsRowsAtOrBelowEachTablesVersionReadOnFirstSight() throws Exception {
    // bronze holds everything up to 6, silver only up to 4: a re-cut batch (2, 10] spans both.
    FakeDeltaTableClient client =
        new FakeDeltaTableClient().withTxnVersion(BRONZE, 6).withTxnVersion(SILVER, 4);
    DeltaSinkWriter writer = withoutGold(client);
    writer.write(new Batch(2, 10, Events.mixed("acme", 2, 10)), null);

    DeltaCommittable committable = writer.prepareCommit().get(0);
    TableCommit bronze = committable.tables().get(0);
    TableCommit silver = committable.tables().get(1);
    assertThat(bronze.rowCount()).isEqualTo(4); // 7..10
    assertThat(silver.rowCount()).isEqualTo(1); // 8 (materialize rows are 4 and 8)
    assertThat(client.log()).containsOnlyOnce("read " + BRONZE, "read " + SILVER);
    // Each commit names the first event it applies: the committer refuses it if the table has
    // reached that seq by then (docs/second-writer.md).
    assertThat(bronze.firstSeq()).isEqualTo(7);
    assertThat(silver.firstSeq()).isEqualTo(5); // the demote at 5, above silver's 4
  }

  @Test
  void eachGoldCommitNamesTheFirstEventOfItsOwnInput() throws Exception {
    TableId lineage = TableId.of("acme", TableKind.GOLD_LINEAGE);
    FakeDeltaTableClient client = new FakeDeltaTableClient().withTxnVersion(lineage, 30);
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    List<OutboxEvent> events =
        org.oml.lakewriter.delta.testing.GoldWorkload.events("acme", 0, 60);
    writer.write(new Batch(0, 60, events), null);

    List<TableCommit> tables = writer.prepareCommit().get(0).tables();
    long first = events.stream().mapToLong(e -> e.seq()).min().orElseThrow();
    assertThat(tables).filteredOn(t -> t.table().equals(BRONZE)).singleElement()
        .extracting(TableCommit::firstSeq).isEqualTo(first);
    assertThat(tables).filteredOn(t -> t.table().equals(lineage)).singleElement()
        .satisfies(t -> assertThat(t.firstSeq()).isGreaterThan(30).isLessThanOrEqualTo(60));
    assertThat(tables).allSatisfy(t -> assertThat(t.firstSeq()).isBetween(first, 60L));
  }

  @Test
  void batchWhoseRowsAllLandedCommitsNothingButStillCarriesItsBounds() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient().withTxnVersion(BRONZE, 20);
    DeltaSinkWriter writer = withoutGold(client);
    writer.write(new Batch(10, 13, List.of(Events.journal(11, "acme"))), null);
    writer.write(new Batch(13, 15, List.of()), null);

    assertThat(writer.prepareCommit()).containsExactly(new DeltaCommittable(10, 15, List.of()));
    assertThat(client.log()).noneMatch(line -> line.startsWith("write"));
  }

  @Test
  void withGoldOffNoGoldTableIsWritten() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    DeltaSinkWriter writer = withoutGold(client);
    writer.write(
        new Batch(0, 60, org.oml.lakewriter.delta.testing.GoldWorkload.events("acme", 0, 60)),
        null);
    assertThat(writer.prepareCommit().get(0).tables())
        .extracting(t -> t.table().kind().path())
        .isNotEmpty()
        .noneMatch(path -> path.startsWith("gold/"));
    assertThat(client.log()).noneMatch(line -> line.contains("/gold/"));
  }

  /** gold.enabled=false: the tables these tests seed are bronze and silver only. */
  private static DeltaSinkWriter withoutGold(FakeDeltaTableClient client) {
    return new DeltaSinkWriter(
        client, Clock.systemUTC(), WriterSettings.defaults().withGold(false));
  }

  @Test
  void refusesABatchOlderThanTheLastOne() throws Exception {
    DeltaSinkWriter writer = new DeltaSinkWriter(new FakeDeltaTableClient(), Clock.systemUTC());
    writer.write(new Batch(0, 10, List.of()), null);
    assertThatThrownBy(() -> writer.write(new Batch(5, 12, List.of()), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("seq order");
  }

  @Test
  void closesItsClient() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    new DeltaSinkWriter(client, Clock.systemUTC()).close();
    assertThat(client.isClosed()).isTrue();
  }
}
