package org.oml.lakewriter.doctor;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the doctor read, as plain values: PostgreSQL's side by {@link PostgresProbe}, the lake's by
 * {@link LakeProbe}. {@link DoctorRules} decides on these alone, so every decision is unit-tested
 * without a database or a lake. Ages are in seconds, measured by PostgreSQL's {@code now()}.
 */
public final class Facts {
  private Facts() {}

  /**
   * The writer's replication slot; {@code exists} false and the rest null if there is none.
   *
   * @param retainedBytes {@code pg_current_wal_lsn() - restart_lsn}: WAL kept for the slot
   * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}
   * @param maxSlotWalKeepSize the setting as PostgreSQL shows it ({@code -1}: unlimited)
   * @param currentDatabase the database the writer connects to; slot names are cluster-wide, so
   *     a slot of that name may belong to another one
   */
  public record Slot(
      String name,
      boolean exists,
      String database,
      String plugin,
      boolean active,
      Integer activePid,
      Long retainedBytes,
      String walStatus,
      Long safeWalSizeBytes,
      String maxSlotWalKeepSize,
      String currentDatabase) {
    public static Slot missing(String name, String maxSlotWalKeepSize, String currentDatabase) {
      return new Slot(
          name, false, null, null, false, null, null, null, null, maxSlotWalKeepSize,
          currentDatabase);
    }
  }

  /**
   * The publication: whether it exists, whether it publishes inserts and updates, whether it is
   * {@code FOR ALL TABLES}, and the tables it covers as {@code schema.table}.
   */
  public record Publication(
      String name,
      boolean exists,
      boolean insert,
      boolean update,
      boolean allTables,
      Set<String> tables,
      Set<String> required) {}

  /**
   * The writer's horizon row; {@code exists} false if the job never ticked. {@code tickAgeS} is
   * the age of {@code ticked_at}.
   */
  public record Horizon(boolean exists, long stableSeq, Long pendingSeq, Double tickAgeS) {}

  /**
   * One open transaction that holds the horizon (see {@link HorizonHolders}): {@code holder} is
   * {@code transaction} (with a pid) or {@code prepared} (with a gid).
   */
  public record Holder(
      String holder,
      Integer pid,
      String gid,
      String xid,
      String database,
      String owner,
      String since,
      long ageS,
      String state,
      String query) {}

  /**
   * The committed frontier cache and the rows above it: {@code frontier} null when no row exists;
   * {@code rowsAbove} counted up to a bound ({@code rowsAboveCapped} when more exist); {@code
   * rowsAboveUnderHorizon} how many of those the horizon already vouches for.
   */
  public record Frontier(
      Long frontier,
      Double ageS,
      Instant updatedAt,
      long rowsAbove,
      boolean rowsAboveCapped,
      long rowsAboveUnderHorizon,
      long horizon) {}

  /**
   * The lake's txn versions against the frontier cache: {@code lastCommittedSeq} is the outbox's
   * highest seq at or below the frontier and {@code lastCommittedTenant} its tenant id (both null
   * if there is none); {@code tenantTxn} that tenant's highest txn version over its bronze and
   * dead-letter tables and the invalid-tenant dead letters ({@code -1}: none); {@code
   * tenantQuarantined} whether that tenant is in quarantine, where it keeps its own frontier while
   * the global one moves on (docs/quarantine.md).
   */
  public record FrontierVsLake(
      long frontier,
      Double frontierAgeS,
      String lakeRoot,
      int lakeTables,
      long lakeMaxTxn,
      Long lastCommittedSeq,
      String lastCommittedTenant,
      long tenantTxn,
      boolean tenantQuarantined) {}

  /** One lake table's log facts, for the checkpoint and small-file checks. */
  public record LakeTable(
      String table,
      long tableVersion,
      Long checkpointVersion,
      long commitsSinceCheckpoint,
      long checkpointInterval,
      long fileCount,
      long averageFileBytes) {}

  /** The journal's dead letters still waiting for a repair ({@code status = 'dead'}). */
  public record DeadLetters(
      long waiting,
      Map<String, Long> byErrorClass,
      Map<String, Long> byTenant,
      Double oldestAgeS) {}

  /**
   * The outbox's retention against the frontier: its lowest seq (null when empty), the sequence's
   * last handed-out value.
   */
  public record Retention(long frontier, Long minSeq, long sequenceLastValue) {}

  /** The lake tables, in path order. */
  public record Lake(String lakeRoot, List<LakeTable> tables) {}

  /**
   * The doctor's own connection to PostgreSQL, as the configured role (issue 16): whether it is
   * encrypted ({@code pg_stat_ssl}), with which {@code sslmode} from {@code postgres.url} (null:
   * unset, pgjdbc's {@code prefer}), to which host, and what the role lacks of the writer's grants
   * ({@code WriterGrants.missing}).
   */
  public record Connection(
      String user,
      String host,
      String sslmode,
      boolean ssl,
      String tlsVersion,
      boolean clientCertificate,
      List<String> missingGrants) {}
}
