package org.oml.lakewriter.keys;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.EventKind;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.oml.lakewriter.retry.BreakerPolicy;
import org.oml.lakewriter.retry.RowCheck;

/**
 * Checks that the data key of every promotion is known to the key registry before its body enters
 * silver: a ciphertext whose key id the registry does not know can never be read, so the lake
 * would hold an unreadable body and reconciliation a row it cannot compare.
 *
 * <p>The registry is asked with one query per batch, {@code lookupQuery}, which takes one {@code
 * text[]} parameter (the batch's key ids) and returns the known ones in its first column, e.g.
 * {@code SELECT key_id FROM oml_data_key WHERE key_id = ANY(?)}. It runs on the outbox database
 * under {@code statement_timeout = timeout}.
 *
 * <p>Both outcomes other than "known" are transient, and they are charged differently. A key the
 * answering registry does not know yet ({@link ErrorClass#UNKNOWN_DATA_KEY}; keys may be
 * replicated after the row commits) is the row's own fault: it spends the row's retry budget. A
 * registry that does not answer ({@link ErrorClass#DEPENDENCY_UNAVAILABLE}: timeout, lock, lost
 * connection, missing table; the connection is then discarded and the next attempt reconnects)
 * is the registry's fault: it counts for the registry's circuit breaker and holds the cut, never
 * dead-lettering a row (see {@link org.oml.lakewriter.retry.DependencyBreaker}).
 */
public final class DataKeyCheck implements RowCheck {
  private static final long serialVersionUID = 1L;

  private final OutboxSourceOptions database;
  private final String lookupQuery;
  private final Duration timeout;
  private final BreakerPolicy breaker;
  private transient LazyConnection connection;

  public DataKeyCheck(OutboxSourceOptions database, String lookupQuery, Duration timeout) {
    this(database, lookupQuery, timeout, BreakerPolicy.DEFAULT);
  }

  public DataKeyCheck(
      OutboxSourceOptions database, String lookupQuery, Duration timeout, BreakerPolicy breaker) {
    this.database = Objects.requireNonNull(database, "database");
    this.lookupQuery = Objects.requireNonNull(lookupQuery, "lookupQuery");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.breaker = Objects.requireNonNull(breaker, "breaker");
  }

  /** The registry's name in logs and in status ({@code oml_lake_dependency}). */
  public static final String DEPENDENCY = "key-registry";

  @Override
  public boolean needs(OutboxEvent row) {
    return EventKind.MATERIALIZE.wireName().equals(row.kind()) && row.dataKeyId() != null;
  }

  @Override
  public String dependency() {
    return DEPENDENCY;
  }

  @Override
  public BreakerPolicy breakerPolicy() {
    return breaker;
  }

  @Override
  public Map<Long, RowError> check(List<OutboxEvent> rows) {
    Map<Long, String> keyBySeq = new LinkedHashMap<>();
    for (OutboxEvent row : rows) {
      if (needs(row)) {
        keyBySeq.put(row.seq(), row.dataKeyId());
      }
    }
    Map<Long, RowError> failures = new LinkedHashMap<>();
    if (keyBySeq.isEmpty()) {
      return failures;
    }
    Set<String> known;
    try {
      known = known(new LinkedHashSet<>(keyBySeq.values()));
    } catch (SQLException e) {
      connection().discard();
      RowError unavailable =
          new RowError(
              ErrorClass.DEPENDENCY_UNAVAILABLE,
              "data-key registry did not answer: "
                  + e.getMessage()
                  + " (SQLState "
                  + e.getSQLState()
                  + ")");
      keyBySeq.keySet().forEach(seq -> failures.put(seq, unavailable));
      return failures;
    }
    keyBySeq.forEach(
        (seq, key) -> {
          if (!known.contains(key)) {
            failures.put(
                seq,
                new RowError(
                    ErrorClass.UNKNOWN_DATA_KEY,
                    "data key '" + key + "' is not in the key registry"));
          }
        });
    return failures;
  }

  /** Runs the lookup once; used by the preflight to check the query before the job starts. */
  public Set<String> known(Set<String> keyIds) throws SQLException {
    Connection c = connection().get();
    try (PreparedStatement st = c.prepareStatement(lookupQuery)) {
      Array ids = c.createArrayOf("text", keyIds.toArray());
      st.setArray(1, ids);
      Set<String> known = new HashSet<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          known.add(rs.getString(1));
        }
      }
      return known;
    }
  }

  private LazyConnection connection() {
    if (connection == null) {
      connection =
          new LazyConnection(
              () -> {
                Connection c = database.connect();
                try (Statement st = c.createStatement()) {
                  st.execute("SET statement_timeout = " + Math.max(1, timeout.toMillis()));
                  return c;
                } catch (SQLException e) {
                  c.close();
                  throw e;
                }
              },
              true);
    }
    return connection;
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
  }

  @Override
  public String toString() {
    return "DataKeyCheck{query=" + lookupQuery + ", timeout=" + timeout + "}";
  }
}
