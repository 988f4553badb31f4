package org.oml.lakewriter.cut;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.oml.lakewriter.cdc.OutboxRowParser;
import org.oml.lakewriter.cdc.OutboxSourceOptions;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.jdbc.LazyConnection;
import org.oml.lakewriter.validate.EventValidator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a range the horizon vouches for against the outbox itself, through its primary key, and
 * fetches the rows that CDC did not deliver.
 *
 * <p>Once the horizon says every row in {@code (frontier, horizon]} has committed, the outbox's
 * count over that range must equal what the cut holds. It can differ when CDC loses rows: Flink
 * CDC's incremental snapshot drops rows of transactions that were open while it read (it filters
 * streamed rows by their own LSN, which lies before the high watermark), and a restore behind the
 * slot's confirmed LSN skips rows too. This check does not depend on CDC being right.
 */
final class CompletenessCheck implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompletenessCheck.class);

  private final OutboxSourceOptions options;
  private final EventValidator validator;
  private final LazyConnection connection;

  CompletenessCheck(OutboxSourceOptions options) {
    this.options = options;
    this.validator = new EventValidator(options.maxBodyBytes());
    this.connection = new LazyConnection(options::connect, true);
  }

  /**
   * The rows of {@code (after, upTo]} that the outbox has and {@code held} lacks, validated like
   * rows that came through CDC. Usually empty, at the cost of one index-only count.
   */
  List<OutboxEvent> missing(long after, long upTo, Collection<Long> held) throws SQLException {
    long expected = count(after, upTo);
    if (expected == held.size()) {
      return List.of();
    }
    Set<Long> have = new HashSet<>(held);
    List<OutboxEvent> fetched = new ArrayList<>();
    try (PreparedStatement ps =
        connection
            .get()
            .prepareStatement(
                "SELECT * FROM " + options.schema() + ".oml_outbox WHERE seq > ? AND seq <= ?"
                    + " ORDER BY seq")) {
      ps.setLong(1, after);
      ps.setLong(2, upTo);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong("seq");
          if (!have.contains(seq)) {
            fetched.add(validator.validate(OutboxRowParser.parse(seq, OutboxRowParser.columns(rs))));
          }
        }
      }
    }
    if (!fetched.isEmpty()) {
      LOG.warn(
          "finding CDC_LOST_ROWS: the outbox holds {} rows in ({}, {}] but CDC delivered {};"
              + " fetched {} by seq (first {})",
          expected, after, upTo, held.size(), fetched.size(), fetched.get(0).seq());
    }
    return fetched;
  }

  private long count(long after, long upTo) throws SQLException {
    try (PreparedStatement ps =
        connection
            .get()
            .prepareStatement(
                "SELECT count(*) FROM " + options.schema() + ".oml_outbox WHERE seq > ? AND seq <= ?")) {
      ps.setLong(1, after);
      ps.setLong(2, upTo);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() {
    connection.close();
  }
}
