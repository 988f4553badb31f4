package org.oml.lakewriter.it.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The invariants of issue 13's soak that only the Delta log shows, read from the log's own JSON
 * files (not through the writer's code, nor Kernel's snapshot):
 *
 * <ul>
 *   <li>a table's {@code txn(oml-lakewriter)} versions only rise, commit after commit;
 *   <li>no data file path is added twice;
 *   <li>no row behind a frontier: in an append-only table (bronze, dead letters) every file a
 *       commit adds holds only seqs above the txn version the table had before it (read from the
 *       file's statistics).
 * </ul>
 */
final class LakeLogInvariants {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String APP_ID = "oml-lakewriter";

  private LakeLogInvariants() {}

  /** What was checked, and the violations found. */
  record Result(int tables, int commits, int addedFiles, List<String> violations) {}

  static Result check(Path lakeRoot) throws IOException {
    List<Path> tables;
    try (Stream<Path> dirs = Files.walk(lakeRoot)) {
      tables =
          dirs.filter(p -> p.getFileName().toString().equals("_delta_log"))
              .map(Path::getParent)
              .sorted()
              .toList();
    }
    List<String> violations = new ArrayList<>();
    int commits = 0;
    int added = 0;
    for (Path table : tables) {
      String name = lakeRoot.relativize(table).toString();
      boolean appendOnly = name.endsWith("bronze/journal_events") || name.endsWith("dead_letter");
      List<Path> versions;
      try (Stream<Path> files = Files.list(table.resolve("_delta_log"))) {
        versions =
            files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
      }
      long lastTxn = Long.MIN_VALUE;
      Set<String> paths = new HashSet<>();
      for (Path version : versions) {
        commits++;
        Long txn = null;
        List<JsonNode> adds = new ArrayList<>();
        for (String line : Files.readAllLines(version, StandardCharsets.UTF_8)) {
          JsonNode action = JSON.readTree(line);
          if (action.has("txn") && APP_ID.equals(action.get("txn").path("appId").asText())) {
            txn = action.get("txn").get("version").asLong();
          }
          if (action.has("add")) {
            adds.add(action.get("add"));
          }
        }
        String at = name + " v" + Long.parseLong(version.getFileName().toString().substring(0, 20));
        for (JsonNode add : adds) {
          added++;
          if (!paths.add(add.get("path").asText())) {
            violations.add(at + ": file " + add.get("path").asText() + " added twice");
          }
          if (appendOnly && txn != null && lastTxn != Long.MIN_VALUE
              && add.path("dataChange").asBoolean(true)) {
            long minSeq = minSeq(add);
            if (minSeq != Long.MIN_VALUE && minSeq <= lastTxn) {
              violations.add(
                  at + ": adds seq " + minSeq + ", behind the frontier " + lastTxn
                      + " the table already had");
            }
          }
        }
        if (txn != null) {
          if (txn <= lastTxn) {
            violations.add(at + ": txn version " + txn + " after " + lastTxn + " (not rising)");
          }
          lastTxn = Math.max(lastTxn, txn);
        }
      }
    }
    return new Result(tables.size(), commits, added, violations);
  }

  private static long minSeq(JsonNode add) throws IOException {
    JsonNode stats = add.get("stats");
    if (stats == null || stats.isNull()) {
      return Long.MIN_VALUE;
    }
    JsonNode seq = JSON.readTree(stats.asText()).path("minValues").path("seq");
    return seq.isMissingNode() ? Long.MIN_VALUE : seq.asLong();
  }
}
