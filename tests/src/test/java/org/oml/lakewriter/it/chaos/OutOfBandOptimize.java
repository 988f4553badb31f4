package org.oml.lakewriter.it.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Another engine's OPTIMIZE of a live table, behind the writer's back: one commit of its own,
 * without our txn, that replaces every live data file by a copy ({@code dataChange = false}). It
 * is written as a plain JSON commit with create-new semantics, as any Delta writer would, and it
 * retries when the writer took the version first.
 */
final class OutOfBandOptimize {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OutOfBandOptimize() {}

  /** Returns the number of files replaced. */
  static int compactAll(Path tableDir) throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      Path log = tableDir.resolve("_delta_log");
      List<Path> commits;
      try (Stream<Path> files = Files.list(log)) {
        commits =
            files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
      }
      Map<String, JsonNode> live = new LinkedHashMap<>();
      for (Path commit : commits) {
        for (String line : Files.readAllLines(commit, StandardCharsets.UTF_8)) {
          JsonNode action = JSON.readTree(line);
          if (action.has("add")) {
            live.put(action.get("add").get("path").asText(), action.get("add"));
          } else if (action.has("remove")) {
            live.remove(action.get("remove").get("path").asText());
          }
        }
      }
      StringBuilder commit = new StringBuilder();
      long now = System.currentTimeMillis();
      ObjectNode info = JSON.createObjectNode();
      info.put("timestamp", now);
      info.put("operation", "OPTIMIZE");
      info.put("isBlindAppend", false);
      commit.append(line("commitInfo", info));
      for (Map.Entry<String, JsonNode> file : live.entrySet()) {
        String copy = "optimized-" + UUID.randomUUID() + ".parquet";
        Files.copy(tableDir.resolve(file.getKey()), tableDir.resolve(copy));
        ObjectNode remove = JSON.createObjectNode();
        remove.put("path", file.getKey());
        remove.put("deletionTimestamp", now);
        remove.put("dataChange", false);
        remove.put("extendedFileMetadata", true);
        remove.set("partitionValues", JSON.createObjectNode());
        remove.put("size", file.getValue().get("size").asLong());
        ObjectNode add = ((ObjectNode) file.getValue()).deepCopy();
        add.put("path", copy);
        add.put("dataChange", false);
        add.put("modificationTime", now);
        commit.append(line("remove", remove)).append(line("add", add));
      }
      String last = commits.get(commits.size() - 1).getFileName().toString();
      long next = Long.parseLong(last.substring(0, 20)) + 1;
      // Put-if-absent, as the writer's own log store does: a whole temp file, then a hard link.
      Path temp = log.resolve("." + UUID.randomUUID() + ".tmp");
      Files.writeString(temp, commit, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      try {
        Files.createLink(log.resolve(String.format("%020d.json", next)), temp);
        return live.size();
      } catch (FileAlreadyExistsException raced) {
        // The writer committed this version first; plan again on the newer table.
      } finally {
        Files.delete(temp);
      }
    }
    throw new IllegalStateException("OPTIMIZE of " + tableDir + " lost 50 races in a row");
  }

  private static String line(String action, JsonNode value) throws IOException {
    ObjectNode node = JSON.createObjectNode();
    node.set(action, value);
    return JSON.writeValueAsString(node) + "\n";
  }
}
