package org.oml.lakewriter.doctor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.TableKind;

/**
 * The doctor's decisions, one method per check, on {@link Facts} alone: no JDBC, no lake, no
 * clock. docs/doctor.md lists the same rules in prose; keep the two in step.
 */
public final class DoctorRules {
  public static final String WAL_LEVEL = "wal_level";
  public static final String SLOT = "slot";
  public static final String SLOT_RETAINED_WAL = "slot_retained_wal";
  public static final String PUBLICATION = "publication";
  public static final String HORIZON_TICKING = "horizon_ticking";
  public static final String HORIZON_HOLDERS = "horizon_holders";
  public static final String FRONTIER_STALE = "frontier_stale";
  public static final String FRONTIER_CACHE = "frontier_cache";
  public static final String DELTA_CHECKPOINT = "delta_checkpoint";
  public static final String SMALL_FILES = "small_files";
  public static final String DEAD_LETTERS = "dead_letters";
  public static final String OUTBOX_RETENTION = "outbox_retention";
  public static final String POSTGRES_TLS = "postgres_tls";
  public static final String WRITER_GRANTS = "writer_grants";

  /** Every check, in the order the doctor runs and prints them. */
  public static final List<String> ALL =
      List.of(
          WAL_LEVEL,
          SLOT,
          SLOT_RETAINED_WAL,
          PUBLICATION,
          HORIZON_TICKING,
          HORIZON_HOLDERS,
          FRONTIER_STALE,
          FRONTIER_CACHE,
          DELTA_CHECKPOINT,
          SMALL_FILES,
          DEAD_LETTERS,
          OUTBOX_RETENTION,
          POSTGRES_TLS,
          WRITER_GRANTS);

  private final DoctorThresholds limits;

  public DoctorRules(DoctorThresholds limits) {
    this.limits = limits;
  }

  public Check walLevel(String walLevel) {
    Map<String, Object> d = details("wal_level", walLevel);
    if ("logical".equals(walLevel)) {
      return Check.ok(WAL_LEVEL, "wal_level is logical", d);
    }
    return Check.fail(
        WAL_LEVEL,
        "wal_level is '" + walLevel + "': logical decoding (the CDC source) needs 'logical'",
        "ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL",
        d);
  }

  public Check slot(Facts.Slot s) {
    Map<String, Object> d = details("slot", s.name(), "exists", s.exists());
    if (!s.exists()) {
      return Check.fail(
          SLOT,
          "replication slot " + s.name() + " does not exist",
          "run `lakewriter init-db` (or `run`, whose preflight creates it); if a job had been"
              + " running on it, the slot was dropped and a restore stops with SLOT_LOST: see"
              + " docs/doctor.md",
          d);
    }
    d.put("database", s.database());
    d.put("plugin", s.plugin());
    d.put("active", s.active());
    d.put("active_pid", s.activePid());
    if (s.currentDatabase() != null && !s.currentDatabase().equals(s.database())) {
      return Check.fail(
          SLOT,
          "slot " + s.name() + " belongs to database " + s.database() + ", not to the writer's "
              + s.currentDatabase() + " (slot names are cluster-wide): the job cannot use it"
              + " (SLOT_IN_OTHER_DATABASE)",
          "give this writer its own postgres.slot, or drop the other database's slot if it is"
              + " abandoned",
          d);
    }
    if (!"pgoutput".equals(s.plugin())) {
      return Check.fail(
          SLOT,
          "slot " + s.name() + " uses plugin " + s.plugin() + ", the job decodes pgoutput",
          "drop the slot and let `lakewriter init-db` create it with pgoutput",
          d);
    }
    if (!s.active()) {
      return Check.warn(
          SLOT,
          "slot " + s.name() + " (database " + s.database() + ") is inactive: no job reads it,"
              + " the lake does not move and WAL piles up for it",
          "start the job (`lakewriter run`, or resume it on the cluster); drop the slot only if"
              + " this writer is retired for good",
          d);
    }
    return Check.ok(
        SLOT,
        "slot " + s.name() + " is active (walsender pid " + s.activePid() + ")",
        d);
  }

