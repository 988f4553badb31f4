package org.oml.lakewriter.identity;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a job's state belongs to: the PostgreSQL cluster (its system identifier, from {@code
 * pg_control_system()}) and database, the replication slot, the writer id and the lake root.
 *
 * <p>Invariant: state recorded under one identity is never restored under another. The cut's
 * frontier, its buffered rows and the slot's confirmed LSN only make sense together with the
 * database they were read from and the lake they were written to; restored elsewhere, the per-table
 * version filter silently drops rows that the other lake never received.
 */
public record JobIdentity(
    String systemIdentifier, String database, String slot, String writerId, String lakeRoot)
    implements Serializable {
  public JobIdentity {
    Objects.requireNonNull(systemIdentifier, "systemIdentifier");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(writerId, "writerId");
    Objects.requireNonNull(lakeRoot, "lakeRoot");
  }

  /** Each field that differs, as {@code "name: this one vs that one"}; empty when they match. */
  public List<String> differences(JobIdentity other) {
    List<String> d = new ArrayList<>();
    if (!systemIdentifier.equals(other.systemIdentifier) || !database.equals(other.database)) {
      d.add("database: " + describeDatabase() + " vs " + other.describeDatabase());
    }
    if (!slot.equals(other.slot)) {
      d.add("postgres.slot: " + slot + " vs " + other.slot);
    }
    if (!writerId.equals(other.writerId)) {
      d.add("writer.id: " + writerId + " vs " + other.writerId);
    }
    if (!lakeRoot.equals(other.lakeRoot)) {
      d.add("lake.root: " + lakeRoot + " vs " + other.lakeRoot);
    }
    return d;
  }

  private String describeDatabase() {
    return "'" + database + "' of cluster " + systemIdentifier;
  }

  @Override
  public String toString() {
    return "JobIdentity{database " + describeDatabase() + ", slot " + slot + ", writer "
        + writerId + ", lake " + lakeRoot + "}";
  }
}
