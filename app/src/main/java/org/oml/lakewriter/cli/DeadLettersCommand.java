package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.deadletter.journal.DeadLetterJournal;
import org.oml.lakewriter.deadletter.journal.DeadLetterRequeue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lakewriter dead-letters list|requeue}: the PostgreSQL dead-letter journal and its repair.
 * The lake's {@code dead_letter} tables are the authority on what was skipped; the journal is their
 * queryable copy and records every requeue.
 */
@Command(
    name = "dead-letters",
    mixinStandardHelpOptions = true,
    description =
        "Rows the lake writer skipped (journalled in oml_lake_dead_letter; the lake's dead_letter"
            + " tables hold them too), and their repair by re-enqueue.",
    subcommands = {
      DeadLettersCommand.ListCommand.class,
      DeadLettersCommand.RequeueCommand.class,
      DeadLettersSyncCommand.class
    })
final class DeadLettersCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("lakewriter dead-letters: give a subcommand, list, requeue or sync (see --help)");
    return 2;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "Lists journalled dead letters, lowest seq first: seq, tenant, kind, error class,"
              + " status (dead or requeued, with the new seq) and the message.")
  static final class ListCommand implements Callable<Integer> {
    @Mixin ConfigMixin config;

    @Option(
        names = "--tenant",
        paramLabel = "TENANT",
        description =
            "Only this tenant's dead letters; `_invalid` lists those whose tenant id is invalid"
                + " (the lake's _invalid/dead_letter).")
    String tenant;

    @Option(
        names = "--status",
        paramLabel = "STATUS",
        defaultValue = "dead",
        description = "dead (default: not repaired yet), requeued, or all.")
    String status;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "1000",
        description = "At most N dead letters (default ${DEFAULT-VALUE}); the total is reported.")
    int limit;

    @Option(names = "--json", description = "One JSON document, for scripts.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      DeadLetterJournal.Status wanted = parseStatus(status);
      if (limit <= 0) {
        throw new ConfigException("--limit must be positive, not " + limit);
      }
      LakeWriterConfig cfg = config.load();
      DeadLetterJournal journal = new DeadLetterJournal(cfg.get(LakeWriterOptions.POSTGRES_SCHEMA));
      DeadLetterJournal.Filter filter = new DeadLetterJournal.Filter(tenant, wanted, limit);
      List<DeadLetterJournal.Entry> entries;
      long total;
      try (Connection c = Preflight.connect(cfg)) {
        Preflight.requireContractTables(c, cfg, "dead-letters list");
        entries = journal.list(c, filter);
        total = journal.count(c, filter);
      }
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("tenant", tenant);
        doc.put("status", wanted.sqlValue());
        doc.put("total", total);
        List<Map<String, Object>> rows = new ArrayList<>();
        entries.forEach(e -> rows.add(e.toMap()));
        doc.put("dead_letters", rows);
        System.out.println(
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
        return 0;
      }
      System.out.printf(
          "%-10s %-14s %-14s %-20s %-19s %s%n",
          "seq", "tenant", "kind", "error_class", "status", "message");
      for (DeadLetterJournal.Entry e : entries) {
        String state = e.isRequeued() ? "requeued as " + e.requeuedAs() : e.status();
        System.out.printf(
            "%-10d %-14s %-14s %-20s %-19s %s%n",
            e.seq(),
            clip(e.tenantId(), 14),
            clip(e.kind(), 14),
            e.errorClass(),
            state,
            clip(e.message(), 100));
      }
      System.out.println(
          entries.size()
              + " of "
              + total
              + " dead letter(s)"
              + (tenant == null ? "" : " of tenant " + tenant)
              + " with status "
              + wanted.sqlValue()
              + (entries.size() < total ? " (raise --limit to see more)" : ""));
      return 0;
    }

    private static DeadLetterJournal.Status parseStatus(String value) {
      try {
        return DeadLetterJournal.Status.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--status is '" + value + "'; use dead, requeued or all");
      }
    }

    private static String clip(String s, int max) {
      if (s == null) {
        return "-";
      }
      String flat = s.replaceAll("\\s+", " ");
      return flat.length() <= max ? flat : flat.substring(0, max - 1) + "…";
    }
  }

  @Command(
      name = "requeue",
      mixinStandardHelpOptions = true,
      description = {
        "Re-enqueues dead letters: inserts a new outbox row per SEQ that copies the original row"
            + " (the trigger assigns a new seq and tx_id) with requeue_of = SEQ, and marks the"
            + " dead letter requeued, in one PostgreSQL transaction. The original row is never"
            + " edited. All or nothing: an unknown SEQ, one already requeued, or a row that the"
            + " writer would dead-letter again (unless --force) refuses the whole requeue.",
        "With --body-file, the new row's body is the file's bytes (the repaired ciphertext),"
            + " which must hash to the row's ciphertext_digest."
      })
  static final class RequeueCommand implements Callable<Integer> {
    @Mixin ConfigMixin config;

    @Parameters(arity = "1..*", paramLabel = "SEQ", description = "Seq of a dead letter.")
    List<Long> seqs;

    @Option(
        names = "--body-file",
        paramLabel = "FILE",
        description =
            "The repaired body (ciphertext bytes) for the new row; only with one SEQ. Its sha256"
                + " must equal the row's ciphertext_digest.")
    Path bodyFile;

    @Option(
        names = "--force",
        description = "Requeue even a row that the writer would dead-letter again.")
    boolean force;

    @Override
    public Integer call() throws Exception {
      LakeWriterConfig cfg = config.load();
      byte[] body = null;
      if (bodyFile != null) {
        try {
          body = Files.readAllBytes(bodyFile);
        } catch (IOException e) {
          throw new ConfigException("--body-file: cannot read " + bodyFile + ": " + e, e);
        }
      }
      int maxBody =
          (int) Math.min(Integer.MAX_VALUE, cfg.get(LakeWriterOptions.BODY_MAX_BYTES).getBytes());
      DeadLetterRequeue requeue =
          new DeadLetterRequeue(cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), maxBody);
      List<DeadLetterRequeue.Requeued> done;
      try (Connection c = Preflight.connect(cfg)) {
        Preflight.requireContractTables(c, cfg, "dead-letters requeue");
        done = requeue.requeue(c, seqs, body, force);
      }
      for (DeadLetterRequeue.Requeued r : done) {
        System.out.println(
            "requeued seq "
                + r.seq()
                + " ("
                + r.errorClass()
                + ", tenant "
                + r.tenantId()
                + ", kind "
                + r.kind()
                + ") as seq "
                + r.requeuedAs()
                + (r.bodyReplaced() ? ", body from " + bodyFile : ""));
        if (r.warning() != null) {
          System.err.println("lakewriter: warning: " + r.warning());
        }
      }
      return 0;
    }
  }
}