  public Check slotRetainedWal(Facts.Slot s) {
    Map<String, Object> d =
        details("slot", s.name(), "max_slot_wal_keep_size", s.maxSlotWalKeepSize());
    if (!s.exists()) {
      return Check.fail(
          SLOT_RETAINED_WAL,
          "not checked: slot " + s.name() + " does not exist",
          "see the slot check",
          d);
    }
    d.put("retained_bytes", s.retainedBytes());
    d.put("wal_status", s.walStatus());
    d.put("safe_wal_size_bytes", s.safeWalSizeBytes());
    boolean unlimited = "-1".equals(s.maxSlotWalKeepSize());
    String keep =
        "max_slot_wal_keep_size "
            + (unlimited
                ? "-1 (unlimited: an abandoned slot can fill the disk)"
                : s.maxSlotWalKeepSize());
    String retained =
        "retains " + bytes(s.retainedBytes()) + ", wal_status " + s.walStatus() + ", " + keep;
    if ("lost".equals(s.walStatus())) {
      return Check.fail(
          SLOT_RETAINED_WAL,
          "slot " + s.name() + " lost WAL it still needed (wal_status lost): rows after its"
              + " position are gone from the stream; run refuses to start (SLOT_INVALIDATED)",
          "start with `lakewriter run --accept-lost-slot`: it drops the slot and creates a new one (the completeness check"
              + " refetches from the outbox what the stream lost, while the outbox still holds it),"
              + " then `lakewriter verify`; see docs/doctor.md",
          d);
    }
    if ("unreserved".equals(s.walStatus())) {
      return Check.fail(
          SLOT_RETAINED_WAL,
          "slot " + s.name() + " " + retained + ": the next checkpoint removes WAL it needs",
          "start the job now so the slot advances, or raise max_slot_wal_keep_size",
          d);
    }
    if ("extended".equals(s.walStatus())
        || (s.retainedBytes() != null && s.retainedBytes() > limits.maxRetainedWalBytes())) {
      d.put("max_retained_bytes", limits.maxRetainedWalBytes());
      return Check.warn(
          SLOT_RETAINED_WAL,
          "slot " + s.name() + " " + retained + " (limit "
              + bytes(limits.maxRetainedWalBytes()) + ")",
          "the slot advances as the job commits: start or unblock the job (see horizon_holders,"
              + " frontier_stale); bound the risk with max_slot_wal_keep_size",
          d);
    }
    return Check.ok(SLOT_RETAINED_WAL, "slot " + s.name() + " " + retained, d);
  }

  public Check publication(Facts.Publication p) {
    Map<String, Object> d = details("publication", p.name(), "exists", p.exists());
    if (!p.exists()) {
      return Check.fail(
          PUBLICATION,
          "publication " + p.name() + " does not exist",
          "run `lakewriter init-db` (CREATE PUBLICATION " + p.name() + " FOR TABLE "
              + String.join(", ", p.required()) + ")",
          d);
    }
    Set<String> missing = new TreeSet<>(p.required());
    missing.removeAll(p.tables());
    Set<String> extra = new TreeSet<>(p.tables());
    extra.removeAll(p.required());
    d.put("tables", new TreeSet<>(p.tables()));
    d.put("required", new TreeSet<>(p.required()));
    d.put("missing", missing);
    d.put("extra", extra);
    d.put("publish_insert", p.insert());
    d.put("publish_update", p.update());
    d.put("all_tables", p.allTables());
    if (!missing.isEmpty()) {
      List<String> fixes = new ArrayList<>();
      missing.forEach(t -> fixes.add("ALTER PUBLICATION " + p.name() + " ADD TABLE " + t));
      return Check.fail(
          PUBLICATION,
          "publication " + p.name() + " does not cover " + String.join(", ", missing)
              + ": the job never sees those changes",
          String.join("; ", fixes),
          d);
    }
    if (!p.insert() || !p.update()) {
      return Check.fail(
          PUBLICATION,
          "publication " + p.name() + " does not publish "
              + (!p.insert() ? "inserts" : "updates") + ": outbox rows arrive by INSERT, horizon"
              + " ticks by UPDATE",
          "ALTER PUBLICATION " + p.name() + " SET (publish = 'insert, update, delete, truncate')",
          d);
    }
    if (p.allTables() || !extra.isEmpty()) {
      return Check.warn(
          PUBLICATION,
          "publication " + p.name() + " also covers "
              + (p.allTables() ? "every table (FOR ALL TABLES)" : String.join(", ", extra))
              + ": their changes are decoded and sent to the job, which drops them",
          p.allTables()
              ? "use a publication FOR TABLE " + String.join(", ", p.required())
              : "ALTER PUBLICATION " + p.name() + " DROP TABLE " + String.join(", ", extra),
          d);
    }
    return Check.ok(
        PUBLICATION,
        "publication " + p.name() + " covers " + String.join(", ", p.required()),
        d);
  }

