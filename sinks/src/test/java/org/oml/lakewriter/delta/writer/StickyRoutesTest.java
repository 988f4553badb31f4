package org.oml.lakewriter.delta.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.committer.DeltaCommittable;
import org.oml.lakewriter.delta.committer.TableCommit;
import org.oml.lakewriter.delta.testing.Events;
import org.oml.lakewriter.delta.testing.FakeDeltaTableClient;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;

/**
 * Silver rule 5 on a replay that decides a route differently than the run that committed it (a
 * changed {@code body.max-bytes}, a retry budget spent or not): the lake's decision stands.
 */
class StickyRoutesTest {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final TableId SILVER = TableId.of("acme", TableKind.SILVER_MEMORIES);
  private static final TableId DEAD = TableId.of("acme", TableKind.DEAD_LETTER);

  @Test
  void aSeqTheDeadLetterTableHoldsNeverLandsInBronzeOrSilverOnAReplay() throws Exception {
    // The first run dead-lettered seq 5 (too large then) and committed dead_letter up to 8; bronze
    // had only reached 3 when it stopped. The replay now finds 5 valid.
    FakeDeltaTableClient client =
        new FakeDeltaTableClient()
            .withRows(DEAD, 8, List.of(deadLetter(5)))
            .withTxnVersion(BRONZE, 3);
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    writer.write(
        new Batch(
            0,
            10,
            List.of(
                Events.journal(4, "acme"),
                Events.promote(5, "acme", "big", 1, "body-5"),
                Events.retract(6, "acme", EventKind.DEMOTE, "big", 1),
                Events.promote(7, "acme", "small", 1, "body-7"))),
        null);

    DeltaCommittable committable = writer.prepareCommit().get(0);
    assertThat(seqsOf(client, committable, BRONZE)).containsExactly(4L, 6L, 7L);
    assertThat(seqsOf(client, committable, SILVER)).containsExactly(7L);
    assertThat(committable.tables()).extracting(TableCommit::table).doesNotContain(DEAD);
  }

  @Test
  void aDeadLetteredPromotionNeverReachesALaggingSilverTableOnAReplay() throws Exception {
    // Bronze and dead_letter both committed up to 8 (other rows of the tenant in that batch), but
    // silver's last commit was at 3: its own txn version does not cover seq 5.
    FakeDeltaTableClient client =
        new FakeDeltaTableClient()
            .withRows(DEAD, 8, List.of(deadLetter(5)))
            .withTxnVersion(BRONZE, 8)
            .withTxnVersion(SILVER, 3);
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    writer.write(
        new Batch(0, 10, List.of(Events.promote(5, "acme", "big", 1, "body-5"))), null);

    assertThat(writer.prepareCommit().get(0).tables()).isEmpty();
  }

  @Test
  void aSeqBronzeHoldsIsNeverDeadLetteredOnAReplay() throws Exception {
    // The first run put seq 5 in bronze and committed bronze up to 8, dead_letter only up to 2.
    // The replay now finds 5 too large (body.max-bytes lowered).
    FakeDeltaTableClient client =
        new FakeDeltaTableClient()
            .withRows(BRONZE, 8, List.of(bronze(5)))
            .withTxnVersion(DEAD, 2);
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    OutboxEvent tooLarge =
        Events.promote(5, "acme", "big", 1, "body-5").toBuilder()
            .error(new RowError(ErrorClass.BODY_TOO_LARGE, "body of 6 bytes is over 4"))
            .build();
    OutboxEvent neverLanded =
        Events.journal(6, "acme").toBuilder()
            .error(new RowError(ErrorClass.MISSING_FIELD, "no envelope"))
            .build();
    writer.write(new Batch(0, 10, List.of(tooLarge, neverLanded)), null);

    DeltaCommittable committable = writer.prepareCommit().get(0);
    // 6 is a dead letter bronze does not hold: it is written; 5 stays in bronze only.
    assertThat(seqsOf(client, committable, DEAD)).containsExactly(6L);
    assertThat(committable.tables()).extracting(TableCommit::table).containsExactly(DEAD);
  }

  /** The tenants of a unit are checked in parallel (stop 53), each against its own tables. */
  @Test
  void eachTenantsReplayIsJudgedByItsOwnTablesWhenTenantsAreCheckedInParallel() throws Exception {
    FakeDeltaTableClient client = new FakeDeltaTableClient();
    List<OutboxEvent> events = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String tenant = "t" + i;
      long base = 10L * i;
      TableId dead = TableId.of(tenant, TableKind.DEAD_LETTER);
      client
          .withRows(dead, base + 8, List.of(deadLetter(base + 5)))
          .withTxnVersion(TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS), base + 3);
      events.add(Events.journal(base + 4, tenant));
      events.add(Events.promote(base + 5, tenant, "big", 1, "body"));
      events.add(Events.promote(base + 7, tenant, "small", 1, "body"));
    }
    events.sort(java.util.Comparator.comparingLong(OutboxEvent::seq));
    DeltaSinkWriter writer =
        new DeltaSinkWriter(
            client, Clock.systemUTC(), WriterSettings.defaults().withWriteParallelism(4));
    writer.write(new Batch(0, 60, events), null);

    DeltaCommittable committable = writer.prepareCommit().get(0);
    for (int i = 0; i < 6; i++) {
      long base = 10L * i;
      TableId bronze = TableId.of("t" + i, TableKind.BRONZE_JOURNAL_EVENTS);
      TableId silver = TableId.of("t" + i, TableKind.SILVER_MEMORIES);
      assertThat(seqsOf(client, committable, bronze)).containsExactly(base + 4, base + 7);
      assertThat(seqsOf(client, committable, silver)).containsExactly(base + 7);
    }
  }

  @Test
  void theSteadyStateLooksNothingUp() throws Exception {
    FakeDeltaTableClient client =
        new FakeDeltaTableClient()
            .withRows(DEAD, 8, List.of(deadLetter(5)))
            .withRows(BRONZE, 9, List.of(bronze(9)));
    DeltaSinkWriter writer = new DeltaSinkWriter(client, Clock.systemUTC());
    writer.write(new Batch(9, 20, Events.mixed("acme", 9, 20)), null);
    writer.write(new Batch(20, 30, Events.mixed("acme", 20, 30)), null);

    assertThat(writer.prepareCommit()).hasSize(1);
    assertThat(client.log()).noneMatch(l -> l.startsWith("seqs "));
  }

  private static List<Long> seqsOf(
      FakeDeltaTableClient client, DeltaCommittable committable, TableId table) throws Exception {
    TableCommit commit =
        committable.tables().stream().filter(t -> t.table().equals(table)).findFirst().orElse(null);
    if (commit == null) {
      return List.of();
    }
    return commit.files().stream()
        .flatMap(f -> client.readDataFile(table, f).stream())
        .map(TableRow::seq)
        .sorted()
        .toList();
  }

  private static TableRow deadLetter(long seq) {
    return TableRow.builder(LakeSchemas.DEAD_LETTER, seq)
        .set("tenant_id", "acme")
        .set("error_class", ErrorClass.BODY_TOO_LARGE.name())
        .build();
  }

  private static TableRow bronze(long seq) {
    return TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, seq)
        .set("tenant_id", "acme")
        .set("kind", "materialize")
        .build();
  }
}
