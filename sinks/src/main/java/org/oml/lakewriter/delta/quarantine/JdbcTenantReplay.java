package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.retry.RowCheck;
import org.oml.lakewriter.cdc.OutboxRowParser;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.oml.lakewriter.validate.EventValidator;

/**
 * {@link TenantReplay} over JDBC, the way the cut's completeness check reads the outbox: one
 * tenant's rows by primary-key range, {@code pageSize} rows per query (keyset paging on {@code
 * seq}), each parsed by {@link OutboxRowParser} and checked by {@link EventValidator}. A failure
 * discards the connection; the next call reconnects.
 *
 * <p>With a {@link RowCheck} (the key registry), replayed rows are checked as the cut checks
 * them: a row the check fails for its own reason (an unknown data key) is dead-lettered with that
 * error, as the cut does once a row's retry budget is spent (a replay has no budget left to
 * spend: the row waited through its quarantine); a dependency that does not answer fails the
 * replay, which is retried later with the tenant still held, so nothing is dead-lettered for an
 * outage.
 */
public final class JdbcTenantReplay implements TenantReplay {
  private static final long serialVersionUID = 1L;

  /** Rows whose tenant id cannot be a path land under {@code _invalid}. */
  private static final String INVALID_TENANT =
      "(tenant_id IS NULL OR tenant_id !~ '^[a-z0-9][a-z0-9_-]{0,62}$')";

  private final OutboxSourceOptions options;
  private final int pageSize;
  private final RowCheck check;
  private transient LazyConnection connection;
  private transient EventValidator validator;

  public JdbcTenantReplay(OutboxSourceOptions options, int pageSize) {
    this(options, pageSize, null);
  }

  /** @param check the cut's row check (the key registry), applied to replayed rows; may be null */
  public JdbcTenantReplay(OutboxSourceOptions options, int pageSize, RowCheck check) {
    this.check = check;
    this.options = Objects.requireNonNull(options, "options");
    if (pageSize <= 0) {
      throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
    }
    this.pageSize = pageSize;
  }

  @Override
  public List<OutboxEvent> rows(String tenantPrefix, long after, long upTo) throws IOException {
    if (connection == null) {
      connection = new LazyConnection(options::connect, true);
      validator = new EventValidator(options.maxBodyBytes());
    }
    boolean invalid = tenantPrefix.equals(TableId.INVALID_TENANT_PREFIX);
    String sql =
        "SELECT * FROM "
            + options.schema()
            + ".oml_outbox WHERE seq > ? AND seq <= ? AND "
            + (invalid ? INVALID_TENANT : "tenant_id = ?")
            + " ORDER BY seq LIMIT ?";
    List<OutboxEvent> rows = new ArrayList<>();
    long from = after;
    try {
      while (true) {
        int read = 0;
        try (PreparedStatement ps = connection.get().prepareStatement(sql)) {
          int i = 1;
          ps.setLong(i++, from);
          ps.setLong(i++, upTo);
          if (!invalid) {
            ps.setString(i++, tenantPrefix);
          }
          ps.setInt(i, pageSize);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              long seq = rs.getLong("seq");
              rows.add(validator.validate(OutboxRowParser.parse(seq, OutboxRowParser.columns(rs))));
              from = seq;
              read++;
            }
          }
        }
        if (read < pageSize) {
          return checked(tenantPrefix, after, upTo, rows);
        }
      }
    } catch (SQLException e) {
      connection.discard();
      throw new IOException(
          "replay of tenant "
              + tenantPrefix
              + " over ("
              + after
              + ", "
              + upTo
              + "] from "
              + options.jdbcUrl()
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /** The rows with the row check's verdicts; throws while the check's dependency is down. */
  private List<OutboxEvent> checked(
      String tenantPrefix, long after, long upTo, List<OutboxEvent> rows) throws IOException {
    if (check == null) {
      return rows;
    }
    List<OutboxEvent> valid = rows.stream().filter(OutboxEvent::isValid).toList();
    Map<Long, RowError> failures = valid.isEmpty() ? Map.of() : check.check(valid);
    if (failures.isEmpty()) {
      return rows;
    }
    List<OutboxEvent> verdicts = new ArrayList<>(rows.size());
    for (OutboxEvent row : rows) {
      RowError failure = failures.get(row.seq());
      if (failure != null && failure.errorClass() == ErrorClass.DEPENDENCY_UNAVAILABLE) {
        throw new IOException(
            "replay of tenant " + tenantPrefix + " over (" + after + ", " + upTo + "] waits for "
                + check.dependency() + ": " + failure.message());
      }
      verdicts.add(failure == null ? row : row.withError(failure));
    }
    return verdicts;
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
    if (check != null) {
      check.close();
    }
  }

  @Override
  public String toString() {
    return "JdbcTenantReplay{" + options + ", page=" + pageSize + ", check=" + check + "}";
  }
}
