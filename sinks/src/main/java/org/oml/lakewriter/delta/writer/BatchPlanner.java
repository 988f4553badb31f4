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
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.OutboxEvent;

/**
 * Turns a batch into one {@link TableWrite} per table, sorted by table path, each in seq order.
 * Every event lands in exactly one of bronze or a dead-letter table, and a tenant's rows only in
 * tables under that tenant's prefix (or under {@code _invalid}, when the tenant id is not one).
 *
 * <p>A retraction routed to bronze is also a MERGE into its tenant's {@code silver/memories}: the
 * silver write carries it beside the batch's promotions, so that both land in one commit.
 */
public final class BatchPlanner {
  private final EventRouter router;
  private final RowFactory rows;

  public BatchPlanner(Clock clock) {
    this.router = new EventRouter();
    this.rows = new RowFactory(clock);
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
      add(
          byTable,
          TableId.of(route.tenantPrefix(), TableKind.BRONZE_JOURNAL_EVENTS),
          rows.bronze(event));
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

  private static void add(Map<TableId, List<TableRow>> byTable, TableId table, TableRow row) {
    byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
  }
}
