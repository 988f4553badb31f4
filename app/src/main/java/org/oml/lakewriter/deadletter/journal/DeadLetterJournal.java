package org.oml.lakewriter.deadletter.journal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.oml.lakewriter.contract.OutboxContract;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.validate.EventValidator;

/**
 * The PostgreSQL dead-letter journal, {@code oml_lake_dead_letter} (see the contract SQL): what the
 * job inserts and what {@code lakewriter dead-letters list} reads.
 *
 * <p>The lake's {@code dead_letter} tables, committed in the same Delta commit as each row's batch
 * under the batch's txn version, are the authority on what was skipped. This journal is the copy
 * that operators and the reconciler query without reading the lake, and the place where a requeue
 * is recorded ({@link DeadLetterRequeue}). Inserts are idempotent by seq: a replay never adds a
 * second record, and never overwrites a record's status.
 */
public final class DeadLetterJournal {
  public static final String TABLE = OutboxContract.DEAD_LETTER_TABLE;

  /** Which records {@link #list} returns. */
  public enum Status {
    DEAD,
    REQUEUED,
    ALL;

    public String sqlValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * @param tenant a tenant id, {@code _invalid} for every record whose tenant id is not a valid one
   *     (the rows of the lake's {@code _invalid/dead_letter}), or {@code null} for all
   * @param limit at most this many records, lowest seq first
   */
  public record Filter(String tenant, Status status, int limit) {
    public Filter {
      Objects.requireNonNull(status, "status");
      if (limit <= 0) {
        throw new IllegalArgumentException("limit must be positive: " + limit);
      }
    }

    public static Filter all() {
      return new Filter(null, Status.ALL, Integer.MAX_VALUE);
    }
  }

  /** One journal record as {@code list} shows it (the raw columns stay in the table). */
  public record Entry(
      long seq,
      String writerId,
      String tenantId,
      String kind,
      String errorClass,
      String message,
      int attempts,
      OffsetDateTime firstFailureAt,
      OffsetDateTime lastFailureAt,
      OffsetDateTime journalledAt,
      String status,
      Long requeuedAs,
      OffsetDateTime requeuedAt,
      String requeuedBy,
      String artifactId,
      Long artifactVersion,
      String ciphertextDigest,
      String bodySha256,
      Long bodyBytes,
      Long requeueOf) {

    public boolean isRequeued() {
      return "requeued".equals(status);
    }

    /** Column name to value, timestamps as ISO-8601 strings: the JSON shape of {@code list}. */
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("seq", seq);
      m.put("writer_id", writerId);
      m.put("tenant_id", tenantId);
      m.put("kind", kind);
      m.put("error_class", errorClass);
      m.put("message", message);
      m.put("attempts", attempts);
      m.put("first_failure_at", iso(firstFailureAt));
      m.put("last_failure_at", iso(lastFailureAt));
      m.put("journalled_at", iso(journalledAt));
      m.put("status", status);
      m.put("requeued_as", requeuedAs);
      m.put("requeued_at", iso(requeuedAt));
      m.put("requeued_by", requeuedBy);
      m.put("artifact_id", artifactId);
      m.put("artifact_version", artifactVersion);
      m.put("ciphertext_digest", ciphertextDigest);
      m.put("body_sha256", bodySha256);
      m.put("body_bytes", bodyBytes);
      m.put("requeue_of", requeueOf);
      return m;
    }

    private static String iso(OffsetDateTime t) {
      return t == null ? null : t.toInstant().toString();
    }
  }

  private static final String COLUMNS =
      "seq, writer_id, tenant_id, kind, error_class, message, attempts, first_failure_at,"
          + " last_failure_at, tx_id, artifact_id, artifact_version, workarea_id, path_at_write,"
          + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
          + " ciphertext_digest, body_sha256, body_bytes, data_key_id, envelope, event_time,"
          + " requeue_of";

  private static final String MICROS = "to_timestamp(0) + interval '1 microsecond' * ";

  private final String table;

  /**
   * @param schema the schema of the outbox contract ({@code postgres.schema})
   */
  public DeadLetterJournal(String schema) {
    this.table = OutboxContract.requireIdentifier("schema", schema) + "." + TABLE;
  }

