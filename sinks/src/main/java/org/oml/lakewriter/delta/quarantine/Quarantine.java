package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.oml.lakewriter.delta.TableUnusableException;

/**
 * The durable quarantine of one tenant (a table prefix: a tenant id, or {@code _invalid}): none of
 * its tables takes a file or a commit until the tenant is replayed from the outbox. Stored in the
 * lake ({@link QuarantineStore}), which is the authority for recovery.
 *
 * <p>Invariant ({@code resumeAfter}): every outbox row of the tenant at or below {@code
 * resumeAfter} is in the tenant's tables, or in a committable that the committer will not skip.
 * Whoever skips a tenant's rows of a batch {@code (frontier, batchEnd]} first lowers {@code
 * resumeAfter} to at most {@code frontier}, durably ({@link #covering}). So a replay of {@code
 * (resumeAfter, frontier]} from the outbox, filtered per table by its txn version, applies every
 * row that was skipped, exactly once.
 *
 * <p>{@code replay}, when set, says that writer instance {@code replay.writer} re-read the tenant
 * over {@code (replay.from, ...]} into its batch ending at {@code replay.batchEnd}: the committer
 * commits the tenant's tables from that batch on ({@link #admits}) and deletes the record once that
 * batch committed.
 *
 * @param tenant the table prefix held
 * @param table the table that failed, e.g. {@code acme/silver/memories}
 * @param action {@link Action#REPLAN} heals itself; {@link Action#OPERATOR} waits for {@code
 *     lakewriter quarantine release}
 * @param replans how many automatic re-plans in a row failed (0 for operator failures)
 * @param released an operator released the record: replay it whatever its action
 * @param txnVersions the txn version of each of the tenant's tables when it was held: its frontier
 */
