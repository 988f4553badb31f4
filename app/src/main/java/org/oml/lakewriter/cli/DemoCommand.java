package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterJob;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.demo.BodyEncryption;
import org.oml.lakewriter.demo.DemoTraffic;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.verify.LakeVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "The embedded default: starts its own PostgreSQL with logical WAL, applies the outbox"
            + " contract, generates outbox traffic over several tenants (journal events,"
            + " Tink-encrypted promotions, retractions, a long-open transaction, rolled-back"
            + " inserts), runs the lake writer, then prints what landed and checks the lake"
            + " against the outbox. Exit code 1 if the check fails.")
final class DemoCommand implements Callable<Integer> {
  private static final String WRITER = "oml_lakewriter";
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

  @Option(names = "--events", description = "Outbox rows to generate (default: ${DEFAULT-VALUE}).")
  int events = 2000;

  @Option(names = "--tenants", description = "Tenants (default: ${DEFAULT-VALUE}).")
  int tenants = 4;

  @Option(names = "--seed", description = "Seed of the traffic (default: ${DEFAULT-VALUE}).")
  long seed = 1;

  @Option(
      names = "--dir",
      description = "Where the lake, Flink state and the demo key live (default: a new temp dir).")
  Path dir;

  @Option(names = "--json", description = "Print one JSON document instead of tables.")
  boolean json;

