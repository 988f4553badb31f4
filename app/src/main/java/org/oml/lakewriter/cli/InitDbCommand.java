package org.oml.lakewriter.cli;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.app.SlotCreation;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.contract.WriterGrants;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "init-db",
    mixinStandardHelpOptions = true,
    description =
        "Applies the outbox contract (tables, CACHE 1 sequence, xid-before-seq trigger, horizon"
            + " tick, publication) and creates the replication slot (postgres.slot). Idempotent:"
            + " safe to run twice.")
final class InitDbCommand implements Callable<Integer> {
  /** How long init-db waits to create the slot; a deployment step should not hang on a report. */
  private static final Duration SLOT_WAIT = Duration.ofSeconds(5);

  @Mixin ConfigMixin config;

  @Option(
      names = "--grant-to",
      paramLabel = "ROLE",
      description =
          "Also grant ROLE exactly what `lakewriter run` needs (SELECT on the outbox and the"
              + " horizon, writes only to the writer's bookkeeping tables; docs/least-privilege.md)."
              + " Run init-db as the contract's owner; ROLE needs LOGIN REPLICATION, which a"
              + " superuser gives.")
  String grantTo;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    try (Connection c = Preflight.connect(cfg)) {
      String publication = cfg.get(LakeWriterOptions.PUBLICATION);
      String schema = cfg.get(LakeWriterOptions.POSTGRES_SCHEMA);
      OutboxContract.apply(c, schema, publication);
      OutboxContract.verify(c, schema, publication);
      if (grantTo != null) {
        grantWriter(c, schema);
      }
      String slot = cfg.get(LakeWriterOptions.SLOT);
      try {
        if (SlotCreation.ensure(c, slot, SLOT_WAIT)) {
          System.out.println("replication slot " + slot + " created");
        }
      } catch (ConfigException e) {
        // The contract is in place; the slot is not yet. `run` creates it, bounded and visibly.
        System.err.println(
            "lakewriter: warning: " + e.getMessage() + " `lakewriter run` will create it.");
      } catch (java.sql.SQLException e) {
        if (!"42501".equals(e.getSQLState())) {
          throw e;
        }
        // An owner role without REPLICATION (least privilege: only the writer's role has it).
        System.err.println(
            "lakewriter: note: replication slot " + slot + " not created: " + cfg.user()
                + " lacks the REPLICATION attribute (" + e.getMessage() + "). `lakewriter run`"
                + " creates it under the writer's role.");
      }
    }
    System.out.println(
        "outbox contract applied to " + cfg.jdbcUrl() + ", schema "
            + cfg.get(LakeWriterOptions.POSTGRES_SCHEMA));
    return 0;
  }

  /** {@code --grant-to}: the writer's grants, and a word on what only a superuser can add. */
  private void grantWriter(Connection c, String schema) throws java.sql.SQLException {
    try {
      OutboxContract.requireIdentifier("--grant-to", grantTo);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage() + " (a plain lower-case role name)", e);
    }
    try (java.sql.PreparedStatement ps =
        c.prepareStatement("SELECT rolreplication, rolcanlogin FROM pg_roles WHERE rolname = ?")) {
      ps.setString(1, grantTo);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new ConfigException(
              "--grant-to " + grantTo + ": no such role; a superuser creates it first: CREATE ROLE "
                  + grantTo + " LOGIN REPLICATION PASSWORD '...'");
        }
        if (!rs.getBoolean(1) || !rs.getBoolean(2)) {
          System.err.println(
              "lakewriter: warning: role " + grantTo + " lacks "
                  + (rs.getBoolean(2) ? "" : "LOGIN ") + (rs.getBoolean(1) ? "" : "REPLICATION ")
                  + "; a superuser must run ALTER ROLE " + grantTo + " LOGIN REPLICATION");
        }
      }
    }
    WriterGrants.grant(c, schema, grantTo);
    System.out.println(
        "granted " + grantTo + " the lake writer's privileges in schema " + schema
            + " (docs/least-privilege.md)");
  }
}
