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
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.demo.BodyEncryption;
import org.oml.lakewriter.verify.DecryptSample;
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
            + " EXTRA_ROW, DUPLICATE_ROW, STATE_MISMATCH, WORKAREA_MISMATCH, DIGEST_MISMATCH,"
            + " ERASED_BODY_PRESENT, ...); and each tenant's gold tables against the gold fold of"
            + " the same events, each at its own txn version (GOLD_LINEAGE_MISMATCH,"
            + " GOLD_WORKAREA_MISSING, GOLD_MEMBERSHIP_EXTRA, GOLD_BEHIND, ...; docs/gold.md)."
            + " --as-of-seq S verifies the lake as of the versions"
            + " that cover S (time travel); --decrypt-sample N opens N silver bodies with the"
            + " demo's keys. Exit code 1 on any finding.")
final class VerifyCommand implements Callable<Integer> {
  @Mixin ConfigMixin config;

  @Option(
      names = "--frontier",
      description = "Verify up to this seq (default: the writer's committed frontier).")
  Long frontier;

  @Option(names = "--json", description = "One JSON document, for scripts.")
  boolean json;

  @Option(
      names = "--as-of-seq",
      paramLabel = "S",
      description =
          "Time travel: read each table at the first version whose txn version is at or above S"
              + " (see `lakewriter history`) and verify up to S against the outbox fold.")
  Long asOfSeq;

  @Option(
      names = "--decrypt-sample",
      paramLabel = "N",
      description =
          "Open N silver bodies (spread over the lake) with the demo's key store and KEK (Tink)"
              + " and check their plaintext digests; an erased row is reported unreadable, as"
              + " expected. Needs --key-dir.")
  Integer decryptSample;

  @Option(
      names = "--key-dir",
      paramLabel = "DIR",
      description = "The directory of the demo KEK (" + BodyEncryption.KEK_FILE_NAME + "), e.g."
          + " the demo's <home>/keys.")
  java.nio.file.Path keyDir;

  @Override
  public Integer call() throws Exception {
    if (frontier != null && frontier < 0) {
      throw new ConfigException(
          "--frontier is " + frontier + "; give a seq, 0 or more (default: the writer's"
              + " committed frontier)");
    }
    checkTimeTravelAndSample();
    LakeWriterConfig cfg = config.load();
    LakeReader lake;
    LakeVerifier.Result result;
    DecryptSample.Result sample = null;
    try (Connection c = Preflight.connect(cfg)) {
      Preflight.requireContractTables(c, cfg, "verify");
      requireLake(cfg);
      lake = LakeReader.open(cfg.lake());
      long upTo = frontier != null ? frontier : committedFrontier(c, cfg.writerId());
      if (asOfSeq != null) {
        lake = lake.asOfSeq(asOfSeq);
        upTo = asOfSeq;
      }
      result = LakeVerifier.verify(c, cfg.get(LakeWriterOptions.POSTGRES_SCHEMA), lake, upTo);
      if (decryptSample != null) {
        sample = DecryptSample.check(c, openKeys(), lake, decryptSample);
      }
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("tables", LakeReport.tables(lake));
      doc.put("verify", LakeReport.verification(result));
      if (asOfSeq != null) {
        doc.put("as_of_seq", asOfSeq);
      }
      if (sample != null) {
        doc.put("decrypt_sample", sampleDoc(sample));
      }
      System.out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc));
    } else {
      if (asOfSeq != null) {
        System.out.println("verify: as of seq " + asOfSeq + " (each table at the version that"
            + " covers it; txn versions below)");
      }
      LakeReport.printTables(LakeReport.tables(lake), System.out);
      LakeReport.printVerification(result, System.out);
      if (sample != null) {
        printSample(sample);
      }
    }
    return result.ok() && (sample == null || sample.ok()) ? 0 : 1;
  }

  private void checkTimeTravelAndSample() {
    if (asOfSeq != null && frontier != null) {
      throw new ConfigException("give --as-of-seq or --frontier, not both");
    }
    if (asOfSeq != null && asOfSeq < 0) {
      throw new ConfigException("--as-of-seq is " + asOfSeq + "; give a seq, 0 or more");
    }
    if (decryptSample != null && decryptSample < 1) {
      throw new ConfigException("--decrypt-sample is " + decryptSample + "; give 1 or more rows");
    }
    if (decryptSample != null && keyDir == null) {
      throw new ConfigException(
          "--decrypt-sample needs --key-dir, the directory of the demo KEK ("
              + BodyEncryption.KEK_FILE_NAME + ")");
    }
  }

  private BodyEncryption openKeys() {
    if (!java.nio.file.Files.isRegularFile(keyDir.resolve(BodyEncryption.KEK_FILE_NAME))) {
      // BodyEncryption.open would create a new KEK, which opens nothing: refuse instead.
      throw new ConfigException(
          "--key-dir " + keyDir + " holds no " + BodyEncryption.KEK_FILE_NAME + ": give the"
              + " directory of the KEK that wrapped the data keys (the demo's <home>/keys)");
    }
    try {
      return BodyEncryption.open(keyDir);
    } catch (java.io.IOException | java.security.GeneralSecurityException e) {
      throw new ConfigException("cannot open the KEK in --key-dir " + keyDir + ": " + e, e);
    }
  }

  private static Map<String, Object> sampleDoc(DecryptSample.Result sample) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("sampled", sample.sampled());
    doc.put("decrypted", sample.decrypted());
    doc.put("erased_unreadable", sample.erasedUnreadable());
    doc.put("ok", sample.ok());
    doc.put("findings", sample.findings().stream().map(Object::toString).toList());
    return doc;
  }

  private static void printSample(DecryptSample.Result sample) {
    System.out.printf(
        "decrypt-sample: %s, %d rows sampled, %d decrypted to their plaintext digest, %d erased"
            + " (unreadable, as expected), %d findings%n",
        sample.ok() ? "OK" : "FAILED", sample.sampled(), sample.decrypted(),
        sample.erasedUnreadable(), sample.findings().size());
    sample.findings().forEach(f -> System.out.println("  " + f));
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