  /**
   * Inserts the records that the journal does not hold yet, in one statement, and returns the seqs
   * it inserted. A seq already journalled is left exactly as it is ({@code ON CONFLICT (seq) DO
   * NOTHING}): its first failure time, and a requeue recorded on it, stay. The caller commits.
   */
  public Set<Long> insert(Connection c, List<DeadLetterRecord> records) throws SQLException {
    Set<Long> inserted = new LinkedHashSet<>();
    if (records.isEmpty()) {
      return inserted;
    }
    int n = records.size();
    Long[] seq = new Long[n];
    String[] writer = new String[n];
    String[] tenant = new String[n];
    String[] kind = new String[n];
    String[] errorClass = new String[n];
    String[] message = new String[n];
    Integer[] attempts = new Integer[n];
    Long[] first = new Long[n];
    Long[] last = new Long[n];
    Long[] txId = new Long[n];
    String[] artifact = new String[n];
    Long[] version = new Long[n];
    String[] workarea = new String[n];
    String[] path = new String[n];
    String[] writerIdentity = new String[n];
    String[] principal = new String[n];
    String[] ratifiedBy = new String[n];
    String[] provenance = new String[n];
    String[] plaintextDigest = new String[n];
    String[] ciphertextDigest = new String[n];
    String[] bodySha = new String[n];
    Long[] bodyBytes = new Long[n];
    String[] dataKey = new String[n];
    String[] envelope = new String[n];
    Long[] eventTime = new Long[n];
    Long[] requeueOf = new Long[n];
    for (int i = 0; i < n; i++) {
      DeadLetterRecord r = records.get(i);
      seq[i] = r.seq();
      writer[i] = r.writerId();
      tenant[i] = r.tenantId();
      kind[i] = r.kind();
      errorClass[i] = r.errorClass();
      message[i] = r.message();
      attempts[i] = r.attempts();
      first[i] = r.firstFailureMicros();
      last[i] = r.lastFailureMicros();
      txId[i] = r.txId();
      artifact[i] = r.artifactId();
      version[i] = r.artifactVersion();
      workarea[i] = r.workareaId();
      path[i] = r.pathAtWrite();
      writerIdentity[i] = r.writerIdentity();
      principal[i] = r.principal();
      ratifiedBy[i] = r.ratifiedBy();
      provenance[i] = r.provenanceClass();
      plaintextDigest[i] = r.plaintextDigest();
      ciphertextDigest[i] = r.ciphertextDigest();
      bodySha[i] = r.bodySha256();
      bodyBytes[i] = r.bodyBytes();
      dataKey[i] = r.dataKeyId();
      envelope[i] = r.envelope();
      eventTime[i] = r.eventTimeMicros();
      requeueOf[i] = r.requeueOf();
    }
    String sql =
        "INSERT INTO "
            + table
            + " ("
            + COLUMNS
            + ")"
            + " SELECT r.seq, r.writer_id, r.tenant_id, r.kind, r.error_class, r.message,"
            + " r.attempts, "
            + MICROS
            + "r.first_us, "
            + MICROS
            + "r.last_us, r.tx_id,"
            + " r.artifact_id, r.artifact_version, r.workarea_id, r.path_at_write,"
            + " r.writer_identity, r.principal, r.ratified_by, r.provenance_class,"
            + " r.plaintext_digest, r.ciphertext_digest, r.body_sha256, r.body_bytes,"
            + " r.data_key_id, r.envelope, "
            + MICROS
            + "r.event_us, r.requeue_of"
            + " FROM unnest(?::int8[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
            + " ?::int4[], ?::int8[], ?::int8[], ?::int8[], ?::text[], ?::int8[], ?::text[],"
            + " ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
            + " ?::text[], ?::int8[], ?::text[], ?::text[], ?::int8[], ?::int8[])"
            + " AS r(seq, writer_id, tenant_id, kind, error_class, message, attempts, first_us,"
            + " last_us, tx_id, artifact_id, artifact_version, workarea_id, path_at_write,"
            + " writer_identity, principal, ratified_by, provenance_class, plaintext_digest,"
            + " ciphertext_digest, body_sha256, body_bytes, data_key_id, envelope, event_us,"
            + " requeue_of)"
            + " ORDER BY r.seq"
            + " ON CONFLICT (seq) DO NOTHING"
            + " RETURNING seq";
    List<Array> arrays = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      Object[][] columns = {
        seq,
        writer,
        tenant,
        kind,
        errorClass,
        message,
        attempts,
        first,
        last,
        txId,
        artifact,
        version,
        workarea,
        path,
        writerIdentity,
        principal,
        ratifiedBy,
        provenance,
        plaintextDigest,
        ciphertextDigest,
        bodySha,
        bodyBytes,
        dataKey,
        envelope,
        eventTime,
        requeueOf
      };
      for (int i = 0; i < columns.length; i++) {
        Object[] values = columns[i];
        String type =
            values instanceof Long[] ? "int8" : values instanceof Integer[] ? "int4" : "text";
        Array array = c.createArrayOf(type, values);
        arrays.add(array);
        ps.setArray(i + 1, array);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getLong(1));
        }
      }
    } finally {
      for (Array a : arrays) {
        a.free();
      }
    }
    return inserted;
  }

  /** The records that match, lowest seq first. */
  public List<Entry> list(Connection c, Filter filter) throws SQLException {
    List<Entry> entries = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, writer_id, tenant_id, kind, error_class, message, attempts,"
                + " first_failure_at, last_failure_at, journalled_at, status, requeued_as,"
                + " requeued_at, requeued_by, artifact_id, artifact_version, ciphertext_digest,"
                + " body_sha256, body_bytes, requeue_of FROM "
                + table
                + where(filter)
                + " ORDER BY seq LIMIT ?")) {
      int i = bind(ps, filter);
      ps.setLong(i, filter.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(
              new Entry(
                  rs.getLong("seq"),
                  rs.getString("writer_id"),
                  rs.getString("tenant_id"),
                  rs.getString("kind"),
                  rs.getString("error_class"),
                  rs.getString("message"),
                  rs.getInt("attempts"),
                  rs.getObject("first_failure_at", OffsetDateTime.class),
                  rs.getObject("last_failure_at", OffsetDateTime.class),
                  rs.getObject("journalled_at", OffsetDateTime.class),
                  rs.getString("status"),
                  nullableLong(rs, "requeued_as"),
                  rs.getObject("requeued_at", OffsetDateTime.class),
                  rs.getString("requeued_by"),
                  rs.getString("artifact_id"),
                  nullableLong(rs, "artifact_version"),
                  rs.getString("ciphertext_digest"),
                  rs.getString("body_sha256"),
                  nullableLong(rs, "body_bytes"),
                  nullableLong(rs, "requeue_of")));
        }
      }
    }
    return entries;
  }

  /** How many records match, regardless of the filter's limit. */
  public long count(Connection c, Filter filter) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT count(*) FROM " + table + where(filter))) {
      bind(ps, filter);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Journalled dead letters per error class (requeued ones included). */
  public Map<String, Long> countByErrorClass(Connection c) throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT error_class, count(*) FROM " + table + " GROUP BY 1 ORDER BY 1");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.put(rs.getString(1), rs.getLong(2));
      }
    }
    return counts;
  }

  String table() {
    return table;
  }

  private static String where(Filter filter) {
    List<String> clauses = new ArrayList<>();
    if (filter.tenant() != null) {
      clauses.add(
          filter.tenant().equals(TableId.INVALID_TENANT_PREFIX)
              ? "(tenant_id IS NULL OR tenant_id !~ '^" + EventValidator.TENANT_ID.pattern() + "$')"
              : "tenant_id = ?");
    }
    if (filter.status() != Status.ALL) {
      clauses.add("status = ?");
    }
    return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
  }

  private static int bind(PreparedStatement ps, Filter filter) throws SQLException {
    int i = 1;
    if (filter.tenant() != null && !filter.tenant().equals(TableId.INVALID_TENANT_PREFIX)) {
      ps.setString(i++, filter.tenant());
    }
    if (filter.status() != Status.ALL) {
      ps.setString(i++, filter.status().sqlValue());
    }
    return i;
  }

  private static Long nullableLong(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }
}