public record Quarantine(
    String tenant,
    String table,
    Action action,
    String reason,
    String batch,
    Instant since,
    long resumeAfter,
    Map<String, Long> txnVersions,
    int replans,
    boolean released,
    Replay replay) {

  /** The JSON layout's version; a reader refuses a newer one rather than misread it. */
  public static final int FORMAT = 1;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What releases a quarantine. */
  public enum Action {
    /** The batch's plan no longer matches the table: the writer re-plans it by itself. */
    REPLAN,
    /** The table needs an operator (schema, deletion vectors, not a Delta table...). */
    OPERATOR
  }

  /** A replay in flight: which writer instance, from which seq, into which batch. */
  public record Replay(String writer, long from, long batchEnd) {
    public Replay {
      Objects.requireNonNull(writer, "writer");
    }
  }

  public Quarantine {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(since, "since");
    txnVersions = java.util.Collections.unmodifiableMap(new TreeMap<>(txnVersions));
  }

  /**
   * The record after a table of the tenant failed for good in batch {@code (frontier, ...]}: held
   * again (any replay is cancelled), its resume point at most {@code frontier}. A replannable failure
   * is automatic until it failed {@code maxReplans} times in a row.
   *
   * @param prior the tenant's record, or null
   */
  public static Quarantine failed(
      Quarantine prior,
      TableUnusableException failure,
      String batchName,
      long frontier,
      Map<String, Long> txnVersions,
      Instant now,
      int maxReplans) {
    long resume = prior == null ? frontier : Math.min(prior.resumeAfter, frontier);
    Action action = failure.replannable() ? Action.REPLAN : Action.OPERATOR;
    int replans = 0;
    String reason = failure.getMessage();
    if (action == Action.REPLAN) {
      replans = prior != null && prior.action == Action.REPLAN ? prior.replans + 1 : 1;
      if (replans > maxReplans) {
        action = Action.OPERATOR;
        reason =
            "re-planned automatically "
                + maxReplans
                + " times in a row (sink.quarantine.max-replans) and it still failed; last: "
                + reason;
      }
    }
    return new Quarantine(
        failure.table().prefix(),
        failure.table().relativePath(),
        action,
        reason,
        batchName,
        now,
        resume,
        txnVersions,
        replans,
        false,
        null);
  }

  /** Whether the writer may replay the tenant now (automatically, or because it was released). */
  public boolean replayable() {
    return released || action == Action.REPLAN;
  }

  /** Whether the committer commits the tenant's tables of the batch ending at {@code batchEnd}. */
  public boolean admits(long batchEnd) {
    return replay != null && batchEnd >= replay.batchEnd;
  }

  /**
   * This record, changed so that skipping the tenant's rows of a batch starting after {@code
   * frontier} loses none of them: its resume point lowered, or a replay that started above {@code
   * frontier} cancelled (it did not read those rows). Returns {@code this} if nothing changes.
   */
  public Quarantine covering(long frontier) {
    if (replay != null && replay.from > frontier) {
      return with(Math.min(resumeAfter, frontier), replans, released, null);
    }
    if (replay == null && resumeAfter > frontier) {
      return with(frontier, replans, released, null);
    }
    return this;
  }

  /** This record with a replay of {@code (resumeAfter, ...]} by {@code writer} into a batch. */
  public Quarantine replaying(String writer, long batchEnd) {
    return with(resumeAfter, replans, released, new Replay(writer, resumeAfter, batchEnd));
  }

  /** Released by an operator: the writer replays the tenant at its next batch. */
  public Quarantine releasedByOperator() {
    return with(resumeAfter, 0, true, null);
  }

  private Quarantine with(long resume, int replanCount, boolean isReleased, Replay newReplay) {
    return new Quarantine(
        tenant,
        table,
        action,
        reason,
        batch,
        since,
        resume,
        txnVersions,
        replanCount,
        isReleased,
        newReplay);
  }

  /** One line for logs and {@code status}. */
  public String summary() {
    return tenant
        + ": "
        + table
        + " "
        + (released ? "released" : action == Action.REPLAN ? "re-planning" : "needs an operator")
        + (replay == null ? "" : " (replaying into batch ending " + replay.batchEnd + ")")
        + " since "
        + since
        + ", batch "
        + batch
        + ", resume after seq "
        + resumeAfter
        + ", txn versions "
        + txnVersions
        + ": "
        + reason;
  }

  // ---- JSON ----

  public byte[] toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("tenant", tenant);
    node.put("table", table);
    node.put("action", action.name());
    node.put("reason", reason);
    node.put("batch", batch);
    node.put("since", since.toString());
    node.put("resumeAfter", resumeAfter);
    ObjectNode versions = node.putObject("txnVersions");
    txnVersions.forEach(versions::put);
    node.put("replans", replans);
    node.put("released", released);
    if (replay != null) {
      ObjectNode r = node.putObject("replay");
      r.put("writer", replay.writer);
      r.put("from", replay.from);
      r.put("batchEnd", replay.batchEnd);
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  public static Quarantine fromJson(byte[] bytes, String where) throws IOException {
    JsonNode node;
    try {
      node = JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IOException("quarantine record " + where + " is not JSON: " + e.getMessage(), e);
    }
    int format = node.path("format").asInt(-1);
    if (format < 1 || format > FORMAT) {
      throw new IOException(
          "quarantine record "
              + where
              + " has format "
              + format
              + "; this release reads 1.."
              + FORMAT
              + " (a newer writer wrote it: upgrade this one)");
    }
    Map<String, Long> versions = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.path("txnVersions").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      versions.put(e.getKey(), e.getValue().asLong());
    }
    JsonNode r = node.get("replay");
    Replay replay =
        r == null || r.isNull()
            ? null
            : new Replay(r.get("writer").asText(), r.get("from").asLong(), r.get("batchEnd").asLong());
    try {
      return new Quarantine(
          node.get("tenant").asText(),
          node.get("table").asText(),
          Action.valueOf(node.get("action").asText()),
          node.get("reason").asText(),
          node.get("batch").asText(),
          Instant.parse(node.get("since").asText()),
          node.get("resumeAfter").asLong(),
          versions,
          node.path("replans").asInt(0),
          node.path("released").asBoolean(false),
          replay);
    } catch (RuntimeException e) {
      throw new IOException("quarantine record " + where + " is incomplete: " + e, e);
    }
  }
}
