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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    try (Connection c = Preflight.connect(cfg)) {
      String publication = cfg.get(LakeWriterOptions.PUBLICATION);
      String schema = cfg.get(LakeWriterOptions.POSTGRES_SCHEMA);
      OutboxContract.apply(c, schema, publication);
      OutboxContract.verify(c, schema, publication);
      String slot = cfg.get(LakeWriterOptions.SLOT);
      try {
        if (SlotCreation.ensure(c, slot, SLOT_WAIT)) {
          System.out.println("replication slot " + slot + " created");
        }
      } catch (ConfigException e) {
        // The contract is in place; the slot is not yet. `run` creates it, bounded and visibly.
        System.err.println(
            "lakewriter: warning: " + e.getMessage() + " `lakewriter run` will create it.");
      }
    }
    System.out.println(
        "outbox contract applied to " + cfg.jdbcUrl() + ", schema "
            + cfg.get(LakeWriterOptions.POSTGRES_SCHEMA));
    return 0;
  }
}
