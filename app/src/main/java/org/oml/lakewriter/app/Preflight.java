package org.oml.lakewriter.app;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.oml.lakewriter.cdc.SlotCheck;
import org.oml.lakewriter.cdc.SlotInvalidatedException;
import org.oml.lakewriter.contract.ContractException;
import org.oml.lakewriter.delta.kernel.KernelEngines;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.identity.JobIdentity;
import org.oml.lakewriter.jdbc.PgDriver;
import org.oml.lakewriter.keys.DataKeyCheck;

/**
 * What must hold before the job starts, checked in the order an operator would fix it: the
 * database is reachable and accepts the credentials, it meets the outbox contract, the slot is
 * free, and the lake root is writable. Each failure is a {@link ConfigException} (or a {@link
 * org.oml.lakewriter.contract.ContractException}) that names the option and what to do.
 */
public final class Preflight {
  private Preflight() {}

  /**
   * @param restoring the job resumes from a checkpoint, so its slot must still exist
   * @param acceptLostSlot the operator has acknowledged a lost slot (rows are refetched by seq)
   */
  public static void check(LakeWriterConfig cfg, boolean restoring, boolean acceptLostSlot) {
    cfg.lakeRoot(); // the job needs it: name a missing lake.root before anything connects
    String publication = cfg.get(LakeWriterOptions.PUBLICATION);
    try (Connection c = connect(cfg)) {
      try {
        OutboxContract.verify(c, cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), publication);
      } catch (ContractException e) {
        // Say which database and which publication option the problems are about.
        throw new ContractException(
            LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl() + ", "
                + LakeWriterOptions.PUBLICATION.key() + " = " + publication + ": "
                + e.getMessage(),
            e);
      }
      checkWriterGrants(c, cfg);
      checkSlot(c, cfg, restoring, acceptLostSlot);
    } catch (SQLException e) {
      throw new ConfigException("PostgreSQL check failed: " + e.getMessage(), e);
    }
    checkKeyLookup(cfg);
    checkLakeRoot(cfg);
  }

  /**
   * Runs the key lookup once with no ids: a missing registry table, a typo or a query without its
   * one parameter is a configuration error now, not a dead letter per promotion later.
   */
  private static void checkKeyLookup(LakeWriterConfig cfg) {
    try (DataKeyCheck check = cfg.dataKeyCheck()) {
      if (check != null) {
        check.known(Set.of());
      }
    } catch (SQLException e) {
      if (isUnavailable(e)) {
        // The registry is down or slow, not misconfigured: the job's circuit breaker holds the
        // stream until it answers. Refusing to start would turn an outage into a restart loop.
        System.err.println(
            "lakewriter: warning: the key registry (" + LakeWriterOptions.KEYS_LOOKUP_QUERY.key()
                + ") does not answer now (" + e.getMessage() + ", SQLState " + e.getSQLState()
                + "); starting anyway, the cut holds promotions until it answers");
        return;
      }
      throw new ConfigException(
          "option " + LakeWriterOptions.KEYS_LOOKUP_QUERY.key() + " = '"
              + cfg.get(LakeWriterOptions.KEYS_LOOKUP_QUERY) + "' fails: " + e.getMessage()
              + " (SQLState " + e.getSQLState() + "); it must take one text[] parameter and"
              + " return the known key ids", e);
    }
  }

  /** A timeout (57014), a lock wait cut short (55P03) or a lost connection (class 08). */
  static boolean isUnavailable(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    return state.equals("57014") || state.equals("55P03") || state.startsWith("08");
  }

  /**
   * The identity the job's state is recorded under: the cluster's system identifier ({@code
   * pg_control_system()}) and the database's name, the slot, the writer id and the lake root.
   */
  public static JobIdentity identity(LakeWriterConfig cfg) {
    try (Connection c = connect(cfg);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT (SELECT system_identifier::text FROM pg_control_system()),"
                    + " current_database()")) {
      rs.next();
      return new JobIdentity(
          rs.getString(1),
          rs.getString(2),
          cfg.get(LakeWriterOptions.SLOT),
          cfg.writerId(),
          // lakeRoot() of a local path ends in '/' only once the directory exists: compare the
          // root, not whether it existed at the time.
          cfg.lakeRoot().replaceAll("/+$", ""));
    } catch (SQLException e) {
      throw new ConfigException(
          "cannot read the database's identity (pg_control_system(), current_database()) at "
              + LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl() + ": "
              + e.getMessage() + "; the user needs EXECUTE on pg_control_system() (e.g. the"
              + " pg_monitor role)", e);
    }
  }

  /** Opens a connection, turning the usual failures into messages that name the option. */
  public static Connection connect(LakeWriterConfig cfg) {
    try {
      // Not DriverManager: on a session cluster this runs in the N-th job's child-first class
      // loader on the JobManager, where DriverManager finds only the first job's driver.
      return PgDriver.connect(cfg.jdbcUrl(), cfg.connectionProperties());
    } catch (SQLException e) {
      String state = e.getSQLState() == null ? "" : e.getSQLState();
      // Without a password the driver itself gives up (08004) when the server asks for one.
      boolean noPassword = cfg.password().isEmpty() && state.equals("08004");
      ConfigException tls = PostgresTlsErrors.describe(cfg, e);
      if (tls != null) {
        throw tls;
      }
      if (state.equals("28000")) {
        throw unknownRole(cfg, e);
      }
      if (state.equals("28P01") || noPassword) {
        throw new ConfigException(
            "PostgreSQL refused the credentials of "
                + LakeWriterOptions.POSTGRES_USER.key() + " '" + cfg.user() + "' ("
                + (noPassword ? "no password is set; " : "")
                + e.getMessage() + "): set the password in the variable named by "
                + LakeWriterOptions.POSTGRES_PASSWORD_ENV.key() + " ("
                + cfg.get(LakeWriterOptions.POSTGRES_PASSWORD_ENV) + ") or in "
                + LakeWriterOptions.POSTGRES_PASSWORD_FILE.key(), e);
      }
      if (state.equals("3D000")) {
        throw new ConfigException(
            "the database in " + LakeWriterOptions.POSTGRES_URL.key() + " does not exist: "
                + e.getMessage(), e);
      }
      throw new ConfigException(
          "cannot reach PostgreSQL at " + LakeWriterOptions.POSTGRES_URL.key() + " = "
              + cfg.jdbcUrl() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Decides whether the slot's holder is a live writer (refused at once) or a leftover to wait
   * for. The leader lease plugs in here: {@code REPLICATION_ACTIVITY.or(lease)}.
   */
  static final LiveWriterCheck LIVE_WRITER = LiveWriterCheck.REPLICATION_ACTIVITY;

  private static final long SLOT_POLL_MILLIS = 500;
  private static final long SLOT_REPORT_MILLIS = 10_000;

  private static void checkSlot(
      Connection c, LakeWriterConfig cfg, boolean restoring, boolean acceptLostSlot)
      throws SQLException {
    String slot = cfg.get(LakeWriterOptions.SLOT);
    SlotHolder holder = awaitSlot(c, cfg, slot);
    if (!holder.exists() && restoring && !acceptLostSlot) {
      throw new ConfigException(
          "SLOT_LOST: replication slot '" + slot + "' (" + LakeWriterOptions.SLOT.key()
              + ") is gone, but the job resumes from a checkpoint that read from it. Rows"
              + " committed meanwhile are not in the WAL stream; the completeness check"
              + " refetches them by seq from the outbox. Restart with --accept-lost-slot"
              + " to proceed.");
    }
    if (holder.exists() && dropIfInvalidated(c, slot, acceptLostSlot)) {
      holder = SlotHolder.read(c, slot);
    }
    if (!holder.exists()) {
      // Visible and bounded here, rather than an unbounded wait inside the CDC source.
      SlotCreation.ensure(c, slot, cfg.get(LakeWriterOptions.SLOT_WAIT));
    }
  }

  /**
   * An invalidated slot (docs/failure-matrix.md) can never stream again, on a fresh start as on a
   * restore: refused with {@code SLOT_INVALIDATED}, or, once acknowledged with {@code
   * --accept-lost-slot}, dropped so that a new one is created (the completeness check refetches
   * by seq what the lost WAL held).
   *
   * @return the slot was dropped
   */
  private static boolean dropIfInvalidated(Connection c, String slot, boolean acceptLostSlot)
      throws SQLException {
    Optional<SlotInvalidatedException> invalid =
        SlotCheck.invalidation(c, slot);
    if (invalid.isEmpty()) {
      return false;
    }
    if (!acceptLostSlot) {
      throw new ConfigException(invalid.get().getMessage(), invalid.get());
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      ps.setString(1, slot);
      ps.execute();
    }
    System.err.println(
        "lakewriter: dropped the invalidated replication slot '" + slot + "' (--accept-lost-slot);"
            + " a new one is created, and the completeness check refetches by seq the rows the"
            + " lost WAL held");
    return true;
  }

  /**
   * Returns once the slot is absent or inactive. A holder that is a live writer ({@link
   * #LIVE_WRITER}) is refused at once; any other holder (a killed writer's walsender, still inside
   * its slot creation or not yet timed out) is waited for up to {@code postgres.slot-wait}, and the
   * wait says on stderr which pid holds the slot and why.
   */
  private static SlotHolder awaitSlot(Connection c, LakeWriterConfig cfg, String slot)
      throws SQLException {
    String database = c.getCatalog();
    long waitMillis = cfg.get(LakeWriterOptions.SLOT_WAIT).toMillis();
    long start = System.nanoTime();
    long reported = -SLOT_REPORT_MILLIS;
    String lastReport = null;
    while (true) {
      SlotHolder holder = SlotHolder.read(c, slot);
      checkSlotDatabase(slot, holder, database);
      if (!holder.active()) {
        if (lastReport != null) {
          System.err.printf(
              "lakewriter: replication slot '%s' is free after %d s%n",
              slot, elapsedMillis(start) / 1000);
        }
        return holder;
      }
      String name = "replication slot '" + slot + "' (" + LakeWriterOptions.SLOT.key() + ")";
      Optional<String> live = LIVE_WRITER.liveWriter(c, cfg, holder);
      if (live.isPresent()) {
        throw new ConfigException(
            name + " is held by another process (pid " + holder.pid() + "): is another lake"
                + " writer running? There must be exactly one. It looks like a live writer: "
                + live.get() + " [" + holder.describe() + "].");
      }
      long elapsed = elapsedMillis(start);
      if (elapsed >= waitMillis) {
        throw new ConfigException(
            name + " is still held by another process (" + holder.describe() + ") after "
                + elapsed / 1000 + " s (" + LakeWriterOptions.SLOT_WAIT.key() + " = "
                + cfg.get(LakeWriterOptions.SLOT_WAIT).toSeconds() + " s). It is not streaming"
                + " to a live client: a killed writer's walsender that waits for open"
                + " transactions to let its slot creation finish, or for wal_sender_timeout."
                + " Is another lake writer running? If not, end the transactions it waits for,"
                + " or SELECT pg_terminate_backend(" + holder.pid() + "), or raise "
                + LakeWriterOptions.SLOT_WAIT.key() + ".");
      }
      String report = holder.describe();
      if (!report.equals(lastReport) || elapsed - reported >= SLOT_REPORT_MILLIS) {
        System.err.printf(
            "lakewriter: %s is held by %s, not a live writer (a killed writer's walsender?);"
                + " waiting up to %d s more (%s)%n",
            name, report, (waitMillis - elapsed) / 1000, LakeWriterOptions.SLOT_WAIT.key());
        lastReport = report;
        reported = elapsed;
      }
      try {
        Thread.sleep(SLOT_POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ConfigException("interrupted while waiting for " + name, e);
      }
    }
  }

  /**
   * Slot names are cluster-wide: a slot of that name in another database makes the CDC source fail
   * over forever with "replication slot ... already exists".
   */
  private static void checkSlotDatabase(String slot, SlotHolder holder, String database) {
    if (!holder.exists() || database.equals(holder.database())) {
      return;
    }
    String whose =
        holder.database() == null
            ? "is a physical slot (streaming replication or a backup), not a logical slot of"
                + " database '" + database + "'"
            : "belongs to database '" + holder.database() + "' of the same cluster, not to '"
                + database + "' (" + LakeWriterOptions.POSTGRES_URL.key() + ")";
    throw new ConfigException(
        "SLOT_IN_OTHER_DATABASE: replication slot '" + slot + "' ("
            + LakeWriterOptions.SLOT.key() + ") " + whose + ". Slot names are unique across"
            + " the cluster. Set " + LakeWriterOptions.SLOT.key() + " to another name, or, if"
            + " that slot is abandoned, drop it (it holds WAL back): SELECT"
            + " pg_drop_replication_slot('" + slot + "')"
            + (holder.active() ? " once its holder, pid " + holder.pid() + ", has ended" : "")
            + ".");
  }

  private static long elapsedMillis(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static void checkLakeRoot(LakeWriterConfig cfg) {
    URI root = URI.create(cfg.lakeRoot());
    // The lake's own Hadoop configuration, as the sink builds it: an object-store root must not
    // get a file: filesystem that a local lake cached in this JVM (its upload buffer needs
    // Hadoop's own).
    Configuration hadoop = KernelEngines.hadoopConf(cfg.lake());
    Path probe = new Path(new Path(root), "_lakewriter_probe_" + UUID.randomUUID());
    try {
      FileSystem fs = FileSystem.get(root, hadoop);
      fs.mkdirs(new Path(root));
      fs.create(probe, false).close();
      fs.delete(probe, false);
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(
          "the lake root " + LakeWriterOptions.LAKE_ROOT.key() + " = " + cfg.lakeRoot()
              + " is not writable: " + e, e);
    }
  }

  /**
   * SQLState 28000 (invalid_authorization_specification): the server refused the role before any
   * password was checked, because the role does not exist or no pg_hba.conf line admits it from
   * this host to this database. A password would not help, so the message does not ask for one
   * (28P01, invalid_password, does).
   */
  private static ConfigException unknownRole(LakeWriterConfig cfg, SQLException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String cause =
        message.contains("does not exist")
            ? "the role does not exist in this cluster: create it (CREATE ROLE " + cfg.user()
                + " LOGIN REPLICATION PASSWORD '...') or set " + LakeWriterOptions.POSTGRES_USER.key()
                + " to an existing role"
            : "no pg_hba.conf line admits this role from this host to this database: add one,"
                + " or set " + LakeWriterOptions.POSTGRES_USER.key() + " to a role that is admitted";
    return new ConfigException(
        "PostgreSQL refused " + LakeWriterOptions.POSTGRES_USER.key() + " '" + cfg.user()
            + "' at " + LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl()
            + " before any password check (SQLState 28000: " + message + "); " + cause, e);
  }

  /**
   * For the commands that only read the contract's tables ({@code status}, {@code verify}, {@code
   * dead-letters}): the same contract check as {@code run}'s, but it refuses only for what the
   * command cannot do without (a missing table, function or sequence), listing each with "run
   * {@code lakewriter init-db}". Other problems (wal_level, the publication) are {@code run}'s
   * concern and do not keep a report from being read.
   *
   * @param command the command's name, for the message
   */
  public static void requireContractTables(Connection c, LakeWriterConfig cfg, String command)
      throws SQLException {
    try {
      OutboxContract.verify(
          c, cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), cfg.get(LakeWriterOptions.PUBLICATION));
    } catch (ContractException e) {
      java.util.List<String> missing = new java.util.ArrayList<>();
      for (String problem : e.getMessage().split("\n  - ")) {
        if (problem.matches("(table|function|sequence) \\S+ is missing: run `lakewriter init-db`")) {
          missing.add(problem);
        }
      }
      if (!missing.isEmpty()) {
        throw new ContractException(
            "`lakewriter " + command + "` needs the outbox contract, which "
                + LakeWriterOptions.POSTGRES_URL.key() + " = " + cfg.jdbcUrl() + " (schema "
                + cfg.get(LakeWriterOptions.POSTGRES_SCHEMA) + ") lacks; run `lakewriter"
                + " init-db` with the same options first:\n  - " + String.join("\n  - ", missing),
            e);
      }
    }
  }

  /**
   * The writer's role has what {@code run} needs (docs/least-privilege.md): otherwise the job
   * would start and fail later, on its first snapshot read, tick or journal insert, with
   * "permission denied". Runs after the contract check, so every object exists.
   *
   * @throws ConfigException {@code MISSING_GRANT} listing each missing privilege and the command
   *     that grants them
   */
  static void checkWriterGrants(Connection c, LakeWriterConfig cfg) throws SQLException {
    String schema = cfg.get(LakeWriterOptions.POSTGRES_SCHEMA);
    java.util.List<String> missing = org.oml.lakewriter.contract.WriterGrants.missing(c, schema);
    if (!missing.isEmpty()) {
      throw new ConfigException(
          "MISSING_GRANT: " + LakeWriterOptions.POSTGRES_USER.key() + " '" + cfg.user()
              + "' lacks what the lake writer needs:\n  - " + String.join("\n  - ", missing)
              + "\nAs the owner of the outbox contract, run `lakewriter init-db --grant-to "
              + cfg.user() + "` with the same postgres.url and postgres.schema (the grants are"
              + " listed in docs/least-privilege.md).");
    }
  }
}
