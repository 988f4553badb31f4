package org.oml.lakewriter.delta.writer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.merge.Retraction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the lake's earlier routing of a replayed event (silver rule 5): a seq that a tenant's
 * {@code dead_letter} table holds stays a dead letter (it is not written to bronze, nor to silver,
 * neither as a promotion nor as a retraction), and a seq that its bronze table holds is not
 * dead-lettered again.
 *
 * <p>Why: routing can depend on time and configuration (an exhausted transient retry budget, {@code
 * body.max-bytes}), so a replay may decide differently. Bronze and {@code dead_letter} keep
 * separate txn versions, and each only drops the rows at or below its own ({@link TableVersions}),
 * so without this a stateless start or an older checkpoint could land one seq in both.
 *
 * <p>Cost: a replayed event can only be ambiguous when its seq is above its own table's txn version
 * and at or below the OTHER table's (as read on first sight, i.e. what earlier runs committed; a
 * silver event is judged by silver's own txn version, which can lag bronze's);
 * only those seqs are looked up ({@link DeltaTableClient#seqsHeld}: statistics-pruned by seq, the
 * {@code seq} column only). A batch cut after the start is above both versions, so in the steady
 * state nothing is read. The invalid-tenant dead letters are decided by the tenant id alone and
 * need no check.
 */
final class StickyRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(StickyRoutes.class);

  private static final List<TableKind> GOLD =
      List.of(TableKind.GOLD_LINEAGE, TableKind.GOLD_WORKAREA_MEMORIES, TableKind.GOLD_WORKAREAS);

  private final DeltaTableClient client;
  private final TableVersions versions;

  StickyRoutes(DeltaTableClient client, TableVersions versions) {
    this.client = client;
    this.versions = versions;
  }

  /**
   * The batch's writes with every event that an earlier commit routed elsewhere taken out. The
   * tenants are checked on {@code tenants}' threads: the first unit after a start reads the txn
   * version of every table it touches, one snapshot load each (stop 53: 12 s on the task thread for
   * 1,536 tables of a local lake; on object storage each is a LIST).
   */
  SortedMap<TableId, TableWrite> apply(
      String batch, SortedMap<TableId, TableWrite> writes, TenantPool tenants) throws IOException {
    Set<String> prefixes = new TreeSet<>();
    for (TableId table : writes.keySet()) {
      if (!table.prefix().equals(TableId.INVALID_TENANT_PREFIX)) {
        prefixes.add(table.prefix());
      }
    }
    List<TenantPool.Task<Map<TableId, Set<Long>>>> tasks = new ArrayList<>(prefixes.size());
    for (String tenant : prefixes) {
      tasks.add(() -> drops(batch, writes, tenant));
    }
    SortedMap<TableId, TableWrite> out = new TreeMap<>(writes);
    for (Map<TableId, Set<Long>> drops : tenants.runAll(tasks)) {
      drops.forEach((table, seqs) -> drop(out, table, seqs));
    }
    return out;
  }

  /** The seqs to take out of each of one tenant's tables. */
  private Map<TableId, Set<Long>> drops(
      String batch, SortedMap<TableId, TableWrite> writes, String tenant) throws IOException {
    TableId bronze = TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS);
    TableId deadLetter = TableId.of(tenant, TableKind.DEAD_LETTER);
    TableId silver = TableId.of(tenant, TableKind.SILVER_MEMORIES);
    Map<TableId, Set<Long>> drops = new HashMap<>();
    // Dead letters that bronze already holds: the event landed in bronze; keep it there only.
    drops.put(
        deadLetter,
        held(
            batch,
            deadLetter.toString(),
            bronze,
            ambiguous(writes.get(deadLetter), deadLetter, bronze)));
    // Bronze and silver events that dead_letter already holds: they stay dead letters. Silver has
    // a txn version of its own, so its events are checked against it, not bronze's.
    Set<Long> candidates = new TreeSet<>(ambiguous(writes.get(bronze), bronze, deadLetter));
    candidates.addAll(ambiguous(writes.get(silver), silver, deadLetter));
    // Gold tables, fed by bronze rows, have txn versions of their own too.
    for (TableKind gold : GOLD) {
      TableId table = TableId.of(tenant, gold);
      candidates.addAll(ambiguous(writes.get(table), table, deadLetter));
    }
    Set<Long> inDeadLetter = held(batch, bronze + " and " + silver, deadLetter, candidates);
    drops.put(bronze, inDeadLetter);
    drops.put(silver, inDeadLetter);
    for (TableKind gold : GOLD) {
      drops.put(TableId.of(tenant, gold), inDeadLetter);
    }
    return drops;
  }

  /**
   * The seqs of {@code write} (routed to {@code own}) that a replay can have routed elsewhere
   * before: above {@code own}'s txn version (else {@code own} drops them anyway) and at or below
   * {@code other}'s (else {@code other} cannot hold them).
   */
  private List<Long> ambiguous(TableWrite write, TableId own, TableId other) throws IOException {
    if (write == null || write.isEmpty()) {
      return List.of();
    }
    long ownVersion = versions.versionOf(own);
    long otherVersion = versions.versionOf(other);
    List<Long> seqs = new ArrayList<>();
    for (TableRow row : write.appends()) {
      if (row.seq() > ownVersion && row.seq() <= otherVersion) {
        seqs.add(row.seq());
      }
    }
    for (Retraction retraction : write.retractions()) {
      if (retraction.seq() > ownVersion && retraction.seq() <= otherVersion) {
        seqs.add(retraction.seq());
      }
    }
    return seqs;
  }

  /** Those of the ambiguous seqs (routed to {@code routedTo} now) that {@code other} holds. */
  private Set<Long> held(String batch, String routedTo, TableId other, Collection<Long> ambiguous)
      throws IOException {
    if (ambiguous.isEmpty()) {
      return Set.of();
    }
    Set<Long> held = client.seqsHeld(other, ambiguous);
    LOG.info(
        "batch {}: {} events routed to {} are at or below {}'s txn version (a replay); {} of them"
            + " are in {} already",
        batch,
        ambiguous.size(),
        routedTo,
        other,
        held.size(),
        other);
    if (!held.isEmpty()) {
      LOG.warn(
          "finding {}: batch {}: seqs {} are routed to {} now, but {} holds them from an earlier"
              + " run (the route depends on time or configuration: a retry budget, body.max-bytes);"
              + " they stay in {} only",
          other.kind() == TableKind.DEAD_LETTER ? "REPLAY_KEPT_DEAD_LETTER" : "REPLAY_KEPT_BRONZE",
          batch,
          new TreeSet<>(held),
          routedTo,
          other,
          other);
    }
    return held;
  }

  private static void drop(Map<TableId, TableWrite> writes, TableId table, Set<Long> seqs) {
    TableWrite write = writes.get(table);
    if (write != null && !seqs.isEmpty()) {
      writes.put(table, write.without(seqs));
    }
  }
}