  public Check horizonTicking(String writer, Facts.Horizon h) {
    Map<String, Object> d = details("writer", writer, "exists", h.exists());
    if (!h.exists()) {
      return Check.fail(
          HORIZON_TICKING,
          "no horizon row for writer " + writer + ": its ticker has never run",
          "start the job (`lakewriter run`); its ticker writes the row within one"
              + " horizon.tick-period",
          d);
    }
    d.put("stable_seq", h.stableSeq());
    d.put("pending_seq", h.pendingSeq());
    d.put("tick_age_s", round(h.tickAgeS()));
    d.put("max_tick_age_s", limits.maxTickAge().toSeconds());
    if (h.tickAgeS() > limits.maxTickAge().toMillis() / 1000.0) {
      return Check.fail(
          HORIZON_TICKING,
          "the horizon of writer " + writer + " was last ticked " + seconds(h.tickAgeS())
              + " ago (limit " + seconds(limits.maxTickAge().toMillis() / 1000.0) + "): the"
              + " job's ticker is not running, so no batch can be cut",
          "the ticker runs inside the job: start it, or look in its log for the horizon ticker's"
              + " errors (connection, timeout)",
          d);
    }
    return Check.ok(
        HORIZON_TICKING,
        "ticked " + seconds(h.tickAgeS()) + " ago, stable seq " + h.stableSeq(),
        d);
  }

