package org.oml.lakewriter.delta.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * What another engine's compaction does to a table behind the writer's back: one commit of its own,
 * without our txn, that replaces a live data file by a byte-for-byte copy ({@code dataChange =
 * false}). Written as a plain JSON commit file, as any Delta writer would, without Kernel.
 */
public final class OutOfBandCompaction {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OutOfBandCompaction() {}

  /** Replaces {@code relativePath} by a copy; returns the copy's path. */
  public static String replace(Path tableDir, String relativePath) throws IOException {
    return replace(tableDir, relativePath, false);
  }

  /**
   * Replaces {@code relativePath} by a copy, its actions flagged with {@code dataChange} (true: as a
   * foreign engine's data change, e.g. a repair, would be, although the rows are the same); returns
   * the copy's path.
   */
  public static String replace(Path tableDir, String relativePath, boolean dataChange)
      throws IOException {
    Path log = tableDir.resolve("_delta_log");
    List<Path> commits;
    try (Stream<Path> files = Files.list(log)) {
      commits =
          files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
    }
    JsonNode add = null;
    for (Path commit : commits) {
      for (String line : Files.readAllLines(commit, StandardCharsets.UTF_8)) {
        JsonNode action = JSON.readTree(line);
        if (action.has("add") && action.get("add").get("path").asText().equals(relativePath)) {
          add = action.get("add");
        }
      }
    }
    if (add == null) {
      throw new IllegalArgumentException("no add action for " + relativePath);
    }
    String copy = "compacted-" + UUID.randomUUID() + ".parquet";
    Files.copy(tableDir.resolve(relativePath), tableDir.resolve(copy));
    long now = System.currentTimeMillis();
    ObjectNode remove = JSON.createObjectNode();
    remove.put("path", relativePath);
    remove.put("deletionTimestamp", now);
    remove.put("dataChange", dataChange);
    remove.put("extendedFileMetadata", true);
    remove.set("partitionValues", JSON.createObjectNode());
    remove.put("size", add.get("size").asLong());
    ObjectNode newAdd = ((ObjectNode) add).deepCopy();
    newAdd.put("path", copy);
    newAdd.put("dataChange", dataChange);
    newAdd.put("modificationTime", Files.getLastModifiedTime(tableDir.resolve(copy)).toMillis());
    ObjectNode commitInfo = JSON.createObjectNode();
    commitInfo.put("timestamp", now);
    commitInfo.put("operation", dataChange ? "WRITE" : "OPTIMIZE");
    commitInfo.put("isBlindAppend", false);
    String name = commits.get(commits.size() - 1).getFileName().toString();
    long next = Long.parseLong(name.substring(0, 20)) + 1;
    Files.writeString(
        log.resolve(String.format("%020d.json", next)),
        line("commitInfo", commitInfo) + line("remove", remove) + line("add", newAdd),
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE_NEW);
    return copy;
  }

  private static String line(String action, JsonNode value) throws IOException {
    ObjectNode node = JSON.createObjectNode();
    node.set(action, value);
    return JSON.writeValueAsString(node) + "\n";
  }
}
