package org.oml.lakewriter.deadletter.journal;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * Brings the PostgreSQL dead-letter journal back in step with the lake, the authority: every row
 * of every {@code dead_letter} Delta table (the tenants' and {@code _invalid}) is inserted into
 * {@code oml_lake_dead_letter}, {@code ON CONFLICT (seq) DO NOTHING}.
 *
 * <p>Safe to run at any time and any number of times, also while the job runs: a record already
 * there (journalled by the job, or requeued since) is left exactly as it is. This is the repair for
 * a journal the job gave up on (finding {@code JOURNAL_BEHIND}, metric {@code
 * journalRecordsBehind}): the job never fails the lake's commits for the journal's sake.
 */
public final class DeadLetterJournalSync {
  private static final int CHUNK = 1000;

  private DeadLetterJournalSync() {}

  /** What a sync did: dead letters read from the lake, and how many were new to the journal. */
  public record Result(long inLake, long inserted) {}

  /**
   * @param writerId recorded as the writer of the inserted records (the lake's rows do not carry it)
   */
  public static Result sync(Connection c, DeadLetterJournal journal, LakeReader lake, String writerId)
      throws IOException, SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    long read = 0;
    long inserted = 0;
    try {
      List<DeadLetterRecord> chunk = new ArrayList<>();
      for (TableId table : lake.tables()) {
        if (table.kind() != TableKind.DEAD_LETTER) {
          continue;
        }
        for (Map<String, Object> row : lake.rows(table)) {
          chunk.add(record(row, writerId));
          read++;
          if (chunk.size() == CHUNK) {
            inserted += journal.insert(c, chunk).size();
            c.commit();
            chunk.clear();
          }
        }
      }
      inserted += journal.insert(c, chunk).size();
      c.commit();
    } catch (SQLException | IOException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
    return new Result(read, inserted);
  }

  /** The journal record of one row of a lake {@code dead_letter} table. */
  static DeadLetterRecord record(Map<String, Object> row, String writerId) {
    Integer attempts = (Integer) row.get("attempts");
    return new DeadLetterRecord(
        (Long) row.get("seq"),
        writerId,
        (String) row.get("tenant_id"),
        (String) row.get("kind"),
        (String) row.get("error_class"),
        (String) row.get("message"),
        attempts == null ? 1 : attempts,
        micros(row.get("first_failure_time")),
        micros(row.get("last_failure_time")),
        row.get("tx_id") == null ? 0 : (Long) row.get("tx_id"),
        (String) row.get("artifact_id"),
        (Long) row.get("version"),
        (String) row.get("workarea_id"),
        (String) row.get("path_at_write"),
        (String) row.get("writer_identity"),
        (String) row.get("principal"),
        (String) row.get("ratified_by"),
        (String) row.get("provenance_class"),
        (String) row.get("plaintext_digest"),
        (String) row.get("ciphertext_digest"),
        (String) row.get("body_sha256"),
        null,
        (String) row.get("data_key_id"),
        (String) row.get("envelope"),
        row.get("event_time") == null ? null : micros(row.get("event_time")),
        (Long) row.get("requeue_of"));
  }

  private static long micros(Object time) {
    if (time == null) {
      return 0;
    }
    return ChronoUnit.MICROS.between(Instant.EPOCH, (Instant) time);
  }
}