  @Option(
      names = "--no-poison",
      description =
          "Leave out the three poison rows (unknown kind, invalid tenant id, digest mismatch)"
              + " that show the dead-letter path.")
  boolean noPoison;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    validateArguments();
    Path home = dir != null ? dir.toAbsolutePath() : Files.createTempDirectory("lakewriter-demo");
    PrintStream out = System.out;
    PrintStream progress = json ? System.err : System.out;
    long started = System.nanoTime();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start()) {
      LakeWriterConfig cfg = config(pg, home);
      int poison = 0;
      try (Connection c = pg.connect()) {
        OutboxContract.apply(
            c, cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), cfg.get(LakeWriterOptions.PUBLICATION));
        if (!noPoison) {
          poison = insertPoisonRows(c);
        }
      }
      Preflight.check(cfg, false, false);
      progress.printf("demo: PostgreSQL on port %d, lake at %s%n", pg.port(), cfg.lakeRoot());

      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.createLocalEnvironment(
              1, LakeWriterJob.flinkConfiguration(cfg, home.resolve("state")));
      LakeWriterJob.configure(env, cfg);
      LakeWriterJob.build(env, cfg);
      JobClient job = env.executeAsync("oml-lakewriter demo");

      DemoTraffic traffic =
          DemoTraffic.forJdbc(
              pg.jdbcUrl(),
              EmbeddedPostgresServer.USER,
              "",
              BodyEncryption.open(home.resolve("keys")),
              DemoTraffic.Options.defaults().withEvents(events).withTenants(tenants).withSeed(seed));
      CompletableFuture<DemoTraffic.Summary> generated =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return traffic.run();
                } catch (Exception e) {
                  throw new IllegalStateException("traffic generation failed", e);
                }
              });
      DemoTraffic.Summary summary = drain(pg, generated, home.resolve("lake"), progress);
      job.cancel().get();

      LakeReader lake = LakeReader.open(cfg.lake());
      LakeVerifier.Result result;
      try (Connection c = pg.connect()) {
        result = LakeVerifier.verify(c, "public", lake, summary.maxSeq());
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      if (json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("traffic", traffic(summary));
        doc.put("poison_rows", poison);
        doc.put("tables", LakeReport.tables(lake));
        doc.put("verify", LakeReport.verification(result));
        doc.put("elapsed_s", seconds);
        out.println(
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
      } else {
        out.println();
        out.print(summary.describe());
        out.printf("plus %d poison rows, which must end up as dead letters%n", poison);
        out.println();
        LakeReport.printTables(LakeReport.tables(lake), out);
        out.println();
        LakeReport.printVerification(result, out);
        out.printf("demo finished in %.1f s; the lake is in %s%n", seconds, home.resolve("lake"));
      }
      return result.ok() ? 0 : 1;
    }
  }

  /**
   * Refuses arguments that cannot make a demo before anything starts (PostgreSQL, the job): picocli
   * prints the message and the usage, and the exit code is 2, as for any other bad argument.
   */
  private void validateArguments() {
    if (events < 1) {
      throw new ParameterException(
          spec.commandLine(), "--events must be at least 1, not " + events);
    }
    if (tenants < 1) {
      throw new ParameterException(
          spec.commandLine(), "--tenants must be at least 1, not " + tenants);
    }
  }

  /**
   * Rows the writer must dead-letter, never skip: an unknown kind, an invalid tenant id (it lands
   * under {@code _invalid/}) and a promotion whose body does not hash to its digest.
   */
  private static int insertPoisonRows(Connection c) throws java.sql.SQLException {
    String[] rows = {
      "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('acme', 'bogus', '{}')",
      "INSERT INTO oml_outbox (tenant_id, kind, envelope) VALUES ('Not A Tenant!', 'journal',"
          + " '{}')",
      "INSERT INTO oml_outbox (tenant_id, kind, artifact_id, artifact_version, workarea_id,"
          + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
          + " ciphertext_digest, body, data_key_id) VALUES ('globex', 'materialize', 'tampered',"
          + " 1, 'wa-1', 'alice', 'alice@globex', 'bob', 'human', 'p', repeat('0', 64),"
          + " 'not the ciphertext', 'dek-x')"
    };
    try (var st = c.createStatement()) {
      for (String row : rows) {
        st.execute(row);
      }
    }
    return rows.length;
  }

  private static Map<String, Object> traffic(DemoTraffic.Summary s) {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("committed_rows", s.committedRows());
    t.put("committed_by_tenant_and_kind", s.committedByTenantAndKind());
    t.put("rolled_back_rows", s.rolledBackRows());
    t.put("max_seq", s.maxSeq());
    t.put("long_open_seq", s.longOpenSeq());
    t.put("committed_while_long_open", s.committedWhileLongOpen());
    t.put("elapsed_s", s.elapsed().toMillis() / 1000.0);
    return t;
  }

  private static LakeWriterConfig config(EmbeddedPostgresServer pg, Path home) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put(LakeWriterOptions.POSTGRES_URL.key(), pg.jdbcUrl());
    options.put(LakeWriterOptions.POSTGRES_USER.key(), EmbeddedPostgresServer.USER);
    options.put(LakeWriterOptions.WRITER_ID.key(), WRITER);
    options.put(LakeWriterOptions.LAKE_ROOT.key(), home.resolve("lake").toString());
    options.put(LakeWriterOptions.STATE_DIR.key(), home.resolve("state").toString());
    options.put(LakeWriterOptions.CHECKPOINT_INTERVAL.key(), "1s");
    options.put(LakeWriterOptions.TICK_PERIOD.key(), "200ms");
    options.put(LakeWriterOptions.BATCH_MAX_ROWS.key(), "1000");
    return LakeWriterConfig.of(options, name -> "");
  }

  /** Prints a progress line a second until the traffic is done and the frontier has passed it. */
  private static DemoTraffic.Summary drain(
      EmbeddedPostgresServer pg,
      CompletableFuture<DemoTraffic.Summary> generated,
      Path lake,
      PrintStream progress)
      throws Exception {
    long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      Thread.sleep(1000);
      long outboxRows;
      long head;
      long frontier;
      try (Connection c = pg.connect()) {
        outboxRows = VerifyCommand.scalar(c, "SELECT count(*) FROM oml_outbox");
        head = VerifyCommand.scalar(c, "SELECT coalesce(max(seq), 0) FROM oml_outbox");
        frontier = VerifyCommand.committedFrontier(c, WRITER);
      }
      progress.printf(
          "outbox rows %6d | head %6d | frontier %6d | lag %6d seqs | delta commits %5d%n",
          outboxRows, head, frontier, Math.max(0, head - frontier), deltaCommits(lake));
      if (generated.isDone() && frontier >= generated.join().maxSeq()) {
        return generated.join();
      }
    }
    throw new IllegalStateException(
        "the lake did not catch up with the outbox within " + DRAIN_TIMEOUT);
  }

  /**
   * Commits so far: the JSON log entries of every table (a local lake). The writer's temporary
   * files come and go while the lake is walked; a walk that trips over one is simply repeated.
   */
  private static long deltaCommits(Path lake) throws IOException {
    if (!Files.isDirectory(lake)) {
      return 0;
    }
    for (int attempt = 1; ; attempt++) {
      try (Stream<Path> files = Files.walk(lake)) {
        return files
            .filter(p -> p.getParent() != null && p.getParent().endsWith("_delta_log"))
            .filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
            .count();
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof NoSuchFileException) || attempt == 5) {
          throw e;
        }
      }
    }
  }
}
