package org.oml.lakewriter.gold;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;
import org.oml.lakewriter.verify.Finding;
import org.oml.lakewriter.verify.GoldCheck;
import org.oml.lakewriter.verify.GoldFold;

/**
 * {@code lakewriter maintain rebuild-gold --tenant T}: a tenant's three gold tables rebuilt from its
 * bronze alone. Gold is a pure function of the tenant's bronze rows in seq order ({@link
 * GoldFold}), so the rebuilt tables equal the streamed ones row for row: the consistency proof,
 * and the repair path when gold is lost or damaged (docs/gold.md).
 *
 * <p>Txn versions. Let {@code V} be bronze's txn version. The fold of bronze describes the lake
 * at {@code V}:
 *
 * <ul>
 *   <li>a gold table above {@code V} is refused ({@value #AHEAD}): the lake is mid-commit (gold
 *       committed a batch bronze has not), and run the writer to catch up first;
 *   <li>a gold table below {@code V}, or missing, is replaced with {@code txn(oml-lakewriter, V)}:
 *       the writer then skips every batch up to {@code V} for it, which the rebuilt content holds;
 *   <li>a gold table at {@code V} is replaced without a txn action (Kernel refuses one at the
 *       recorded version), its version staying {@code V}.
 * </ul>
 *
 * Each table is one Delta commit that removes every live file and adds the rebuilt ones ({@code
 * dataChange = true}: the content changes), through {@link DeltaTableClient#replaceContent}.
 */
public final class GoldRebuild {
  /** The named refusal when a gold table records a txn version above bronze's. */
  public static final String AHEAD = "GOLD_AHEAD_OF_BRONZE";

  /** A gold table above bronze's txn version: the lake is mid-commit. */
  public static final class AheadException extends RuntimeException {
    AheadException(String message) {
      super(message);
    }
  }

  /**
   * What a rebuild of one tenant would write, and how today's gold differs from it.
   *
   * @param bronzeTxn bronze's txn version {@code V}
   * @param bronzeRows how many bronze rows were folded
   * @param rows each gold table's rebuilt rows
   * @param current each gold table as it is (empty if missing)
   * @param findings today's gold against the fold, each table at its own txn version ({@link
   *     GoldCheck})
   */
  public record Plan(
      String tenant,
      long bronzeTxn,
      long bronzeRows,
      Map<TableKind, List<TableRow>> rows,
      Map<TableKind, Optional<TableContents>> current,
      List<Finding> findings) {
    public Plan {
      rows = Collections.unmodifiableMap(new EnumMap<>(rows));
      current = Collections.unmodifiableMap(new EnumMap<>(current));
      findings = List.copyOf(findings);
    }
  }

  /** What one table's replacement committed. */
  public record Replaced(TableId table, int rows, int files, long tableVersion, long txnVersion,
      boolean txnAction) {}

  private GoldRebuild() {}

  /**
   * Folds the tenant's bronze and compares today's gold with it. Gold is read before bronze, so
   * that a writer committing meanwhile (bronze commits first in a batch) cannot make gold look
   * ahead.
   *
   * @throws AheadException if a gold table records a txn version above bronze's
   * @throws IllegalArgumentException if the tenant has no bronze table
   */
  public static Plan plan(LakeReader lake, String tenant) throws IOException {
    Map<TableKind, Optional<TableContents>> current = new EnumMap<>(TableKind.class);
    for (TableKind kind : GoldFold.goldKinds()) {
      current.put(kind, lake.contents(TableId.of(tenant, kind)));
    }
    TableId bronzeTable = TableId.of(tenant, TableKind.BRONZE_JOURNAL_EVENTS);
    TableContents bronze =
        lake.contents(bronzeTable)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no table "
                            + bronzeTable
                            + " in the lake: gold is rebuilt from the tenant's bronze; check"
                            + " --tenant and lake.root"));
    long v = bronze.txnVersion();
    for (TableKind kind : GoldFold.goldKinds()) {
      long goldTxn = current.get(kind).map(TableContents::txnVersion).orElse(-1L);
      if (goldTxn > v) {
        throw new AheadException(
            AHEAD
                + ": "
                + TableId.of(tenant, kind)
                + " records txn version "
                + goldTxn
                + " but "
                + bronzeTable
                + " only "
                + v
                + ": the lake is mid-commit (a batch reached gold and not bronze). Run the"
                + " writer (`lakewriter run`) until it catches up, stop it, and rebuild again");
      }
    }
    List<GoldFold.Event> events = new ArrayList<>(bronze.rows().size());
    for (Map<String, Object> row : bronze.rows()) {
      events.add(GoldFold.Event.fromRow(row));
    }
    List<Finding> findings = GoldCheck.check(tenant, events, current, v);
    GoldFold fold = new GoldFold();
    events.forEach(fold::apply);
    Map<TableKind, List<TableRow>> rows = new LinkedHashMap<>();
    for (TableKind kind : GoldFold.goldKinds()) {
      rows.put(kind, fold.rows(kind));
    }
    return new Plan(tenant, v, events.size(), rows, current, findings);
  }

  /**
   * Replaces each gold table's content with the plan's rows, one commit per table: with {@code
   * txn(oml-lakewriter, V)} for a table below {@code V} or missing, without a txn action for one
   * at {@code V}. The caller makes sure no writer is live.
   */
  public static List<Replaced> apply(DeltaTableClient client, Plan plan) throws IOException {
    List<Replaced> replaced = new ArrayList<>();
    for (TableKind kind : GoldFold.goldKinds()) {
      TableId table = TableId.of(plan.tenant(), kind);
      List<TableRow> rows = plan.rows().get(kind);
      long before = client.readTxnVersion(table);
      // Writing creates a missing table; no row, no file (the commit then only removes).
      List<DataFile> files = client.writeDataFiles(table, rows);
      long version = client.replaceContent(table, plan.bronzeTxn(), files);
      replaced.add(
          new Replaced(table, rows.size(), files.size(), version, plan.bronzeTxn(),
              before < plan.bronzeTxn()));
    }
    return replaced;
  }
}
