package org.oml.lakewriter.delta;

import java.util.List;

/**
 * The copy-on-write part of one table commit: the live files it replaces (their rewritten copies
 * are among the commit's added files), and the table's txn version the rewrite was planned against.
 *
 * <p>The plan is only valid on exactly that table state: the writer read the replaced files (and
 * found no other file holding a merged key) in a table whose txn version was {@code
 * baseTxnVersion}, counting its own batches that were written but not yet committed. So a commit
 * that carries a rewrite is made only on a table whose txn version is still {@code baseTxnVersion}
 * and in which every replaced file is still live; anything else fails with a precise reason,
 * because committing it would lose a retraction or duplicate rows.
 *
 * <p>{@code removes} may be empty: a batch whose retractions all hit rows of the same batch, found
 * no row, or changed nothing still checks that its decisions were made on the current table.
 */
public record Rewrite(long baseTxnVersion, List<DataFile> removes) {
  public Rewrite {
    removes = List.copyOf(removes);
  }

  @Override
  public String toString() {
    return "Rewrite{base txn " + baseTxnVersion + ", " + removes.size() + " files replaced}";
  }
}
