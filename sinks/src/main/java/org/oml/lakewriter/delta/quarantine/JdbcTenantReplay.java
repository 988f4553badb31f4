package org.oml.lakewriter.delta.quarantine;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 */
public final class JdbcTenantReplay implements TenantReplay {
  private static final long serialVersionUID = 1L;

  /** Rows whose tenant id cannot be a path land under {@code _invalid}. */
  private static final String INVALID_TENANT =
      "(tenant_id IS NULL OR tenant_id !~ '^[a-z0-9][a-z0-9_-]{0,62}$')";

  private final OutboxSourceOptions options;
  private final int pageSize;
  private transient LazyConnection connection;
  private transient EventValidator validator;

  public JdbcTenantReplay(OutboxSourceOptions options, int pageSize) {
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
          return rows;
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

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
  }

  @Override
  public String toString() {
    return "JdbcTenantReplay{" + options + ", page=" + pageSize + "}";
  }
}
