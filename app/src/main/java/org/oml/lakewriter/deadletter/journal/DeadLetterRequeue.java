package org.oml.lakewriter.deadletter.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.oml.lakewriter.cdc.OutboxRowParser;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.writer.EventRouter;
import org.oml.lakewriter.delta.writer.Route;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.validate.EventValidator;

/**
 * Repair of a dead letter by re-enqueue (ADR-0003 d6): a new outbox row, never an edit.
 *
 * <p>For each seq, in one PostgreSQL transaction for all of them:
 *
 * <ol>
 *   <li>the journal record is locked ({@code FOR UPDATE}); an unknown seq, or one already requeued,
 *       refuses the whole requeue;
 *   <li>a new row is inserted into the outbox, copying every column of the original outbox row
 *       except {@code seq} and {@code tx_id} (the trigger assigns them) and {@code requeue_of},
 *       which is set to the original seq; with a repaired body, the body is replaced, and the
 *       original {@code ciphertext_digest} must be the sha256 of the repaired body;
 *   <li>the new row is checked the way the lake writer will check it (its validator, then its
 *       router): a row that would be dead-lettered again refuses the requeue unless forced;
 *   <li>the journal record becomes {@code requeued}, with {@code requeued_as}, {@code requeued_at}
 *       and {@code requeued_by}.
 * </ol>
 *
 * <p>The original outbox row and its dead letter in the lake stay as they are: the lake then holds
 * both the skip (in {@code dead_letter}) and the repair (in bronze, with {@code requeue_of}).
 */
