package org.oml.lakewriter.delta.writer;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.Retraction;
import org.oml.lakewriter.delta.gold.GoldEvent;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Turns a batch into one {@link TableWrite} per table, sorted by table path, each in seq order.
 * Every event lands in exactly one of bronze or a dead-letter table, and a tenant's rows only in
 * tables under that tenant's prefix (or under {@code _invalid}, when the tenant id is not one).
 *
 * <p>A retraction routed to bronze is also a MERGE into its tenant's {@code silver/memories}: the
 * silver write carries it beside the batch's promotions, so that both land in one commit.
 *
 * <p>Every event routed to bronze also feeds its tenant's gold tables (unless gold is off): their
 * writes carry the bronze rows that can change them, in seq order (see {@link #addGold}).
 */
public final class BatchPlanner {
  private final EventRouter router;
  private final RowFactory rows;
  private final boolean gold;

  public BatchPlanner(Clock clock) {
    this(clock, true);
  }

  /**
   * @param gold whether the tenants' gold tables are written ({@code gold.enabled}): each gets
   *     the bronze rows that feed it, which {@code GoldMerge} folds into its rows
   */
  public BatchPlanner(Clock clock, boolean gold) {
    this.router = new EventRouter();
    this.rows = new RowFactory(clock);
    this.gold = gold;
  }

  public SortedMap<TableId, TableWrite> plan(Batch batch) {
    // Hash maps while rows are routed (one look-up per row); sorted once per table below.
    Map<TableId, List<TableRow>> byTable = new HashMap<>();
    Map<TableId, List<Retraction>> retractions = new HashMap<>();
    for (OutboxEvent event : batch.events()) {
      Route route = router.route(event);
      if (route.isDeadLetter()) {
        add(byTable, route.deadLetterTable(), rows.deadLetter(event, route.deadLetter()));
        continue;
      }
      TableRow bronze = rows.bronze(event);
      add(byTable, TableId.of(route.tenantPrefix(), TableKind.BRONZE_JOURNAL_EVENTS), bronze);
      if (gold) {
        addGold(byTable, route.tenantPrefix(), event, bronze);
      }
      TableId silver = TableId.of(route.tenantPrefix(), TableKind.SILVER_MEMORIES);
      if (route.toSilver()) {
        add(byTable, silver, rows.silver(event));
      }
      Optional<Retraction> retraction = Retraction.of(event);
      if (retraction.isPresent()) {
        retractions.computeIfAbsent(silver, t -> new ArrayList<>()).add(retraction.get());
      }
    }
    SortedMap<TableId, TableWrite> writes = new TreeMap<>();
    TreeSet<TableId> tables = new TreeSet<>(byTable.keySet());
    tables.addAll(retractions.keySet());
    for (TableId table : tables) {
      writes.put(
          table,
          new TableWrite(
              table,
              byTable.getOrDefault(table, List.of()),
              retractions.getOrDefault(table, List.of())));
    }
    return writes;
  }

  /**
   * Gold is a function of the tenant's bronze rows in seq order: each gold table gets, as its
   * "appends", the bronze rows that can change it (so that the writer's filters by txn version and
   * sticky route apply to them as to any table); {@code GoldMerge} turns them into gold rows.
   */
  private static void addGold(
      Map<TableId, List<TableRow>> byTable, String tenant, OutboxEvent event, TableRow bronze) {
    EventKind kind = event.eventKind().orElseThrow();
    if (GoldEvent.feedsLineage(kind, event.artifactId(), event.artifactVersion())) {
      add(byTable, TableId.of(tenant, TableKind.GOLD_LINEAGE), bronze);
    }
    if (kind.isWorkareaValidation()) {
      add(byTable, TableId.of(tenant, TableKind.GOLD_WORKAREAS), bronze);
    }
    if (GoldEvent.feedsMemories(kind)) {
      add(byTable, TableId.of(tenant, TableKind.GOLD_WORKAREA_MEMORIES), bronze);
    }
  }

  private static void add(Map<TableId, List<TableRow>> byTable, TableId table, TableRow row) {
    byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
  }
}
