package org.oml.lakewriter.cut;

import java.sql.Connection;
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
  private final int keyPageRows;
  private final int fetchPageRows;

  CompletenessCheck(OutboxSourceOptions options) {
    this(options, 10_000, 500);
  }

  /** @param keyPageRows seqs a keys-only page reads; @param fetchPageRows rows a fetch reads */
  CompletenessCheck(OutboxSourceOptions options, int keyPageRows, int fetchPageRows) {
    this.keyPageRows = keyPageRows;
    this.fetchPageRows = fetchPageRows;
    this.options = options;
    this.validator = new EventValidator(options.maxBodyBytes());
    this.connection = new LazyConnection(options::connect, true);
  }

  /**
   * What one turn refetched: the rows CDC did not deliver, and {@code checkedUpTo}, the highest
   * seq up to which every missing row is among them. The cut must not end a batch above it.
   */
  record Refetch(List<OutboxEvent> rows, long checkedUpTo) {}

  /**
   * The rows of {@code (after, upTo]} that the outbox has and {@code held} lacks, validated like
   * rows that came through CDC. Usually none, at the cost of one index-only count.
   *
   * <p>Bounded: the missing seqs are found by a keys-only query, paged by seq ({@code
   * keyPageRows} a page), and only their rows are fetched, by seq, {@code fetchPageRows} a page.
   * At most {@code maxRows} rows, and no further page once {@code maxBytes} are fetched; then
   * {@code checkedUpTo} stops just below the first missing seq not fetched, and the next turn
   * goes on from there. So a catch-up over history (after {@code --accept-lost-slot} or a new
   * {@code writer.id}) streams through the heap a turn at a time.
   */
  Refetch missing(long after, long upTo, Collection<Long> held, int maxRows, long maxBytes)
      throws SQLException {
    long expected = count(after, upTo);
    if (expected == held.size()) {
      return new Refetch(List.of(), upTo);
    }
    Set<Long> have = new HashSet<>(held);
    List<Long> missingSeqs = new ArrayList<>();
    long checkedUpTo = upTo;
    long cursor = after;
    keys:
    while (true) {
      List<Long> page = seqPage(cursor, upTo);
      for (long seq : page) {
        if (have.contains(seq)) {
          continue;
        }
        if (missingSeqs.size() >= maxRows) {
          checkedUpTo = seq - 1;
          break keys;
        }
        missingSeqs.add(seq);
      }
      if (page.size() < keyPageRows) {
        break;
      }
      cursor = page.get(page.size() - 1);
    }
    List<OutboxEvent> fetched = new ArrayList<>();
    long bytes = 0;
    for (int from = 0; from < missingSeqs.size(); from += fetchPageRows) {
      if (bytes >= maxBytes) {
        checkedUpTo = missingSeqs.get(from) - 1;
        break;
      }
      List<Long> chunk = missingSeqs.subList(from, Math.min(missingSeqs.size(), from + fetchPageRows));
      for (OutboxEvent row : fetchRows(chunk)) {
        fetched.add(row);
        bytes += row.estimatedBytes();
      }
    }
    if (!fetched.isEmpty() || checkedUpTo < upTo) {
      LOG.warn(
          "finding CDC_LOST_ROWS: the outbox holds {} rows in ({}, {}] but CDC delivered {};"
              + " fetched {} by seq (first {}){}",
          expected, after, upTo, held.size(), fetched.size(),
          fetched.isEmpty() ? "-" : fetched.get(0).seq(),
          checkedUpTo < upTo
              ? "; capped at " + maxRows + " rows / " + maxBytes + " bytes a turn, checked up to "
                  + checkedUpTo + ", the next turn goes on"
              : "");
    }
    return new Refetch(fetched, checkedUpTo);
  }

  /**
   * The highest {@code end} in {@code [after, upTo]} such that the cut holds every seq the outbox
   * has in {@code (after, end]}: {@code end} stops just below the first seq the outbox has and
   * {@code held} lacks. Keys only, paged, and nothing is fetched: before the stream phase a row the
   * cut lacks is one the CDC snapshot has not delivered yet. At most {@code maxKeys} seqs are read;
   * then {@code end} is the last seq read, and the next call goes on from there.
   */
  long heldPrefix(long after, long upTo, java.util.function.LongPredicate held, int maxKeys)
      throws SQLException {
    long cursor = after;
    int read = 0;
    while (true) {
      List<Long> page = seqPage(cursor, upTo);
      for (long seq : page) {
        if (!held.test(seq)) {
          return seq - 1;
        }
      }
      read += page.size();
      if (page.size() < keyPageRows) {
        return upTo;
      }
      cursor = page.get(page.size() - 1);
      if (read >= maxKeys) {
        return cursor;
      }
    }
  }

  /** The next {@code keyPageRows} seqs of the outbox in {@code (after, upTo]}: keys only. */
  private List<Long> seqPage(long after, long upTo) throws SQLException {
    try (PreparedStatement ps =
        connection
            .get()
            .prepareStatement(
                "SELECT seq FROM " + options.schema() + ".oml_outbox WHERE seq > ? AND seq <= ?"
                    + " ORDER BY seq LIMIT ?")) {
      ps.setLong(1, after);
      ps.setLong(2, upTo);
      ps.setInt(3, keyPageRows);
      List<Long> seqs = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
      return seqs;
    }
  }

  /** The rows of these seqs, bodies included, validated. */
  private List<OutboxEvent> fetchRows(List<Long> seqs) throws SQLException {
    Connection c = connection.get();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT * FROM " + options.schema() + ".oml_outbox WHERE seq = ANY(?) ORDER BY seq")) {
      ps.setArray(1, c.createArrayOf("bigint", seqs.toArray()));
      List<OutboxEvent> rows = new ArrayList<>(seqs.size());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong("seq");
          rows.add(validator.validate(OutboxRowParser.parse(seq, OutboxRowParser.columns(rs))));
        }
      }
      return rows;
    }
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