  public Check horizonHolders(List<Facts.Holder> holders) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("max_hold_s", limits.maxHorizonHold().toSeconds());
    List<Map<String, Object>> list = new ArrayList<>();
    for (Facts.Holder h : holders) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("holder", h.holder());
      m.put("pid", h.pid());
      m.put("gid", h.gid());
      m.put("xid", h.xid());
      m.put("database", h.database());
      m.put("owner", h.owner());
      m.put("since", h.since());
      m.put("age_s", h.ageS());
      m.put("state", h.state());
      m.put("query", h.query());
      list.add(m);
    }
    d.put("holders", list);
    if (holders.isEmpty()) {
      return Check.ok(HORIZON_HOLDERS, "no open transaction holds the horizon", d);
    }
    Facts.Holder oldest =
        holders.stream()
            .max(java.util.Comparator.comparingLong(Facts.Holder::ageS))
            .orElseThrow();
    String what = describe(oldest);
    String more = holders.size() > 1 ? " (and " + (holders.size() - 1) + " more)" : "";
    String fix =
        oldest.gid() != null
            ? "as its owner " + oldest.owner() + " in database " + oldest.database()
                + ": COMMIT PREPARED '" + oldest.gid() + "' (or ROLLBACK PREPARED)"
            : "end the transaction in its application; if it is abandoned: SELECT"
                + " pg_terminate_backend(" + oldest.pid() + ")";
    if (oldest.ageS() > limits.maxHorizonHold().toSeconds()) {
      return Check.fail(
          HORIZON_HOLDERS,
          what + " has held the horizon for " + oldest.ageS() + " s" + more + " (limit "
              + limits.maxHorizonHold().toSeconds() + " s): nothing after its seq reaches the"
              + " lake",
          fix,
          d);
    }
    return Check.warn(
        HORIZON_HOLDERS,
        what + " holds the horizon, for " + oldest.ageS() + " s so far" + more,
        fix,
        d);
  }

  public Check frontierStale(Facts.Frontier f) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("frontier", f.frontier());
    d.put("updated_at", f.updatedAt() == null ? null : f.updatedAt().toString());
    d.put("age_s", round(f.ageS()));
    d.put("horizon", f.horizon());
    d.put("rows_above", f.rowsAbove());
    d.put("rows_above_bound", f.rowsAboveCapped() ? "at_least" : "exact");
    d.put("rows_above_under_horizon", f.rowsAboveUnderHorizon());
    d.put("max_frontier_age_s", limits.maxFrontierAge().toSeconds());
    String rows = (f.rowsAboveCapped() ? "at least " : "") + f.rowsAbove() + " rows";
    if (f.rowsAbove() == 0) {
      return Check.ok(
          FRONTIER_STALE,
          "no row waits above the frontier" + (f.frontier() == null ? "" : " " + f.frontier()),
          d);
    }
    if (f.frontier() == null) {
      return Check.warn(
          FRONTIER_STALE,
          rows + " wait and the writer has not committed yet (no frontier row)",
          "start the job; once it commits, the frontier row appears",
          d);
    }
    boolean old = f.ageS() != null && f.ageS() > limits.maxFrontierAge().toMillis() / 1000.0;
    if (!old) {
      return Check.ok(
          FRONTIER_STALE,
          rows + " above frontier " + f.frontier() + ", which moved " + seconds(f.ageS()) + " ago",
          d);
    }
    if (f.rowsAboveUnderHorizon() == 0) {
      return Check.warn(
          FRONTIER_STALE,
          "frontier " + f.frontier() + " has not moved for " + seconds(f.ageS()) + " while " + rows
              + " wait, none of them under the horizon (" + f.horizon() + "): the horizon holds"
              + " them back",
          "see horizon_holders and horizon_ticking",
          d);
    }
    return Check.fail(
        FRONTIER_STALE,
        "frontier " + f.frontier() + " has not moved for " + seconds(f.ageS()) + " while "
            + f.rowsAboveUnderHorizon() + " rows under the horizon (" + f.horizon() + ") wait:"
            + " the writer is not committing",
        "start the job or find why it stopped committing: its log, the slot check, quarantined"
            + " tenants in `lakewriter status`",
        d);
  }

  public Check frontierCache(Facts.FrontierVsLake v) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("frontier", v.frontier());
    d.put("lake_root", v.lakeRoot());
    d.put("lake_tables", v.lakeTables());
    d.put("lake_max_txn_version", v.lakeMaxTxn());
    d.put("last_committed_seq", v.lastCommittedSeq());
    d.put("last_committed_tenant", v.lastCommittedTenant());
    d.put("tenant_txn_version", v.tenantTxn());
    if (v.frontier() > 0 && v.lakeTables() == 0) {
      return Check.fail(
          FRONTIER_CACHE,
          "the frontier cache says seq " + v.frontier() + " is committed, but there is no lake"
              + " table under " + v.lakeRoot(),
          "check lake.root (a wrong path or bucket), or whether the lake was deleted; `lakewriter"
              + " verify` lists what is missing",
          d);
    }
    d.put("tenant_quarantined", v.tenantQuarantined());
    if (v.lastCommittedSeq() != null
        && v.tenantTxn() < v.lastCommittedSeq()
        && v.tenantQuarantined()) {
      return Check.warn(
          FRONTIER_CACHE,
          "seq " + v.lastCommittedSeq() + " of tenant " + v.lastCommittedTenant() + " is at or"
              + " below the frontier cache (" + v.frontier() + ") but not in its tables (txn "
              + v.tenantTxn() + "): the tenant is quarantined and keeps its own frontier",
          "`lakewriter quarantine list` shows why it waits; release it once fixed. Do not prune"
              + " its rows above its own txn versions",
          d);
    }
    if (v.lastCommittedSeq() != null && v.tenantTxn() < v.lastCommittedSeq()) {
      return Check.fail(
          FRONTIER_CACHE,
          "the frontier cache says seq " + v.frontier() + " is committed, but seq "
              + v.lastCommittedSeq() + " of tenant " + v.lastCommittedTenant() + " is not in its"
              + " tables (their highest txn version is " + v.tenantTxn() + "): the lake is older"
              + " than the cache (restored from a backup, or another lake.root)",
          "if the lake was restored, start the job: it recovers from the lake's txn versions and"
              + " rewrites what is missing while the outbox still has it (see outbox_retention);"
              + " then `lakewriter verify`",
          d);
    }
    if (v.lakeMaxTxn() > v.frontier()
        && v.frontierAgeS() != null
        && v.frontierAgeS() > limits.maxFrontierAge().toMillis() / 1000.0) {
      return Check.warn(
          FRONTIER_CACHE,
          "the lake is ahead of the frontier cache (txn " + v.lakeMaxTxn() + " > " + v.frontier()
              + ") and the cache has not moved for " + seconds(v.frontierAgeS()) + ": status"
              + " overstates the lag",
          "the job rewrites the cache after its next commit; if it runs, its frontier listener"
              + " fails: see its log",
          d);
    }
    return Check.ok(
        FRONTIER_CACHE,
        "the lake holds the frontier cache's last row"
            + (v.lastCommittedSeq() == null ? "" : " (seq " + v.lastCommittedSeq() + ")")
            + "; highest txn version " + v.lakeMaxTxn() + ", frontier " + v.frontier(),
        d);
  }

  public Check deltaCheckpoint(Facts.Lake lake) {
    Map<String, Object> d = new LinkedHashMap<>();
    boolean perTable = limits.maxCommitsWithoutCheckpoint() < 0;
    String limit =
        perTable
            ? DoctorThresholds.CHECKPOINT_INTERVALS_BEHIND + "x its delta.checkpointInterval"
            : Long.toString(limits.maxCommitsWithoutCheckpoint());
    d.put("max_commits_without_checkpoint", perTable ? null : limits.maxCommitsWithoutCheckpoint());
    d.put(
        "checkpoint_intervals_behind",
        perTable ? DoctorThresholds.CHECKPOINT_INTERVALS_BEHIND : null);
    List<Map<String, Object>> behind = new ArrayList<>();
    for (Facts.LakeTable t : lake.tables()) {
      long max = limits.maxCommitsWithoutCheckpoint(t);
      if (t.commitsSinceCheckpoint() > max) {
        behind.add(
            details(
                "table", t.table(),
                "table_version", t.tableVersion(),
                "checkpoint_version", t.checkpointVersion(),
                "commits_since_checkpoint", t.commitsSinceCheckpoint(),
                "checkpoint_interval", t.checkpointInterval(),
                "max_commits_without_checkpoint", max));
      }
    }
    d.put("tables", behind);
    if (behind.isEmpty()) {
      return Check.ok(
          DELTA_CHECKPOINT,
          lake.tables().size() + " table(s), none with more than " + limit
              + " commits since its checkpoint",
          d);
    }
    Map<String, Object> worst = behind.get(0);
    return Check.warn(
        DELTA_CHECKPOINT,
        behind.size() + " table(s) without a recent checkpoint, e.g. " + worst.get("table") + ": "
            + worst.get("commits_since_checkpoint") + " commits since "
            + (worst.get("checkpoint_version") == null
                ? "its creation (no checkpoint)"
                : "checkpoint " + worst.get("checkpoint_version"))
            + " (more than " + worst.get("max_commits_without_checkpoint") + ")"
            + "; every reader replays them all",
        "the writer checkpoints each table every delta.checkpointInterval commits (its"
            + " lake.log-checkpoint-interval): look in its log for 'post-commit hook"
            + " CHECKPOINT failed' (permissions, space); commits by other engines do not"
            + " checkpoint, so let one of them run a checkpoint",
        d);
  }

  public Check smallFiles(Facts.Lake lake) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("max_files", limits.maxSmallFiles());
    d.put("small_file_bytes", limits.smallFileBytes());
    d.put("keyed_small_file_bytes", keyedSmallFileBytes());
    List<Map<String, Object>> pressed = new ArrayList<>();
    for (Facts.LakeTable t : lake.tables()) {
      if (t.fileCount() > limits.maxSmallFiles()
          && t.averageFileBytes() < smallFileBytes(t.table())) {
        pressed.add(
            details(
                "table", t.table(),
                "files", t.fileCount(),
                "average_file_bytes", t.averageFileBytes()));
      }
    }
    d.put("tables", pressed);
    if (pressed.isEmpty()) {
      return Check.ok(
          SMALL_FILES,
          "no table has more than " + limits.maxSmallFiles() + " files averaging under "
              + bytes(limits.smallFileBytes()),
          d);
    }
    Map<String, Object> first = pressed.get(0);
    return Check.warn(
        SMALL_FILES,
        pressed.size() + " table(s) with many small files, e.g. " + first.get("table") + ": "
            + first.get("files") + " files of " + bytes((Long) first.get("average_file_bytes"))
            + " on average (limits " + limits.maxSmallFiles() + " files, "
            + bytes(smallFileBytes((String) first.get("table"))) + ")",
        "compact the table with a Delta engine's OPTIMIZE (it rewrites with dataChange=false,"
            + " which the writer tolerates), a keyed table (silver/memories, gold/lineage,"
            + " gold/workarea_memories) into files of maintenance.compact.keyed-target-file-size"
            + " (each retraction rewrites a whole file); fewer, larger commits come from a longer"
            + " checkpoint.interval",
        d);
  }

  private long keyedSmallFileBytes() {
    return Math.min(limits.smallFileBytes(), limits.keyedSmallFileBytes());
  }

  /** A table keyed on (artifact_id, version) is kept in small files on purpose. */
  private long smallFileBytes(String table) {
    boolean keyed =
        TableKind.fromPath(table.substring(table.indexOf('/') + 1))
            .map(ArtifactKey::keys)
            .orElse(false);
    return keyed ? keyedSmallFileBytes() : limits.smallFileBytes();
  }

  public Check deadLetters(Facts.DeadLetters dl) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("waiting", dl.waiting());
    d.put("by_error_class", dl.byErrorClass());
    d.put("by_tenant", dl.byTenant());
    d.put("oldest_age_s", round(dl.oldestAgeS()));
    if (dl.waiting() == 0) {
      return Check.ok(DEAD_LETTERS, "no dead letter waits for a repair", d);
    }
    return Check.warn(
        DEAD_LETTERS,
        dl.waiting() + " dead letter(s) wait for a repair " + dl.byErrorClass() + ", the oldest"
            + " for " + seconds(dl.oldestAgeS()),
        "`lakewriter dead-letters list` shows them and what repairs each class; `lakewriter"
            + " dead-letters requeue` re-enqueues a repaired row",
        d);
  }

  public Check outboxRetention(Facts.Retention r) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("frontier", r.frontier());
    d.put("outbox_min_seq", r.minSeq());
    d.put("sequence_last_value", r.sequenceLastValue());
    if (r.minSeq() == null) {
      return Check.ok(
          OUTBOX_RETENTION, "the outbox is empty; nothing is missing above the frontier", d);
    }
    if (r.minSeq() > r.frontier() + 1) {
      long from = r.frontier() + 1;
      long to = r.minSeq() - 1;
      d.put("missing_from", from);
      d.put("missing_to", to);
      return Check.fail(
          OUTBOX_RETENTION,
          "the outbox's lowest seq is " + r.minSeq() + " but the committed frontier is "
              + r.frontier() + ": seqs " + from + ".." + to + " have no row, so the outbox was"
              + " pruned past the frontier and the lake never got them (unless every one of"
              + " those seqs was rolled back)",
          "prune only rows with seq <= the frontier (oml_lake_frontier.frontier_seq; for a"
              + " quarantined tenant, <= its own txn versions); restore the missing rows from a"
              + " backup into the outbox, then `lakewriter verify`",
          d);
    }
    return Check.ok(
        OUTBOX_RETENTION,
        "the outbox starts at seq " + r.minSeq() + ", at or below frontier + 1 ("
            + (r.frontier() + 1) + "): nothing above the frontier was pruned",
        d);
  }

  /**
   * Issue 16: the connection to PostgreSQL is encrypted and the server verified. A plain
   * connection to a loopback host is OK (nothing leaves the machine); to any other host it WARNs,
   * as does TLS without {@code verify-ca}/{@code verify-full} (encrypted, but to whom?).
   */
  public Check postgresTls(Facts.Connection c) {
    Map<String, Object> d =
        details(
            "host", c.host(), "sslmode", c.sslmode(), "ssl", c.ssl(), "tls_version",
            c.tlsVersion(), "client_certificate", c.clientCertificate());
    String mode = c.sslmode() == null ? "unset (pgjdbc's prefer)" : c.sslmode();
    String fix =
        "add sslmode=verify-full&sslrootcert=<CA file> to postgres.url, and admit the writer"
            + " with hostssl lines only in pg_hba.conf (docs/postgres-tls.md)";
    if (!c.ssl()) {
      if (isLoopback(c.host())) {
        return Check.ok(
            POSTGRES_TLS,
            "not encrypted, to loopback host " + c.host() + " (the traffic stays on this machine)",
            d);
      }
      return Check.warn(
          POSTGRES_TLS,
          "the connection to " + c.host() + " is not encrypted (sslmode " + mode + "): the"
              + " password exchange and every outbox row cross the network in the clear",
          fix,
          d);
    }
    if (!"verify-full".equals(c.sslmode()) && !"verify-ca".equals(c.sslmode())) {
      return Check.warn(
          POSTGRES_TLS,
          "encrypted (" + c.tlsVersion() + "), but the server's certificate is not verified"
              + " (sslmode " + mode + "): a man in the middle would not be noticed",
          fix,
          d);
    }
    return Check.ok(
        POSTGRES_TLS,
        c.tlsVersion() + ", sslmode " + c.sslmode()
            + (c.clientCertificate() ? ", with a client certificate" : ""),
        d);
  }

  /** Issue 16: the configured role has what {@code run} needs (docs/least-privilege.md). */
  public Check writerGrants(Facts.Connection c) {
    Map<String, Object> d = details("user", c.user(), "missing", c.missingGrants());
    if (c.missingGrants().isEmpty()) {
      return Check.ok(
          WRITER_GRANTS, "role " + c.user() + " has every grant `lakewriter run` needs", d);
    }
    return Check.fail(
        WRITER_GRANTS,
        "role " + c.user() + " lacks what `lakewriter run` needs (MISSING_GRANT): "
            + String.join("; ", c.missingGrants()),
        "as the contract's owner: lakewriter init-db --grant-to " + c.user()
            + " (docs/least-privilege.md)",
        d);
  }

  private static boolean isLoopback(String host) {
    return host != null
        && (host.equals("localhost") || host.startsWith("127.") || host.equals("::1")
            || host.equals("[::1]"));
  }

  /** A check that could not run, named with the error so that nothing is silently skipped. */
  public static Check notChecked(String name, Exception e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    message = message.replace('\n', ' ');
    boolean missingContract =
        e instanceof java.sql.SQLException s && "42P01".equals(s.getSQLState());
    return Check.fail(
        name,
        "not checked: " + message,
        missingContract
            ? "the outbox contract is missing: run `lakewriter init-db`"
            : "fix what the error names and run doctor again",
        details("error", e.getClass().getName()));
  }

  static String describe(Facts.Holder h) {
    if (h.gid() != null) {
      return "prepared transaction '" + h.gid() + "' (xid " + h.xid() + ", owner " + h.owner()
          + ", database " + h.database() + ", prepared " + h.since() + ")";
    }
    return "transaction of pid " + h.pid() + " (xid " + h.xid() + ", " + h.state() + ", owner "
        + h.owner() + ", database " + h.database() + ", query '" + h.query() + "')";
  }

  static Map<String, Object> details(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  static String bytes(Long n) {
    if (n == null) {
      return "unknown";
    }
    if (n >= 1L << 30) {
      return String.format(java.util.Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
    }
    if (n >= 1L << 20) {
      return String.format(java.util.Locale.ROOT, "%.1f MiB", n / (double) (1L << 20));
    }
    if (n >= 1L << 10) {
      return String.format(java.util.Locale.ROOT, "%.1f KiB", n / (double) (1L << 10));
    }
    return n + " B";
  }

  static String seconds(Double s) {
    return s == null ? "an unknown time" : String.format(java.util.Locale.ROOT, "%.0f s", s);
  }

  private static Double round(Double s) {
    return s == null ? null : Math.round(s * 10) / 10.0;
  }
}
