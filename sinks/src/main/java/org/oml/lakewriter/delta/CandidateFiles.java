package org.oml.lakewriter.delta;

import java.util.List;

/**
 * The live data files of one table snapshot whose statistics can hold at least one of a set of
 * keys, and that snapshot's txn version for {@code oml-lakewriter} ({@link
 * DeltaTableClient#NO_VERSION} if none, or if the table does not exist). Statistics can only rule
 * files out: a candidate may still hold none of the keys.
 */
public record CandidateFiles(long txnVersion, List<DataFile> files) {
  public CandidateFiles {
    files = List.copyOf(files);
  }
}
