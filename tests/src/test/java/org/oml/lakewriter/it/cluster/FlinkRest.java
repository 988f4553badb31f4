package org.oml.lakewriter.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The Flink REST API calls a deployment makes, as {@code flink run} and {@code bin/upgrade.sh}
 * make them: {@code /jars/upload}, {@code /jars/{id}/run}, {@code /jobs/{id}/stop} with a
 * savepoint, and the job and TaskManager views.
 */
final class FlinkRest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final String base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  FlinkRest(String base) {
    this.base = base;
  }

  /** A REST call that answered with an error status; {@code body} holds Flink's "errors". */
  static final class RestError extends IOException {
    final int status;
    final String body;

    RestError(String what, int status, String body) {
      super(what + " answered " + status + ": " + body);
      this.status = status;
      this.body = body;
    }
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return send("GET " + path, HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
    return send(
        "POST " + path,
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
  }

  private JsonNode send(String what, HttpRequest.Builder request)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(request.timeout(Duration.ofMinutes(3)).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() >= 300) {
      throw new RestError(what, r.statusCode(), r.body());
    }
    return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
  }

  /** Waits until the REST endpoint answers and {@code n} TaskManagers have registered. */
  void awaitTaskManagers(int n, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (get("/taskmanagers").path("taskmanagers").size() >= n) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("fewer than " + n + " TaskManagers within " + timeout, last);
  }

  /** {@code POST /jars/upload} (multipart, field {@code jarfile}); returns the jar's id. */
  String upload(Path jar) throws IOException, InterruptedException {
    String boundary = "----lakewriter" + UUID.randomUUID();
    String head =
        "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
            + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
    String tail = "\r\n--" + boundary + "--\r\n";
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + "/jars/upload"))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(
                HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofString(head, StandardCharsets.UTF_8),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofString(tail, StandardCharsets.UTF_8)));
    String file = send("POST /jars/upload", request).path("filename").asText();
    return Path.of(file).getFileName().toString();
  }

  /**
   * {@code POST /jars/{id}/run}: the JobManager runs the jar's main (or {@code entryClass}) in a
   * new user class loader and submits the job it builds; returns the job id.
   */
  String run(String jarId, List<String> args, String entryClass, String savepointPath)
      throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode();
    body.putArray("programArgsList").addAll(args.stream().map(JSON.getNodeFactory()::textNode).toList());
    if (entryClass != null) {
      body.put("entryClass", entryClass);
    }
    if (savepointPath != null) {
      body.put("savepointPath", savepointPath);
      body.put("allowNonRestoredState", false);
    }
    return post("/jars/" + jarId + "/run", body).path("jobid").asText();
  }

  String jobState(String jobId) throws IOException, InterruptedException {
    return get("/jobs/" + jobId).path("state").asText();
  }

  /** Waits until the job and every one of its vertices run (tasks deployed, not just scheduled). */
  void awaitRunning(String jobId, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode job = get("/jobs/" + jobId);
      boolean all = job.path("state").asText().equals("RUNNING");
      for (JsonNode v : job.path("vertices")) {
        all &= v.path("status").asText().equals("RUNNING");
      }
      if (all) {
        return;
      }
      String state = job.path("state").asText();
      if (state.equals("FAILED") || state.equals("CANCELED") || state.equals("FINISHED")) {
        throw new AssertionError("job " + jobId + " is " + state + ": " + get("/jobs/" + jobId + "/exceptions"));
      }
      Thread.sleep(250);
    }
    throw new AssertionError("job " + jobId + " not running within " + timeout + ": " + get("/jobs/" + jobId));
  }

  List<String> vertexNames(String jobId) throws IOException, InterruptedException {
    List<String> names = new ArrayList<>();
    get("/jobs/" + jobId).path("vertices").forEach(v -> names.add(v.path("name").asText()));
    return names;
  }

  /** The TaskManagers (by resource id) whose slot is taken. */
  List<String> busyTaskManagers() throws IOException, InterruptedException {
    List<String> busy = new ArrayList<>();
    for (JsonNode tm : get("/taskmanagers").path("taskmanagers")) {
      if (tm.path("freeSlots").asInt() < tm.path("slotsNumber").asInt()) {
        busy.add(tm.path("id").asText());
      }
    }
    return busy;
  }

  long completedCheckpoints(String jobId) throws IOException, InterruptedException {
    return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** {@code POST /jobs/{id}/stop} with a savepoint, polled to its end; returns its location. */
  String stopWithSavepoint(String jobId, String targetDirectory, Duration timeout) throws Exception {
    ObjectNode body = JSON.createObjectNode();
    body.put("targetDirectory", targetDirectory);
    body.put("drain", false);
    String trigger = post("/jobs/" + jobId + "/stop", body).path("request-id").asText();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode r = get("/jobs/" + jobId + "/savepoints/" + trigger);
      if (r.path("status").path("id").asText().equals("COMPLETED")) {
        JsonNode op = r.path("operation");
        if (op.has("failure-cause")) {
          throw new AssertionError("stop-with-savepoint of " + jobId + " failed: " + op);
        }
        return op.path("location").asText();
      }
      Thread.sleep(250);
    }
    throw new AssertionError("stop-with-savepoint of " + jobId + " not done within " + timeout);
  }

  void cancel(String jobId) throws IOException, InterruptedException {
    send(
        "PATCH /jobs/" + jobId,
        HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "?mode=cancel"))
            .method("PATCH", HttpRequest.BodyPublishers.noBody()));
  }
}
