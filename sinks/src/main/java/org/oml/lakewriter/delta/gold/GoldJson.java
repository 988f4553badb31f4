package org.oml.lakewriter.delta.gold;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.type.TypeReference;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one encoding of {@code gold/lineage}'s two list columns, shared by the streaming writer,
 * {@code verify} and {@code maintain rebuild-gold}, so that their rows are equal byte for byte.
 *
 * <ul>
 *   <li>{@code paths}: a JSON array of strings, {@code ["/a","/b"]}.
 *   <li>{@code retractions}: a JSON array of objects with keys in the order {@code seq}, {@code
 *       kind}, {@code time} (event time in microseconds since the epoch, or null), {@code
 *       [{"seq":12,"kind":"demote","time":1733000000000000}]}.
 * </ul>
 *
 * Compact (no spaces), Jackson's default escaping; an empty list is {@code []}, never null.
 */
public final class GoldJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One entry of {@code retractions}. */
  public record RetractionEntry(long seq, String kind, Long timeMicros) {}

  private GoldJson() {}

  /** Jackson's form of an empty array; most rows' lists are empty, and Jackson costs per row. */
  private static final String EMPTY = "[]";

  public static String paths(List<String> paths) {
    if (paths.isEmpty()) {
      return EMPTY;
    }
    ArrayNode array = JSON.createArrayNode();
    paths.forEach(array::add);
    return write(array);
  }

  public static List<String> parsePaths(String json) {
    try {
      return JSON.readValue(json, new TypeReference<List<String>>() {});
    } catch (IOException e) {
      throw new IllegalArgumentException("gold paths are not a JSON array of strings: " + json, e);
    }
  }

  /** {@code paths} with {@code path} appended unless it is null or already present. */
  public static String appendPath(String pathsJson, String path) {
    List<String> paths = new ArrayList<>(parsePaths(pathsJson));
    if (path == null || paths.contains(path)) {
      return pathsJson;
    }
    paths.add(path);
    return paths(paths);
  }

  public static String retractions(List<RetractionEntry> entries) {
    if (entries.isEmpty()) {
      return EMPTY;
    }
    ArrayNode array = JSON.createArrayNode();
    for (RetractionEntry entry : entries) {
      ObjectNode node = array.addObject();
      node.put("seq", entry.seq());
      node.put("kind", entry.kind());
      if (entry.timeMicros() == null) {
        node.putNull("time");
      } else {
        node.put("time", entry.timeMicros());
      }
    }
    return write(array);
  }

  public static List<RetractionEntry> parseRetractions(String json) {
    try {
      List<RetractionEntry> entries = new ArrayList<>();
      for (JsonNode node : JSON.readTree(json)) {
        JsonNode time = node.get("time");
        entries.add(
            new RetractionEntry(
                node.get("seq").asLong(),
                node.get("kind").asText(),
                time == null || time.isNull() ? null : time.asLong()));
      }
      return entries;
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("gold retractions are not valid: " + json, e);
    }
  }

  /** {@code retractions} with one entry appended. */
  public static String appendRetraction(String retractionsJson, RetractionEntry entry) {
    List<RetractionEntry> entries = new ArrayList<>(parseRetractions(retractionsJson));
    entries.add(entry);
    return retractions(entries);
  }

  private static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