public final class DeadLetterRequeue {
  /** A requeue that was refused; nothing was changed. */
  public static final class RefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RefusedException(String message) {
      super(message);
    }
  }

  /** One re-enqueued dead letter. */
  public record Requeued(
      long seq,
      long requeuedAs,
      String tenantId,
      String kind,
      String errorClass,
      boolean bodyReplaced,
      String warning) {}

  private static final Set<String> ASSIGNED = Set.of("seq", "tx_id", "requeue_of");

  private final String schema;
  private final DeadLetterJournal journal;
  private final EventValidator validator;

  /**
   * @param schema the schema of the outbox contract ({@code postgres.schema})
   * @param maxBodyBytes the writer's {@code body.max-bytes}, to check the new row like it will
   */
  public DeadLetterRequeue(String schema, int maxBodyBytes) {
    this.schema = OutboxContract.requireIdentifier("schema", schema);
    this.journal = new DeadLetterJournal(schema);
    this.validator = new EventValidator(maxBodyBytes);
  }

  /**
   * Re-enqueues the dead letters, all or none.
   *
   * @param repairedBody the body for the new row, or {@code null} to copy the original's; only with
   *     exactly one seq
   * @param force requeue even a row that the writer would dead-letter again (the result then
   *     carries a warning)
   * @throws RefusedException naming every seq that cannot be requeued and why; nothing changed
   */
  public List<Requeued> requeue(
      Connection c, Collection<Long> seqs, byte[] repairedBody, boolean force) throws SQLException {
    Set<Long> wanted = new LinkedHashSet<>(seqs);
    if (wanted.isEmpty()) {
      throw new RefusedException("no seq to requeue");
    }
    if (repairedBody != null && wanted.size() != 1) {
      throw new RefusedException(
          "a repaired body replaces the body of one row; give exactly one SEQ, not " + wanted);
    }
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      List<Requeued> done = requeueIn(c, wanted, repairedBody, force);
      c.commit();
      return done;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  private List<Requeued> requeueIn(
      Connection c, Set<Long> wanted, byte[] repairedBody, boolean force) throws SQLException {
    Map<Long, String[]> records = lockRecords(c, wanted);
    List<String> problems = new ArrayList<>();
    for (long seq : wanted) {
      String[] record = records.get(seq);
      if (record == null) {
        problems.add("seq " + seq + " is not a dead letter in " + journal.table());
      } else if ("requeued".equals(record[0])) {
        problems.add(
            "seq "
                + seq
                + " is already requeued, as seq "
                + record[1]
                + " (requeue that row if it is a dead letter too)");
      }
    }
    refuseIf(problems);
    List<String> copied = copiedColumns(c, repairedBody != null);
    List<Requeued> done = new ArrayList<>();
    for (long seq : wanted) {
      OutboxEvent original = outboxRow(c, seq);
      if (original == null) {
        problems.add("seq " + seq + " is no longer in " + schema + ".oml_outbox: nothing to copy");
        continue;
      }
      if (repairedBody != null) {
        String problem = checkRepairedBody(original, repairedBody);
        if (problem != null) {
          problems.add("seq " + seq + ": " + problem);
          continue;
        }
      }
      long newSeq = insertCopy(c, seq, copied, repairedBody);
      RowError again = predictedError(outboxRow(c, newSeq));
      String warning = null;
      if (again != null) {
        String reason = again.errorClass() + ": " + again.message();
        if (!force) {
          problems.add(
              "seq "
                  + seq
                  + " would be dead-lettered again, "
                  + reason
                  + " (repair: "
                  + RequeueRepair.of(again.errorClass()).how()
                  + "; --force requeues it anyway)");
          continue;
        }
        warning =
            "seq " + seq + " requeued as seq " + newSeq + " will be dead-lettered again, " + reason
                + " (repair: " + RequeueRepair.of(again.errorClass()).how() + ")";
      }
      markRequeued(c, seq, newSeq);
      String[] record = records.get(seq);
      done.add(
          new Requeued(
              seq,
              newSeq,
              original.tenantId(),
              original.kind(),
              record[2],
              repairedBody != null,
              warning));
    }
    refuseIf(problems);
    return done;
  }

  private static void refuseIf(List<String> problems) {
    if (!problems.isEmpty()) {
      throw new RefusedException(
          "requeue refused, nothing changed:\n  - " + String.join("\n  - ", problems));
    }
  }

  /** status, requeued_as, error_class per seq, locked for this transaction. */
  private Map<Long, String[]> lockRecords(Connection c, Set<Long> seqs) throws SQLException {
    Map<Long, String[]> records = new LinkedHashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, status, requeued_as, error_class FROM "
                + journal.table()
                + " WHERE seq = ANY (?) ORDER BY seq FOR UPDATE")) {
      ps.setArray(1, c.createArrayOf("int8", seqs.toArray(Long[]::new)));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          records.put(
              rs.getLong(1), new String[] {rs.getString(2), rs.getString(3), rs.getString(4)});
        }
      }
    }
    return records;
  }

  /**
   * The repaired body must be the one the authority journalled: its sha256 must equal the row's
   * {@code ciphertext_digest} (hex, as the validator compares it, ignoring case). Whether the sink
   * then admits it is checked with the rest of the row ({@link #predictedError}).
   */
  private static String checkRepairedBody(OutboxEvent original, byte[] body) {
    String digest = original.ciphertextDigest();
    if (digest == null) {
      return "the row has no ciphertext_digest to check a repaired body against (kind '"
          + original.kind()
          + "')";
    }
    String actual = EventValidator.sha256Hex(body);
    if (actual.equalsIgnoreCase(digest)) {
      return null;
    }
    return "the repaired body does not match the row's ciphertext_digest: sha256(body) is "
        + actual
        + " ("
        + body.length
        + " bytes) but ciphertext_digest is "
        + digest
        + "; refusing to enqueue a body that the journal did not vouch for";
  }

  /** The outbox columns a requeue copies, in table order. */
  private List<String> copiedColumns(Connection c, boolean replaceBody) throws SQLException {
    List<String> columns = new ArrayList<>();
    Set<String> all = new HashSet<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT column_name, is_generated, is_identity FROM information_schema.columns"
                + " WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position")) {
      ps.setString(1, schema);
      ps.setString(2, OutboxContract.OUTBOX_TABLE);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          all.add(name);
          boolean generated = !"NEVER".equals(rs.getString(2)) || "YES".equals(rs.getString(3));
          if (!generated && !ASSIGNED.contains(name) && !(replaceBody && name.equals("body"))) {
            columns.add(name);
          }
        }
      }
    }
    if (!all.contains("requeue_of")) {
      throw new RefusedException(
          schema + ".oml_outbox has no requeue_of column: run `lakewriter init-db`");
    }
    if (replaceBody && !all.contains("body")) {
      throw new RefusedException(schema + ".oml_outbox has no body column");
    }
    return columns;
  }

  private long insertCopy(Connection c, long seq, List<String> columns, byte[] body)
      throws SQLException {
    StringBuilder target = new StringBuilder();
    StringBuilder source = new StringBuilder();
    for (String column : columns) {
      target.append(quote(column)).append(", ");
      source.append("o.").append(quote(column)).append(", ");
    }
    target.append("requeue_of");
    source.append("?::bigint");
    if (body != null) {
      target.append(", body");
      source.append(", ?::bytea");
    }
    String outbox = schema + "." + OutboxContract.OUTBOX_TABLE;
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + outbox
                + " ("
                + target
                + ") SELECT "
                + source
                + " FROM "
                + outbox
                + " o WHERE o.seq = ? RETURNING seq")) {
      int i = 1;
      ps.setLong(i++, seq);
      if (body != null) {
        ps.setBytes(i++, body);
      }
      ps.setLong(i, seq);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new RefusedException("seq " + seq + " vanished from " + outbox + " while copying");
        }
        return rs.getLong(1);
      }
    }
  }

  private void markRequeued(Connection c, long seq, long newSeq) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + journal.table()
                + " SET status = 'requeued', requeued_as = ?,"
                + " requeued_at = now(), requeued_by = session_user"
                + " WHERE seq = ? AND status = 'dead'")) {
      ps.setLong(1, newSeq);
      ps.setLong(2, seq);
      if (ps.executeUpdate() != 1) {
        throw new RefusedException("seq " + seq + " changed while being requeued");
      }
    }
  }

  /** The error the writer would give the row: its validator first, then the sink's router. */
  private RowError predictedError(OutboxEvent row) {
    OutboxEvent checked = validator.validate(row);
    if (checked.error() != null) {
      return checked.error();
    }
    Route route = new EventRouter().route(checked);
    return route.isDeadLetter() ? route.deadLetter() : null;
  }

  private OutboxEvent outboxRow(Connection c, long seq) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT * FROM " + schema + "." + OutboxContract.OUTBOX_TABLE + " WHERE seq = ?")) {
      ps.setLong(1, seq);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return OutboxRowParser.parse(seq, OutboxRowParser.columns(rs));
      }
    }
  }

  private static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
