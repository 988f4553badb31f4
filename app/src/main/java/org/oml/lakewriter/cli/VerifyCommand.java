package org.oml.lakewriter.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.LakeWriterOptions;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.verify.LakeVerifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description =
        "Checks the lake against the outbox: up to the frontier, every row exactly once in its"
            + " tenant's bronze or dead-letter table; and each tenant's silver, key by key (state,"
            + " workarea, digests, seq, attribution), against a fold of its outbox up to the silver"
            + " table's own txn version, dead letters left out. Each finding is named (MISSING_ROW,"
            + " EXTRA_ROW, DUPLICATE_ROW, STATE_MISMATCH, WORKAREA_MISMATCH, DIGEST_MISMATCH, ...)."
            + " Exit code 1 on any finding.")
final class VerifyCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(
      names = "--frontier",
      description = "Verify up to this seq (default: the writer's committed frontier).")
  Long frontier;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    if (frontier != null && frontier < 0) {
      throw new ConfigException(
          "--frontier is " + frontier + "; give a seq, 0 or more (default: the writer's"
              + " committed frontier)");
    }
    LakeWriterConfig cfg = config.load();
    LakeReader lake;
    LakeVerifier.Result result;
    try (Connection c = Preflight.connect(cfg)) {
      Preflight.requireContractTables(c, cfg, "verify");
      requireLake(cfg);
      lake = LakeReader.open(new LakeConfig(cfg.lakeRoot(), cfg.hadoopProperties()));
      long upTo = frontier != null ? frontier : committedFrontier(c, cfg.writerId());
      result = LakeVerifier.verify(c, cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), lake, upTo);
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("tables", LakeReport.tables(lake));
      doc.put("verify", LakeReport.verification(result));
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
    } else {
      LakeReport.printTables(LakeReport.tables(lake), System.out);
      LakeReport.printVerification(result, System.out);
    }
    return result.ok() ? 0 : 1;
  }

  /**
   * A lake root that does not exist is a wrong {@code lake.root} (or a writer that never ran), not
   * a lake missing every row: say so rather than list each seq as {@code MISSING_ROW}.
   */
  private static void requireLake(LakeWriterConfig cfg) {
    String root = cfg.lakeRoot();
    org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration();
    cfg.hadoopProperties().forEach(hadoop::set);
    boolean exists;
    try {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(java.net.URI.create(root));
      exists = path.getFileSystem(hadoop).exists(path);
    } catch (java.io.IOException | RuntimeException e) {
      throw new ConfigException(
          "cannot read the lake at " + LakeWriterOptions.LAKE_ROOT.key() + " = " + root + ": "
              + e, e);
    }
    if (!exists) {
      throw new ConfigException(
          "no lake at " + LakeWriterOptions.LAKE_ROOT.key() + " = " + root + ": the directory"
              + " does not exist. Check lake.root (it must be the writer's), or start the writer"
              + " (`lakewriter run`) so that it creates the lake.");
    }
  }

  static long scalar(Connection c, String sql) throws java.sql.SQLException {
    try (var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static long committedFrontier(Connection c, String writerId) throws java.sql.SQLException {
    try (var ps = c.prepareStatement("SELECT frontier_seq FROM oml_lake_frontier WHERE writer_id = ?")) {
      ps.setString(1, writerId);
      try (var rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }
}
