package org.oml.lakewriter.cli;

import java.sql.Connection;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournalSync;
import org.oml.lakewriter.delta.read.LakeReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lakewriter dead-letters sync}: copies every dead letter of the lake (the authority) into
 * the PostgreSQL journal that lacks it, after the job gave the journal up (finding {@code
 * JOURNAL_BEHIND}). Idempotent; records already journalled, and requeues, are left as they are.
 */
@Command(
    name = "sync",
    mixinStandardHelpOptions = true,
    description =
        "Brings the PostgreSQL dead-letter journal back in step with the lake's dead_letter"
            + " tables (the authority): inserts what the journal lacks, changes nothing else. Run"
            + " it after the job logged JOURNAL_BEHIND; safe while the job runs.")
final class DeadLettersSyncCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Override
  public Integer call() throws Exception {
    LakeWriterConfig cfg = config.load();
    LakeReader lake = LakeReader.open(cfg.lake());
    DeadLetterJournal journal = new DeadLetterJournal(cfg.get(LakeWriterOptions.POSTGRES_SCHEMA));
    DeadLetterJournalSync.Result result;
    try (Connection c = Preflight.connect(cfg)) {
      Preflight.requireContractTables(c, cfg, "dead-letters sync");
      result = DeadLetterJournalSync.sync(c, journal, lake, cfg.writerId());
    }
    System.out.println(
        "dead-letter journal in step with the lake: "
            + result.inLake()
            + " dead letter(s) in the lake, "
            + result.inserted()
            + " newly journalled, "
            + (result.inLake() - result.inserted())
            + " already there");
    return 0;
  }
}
