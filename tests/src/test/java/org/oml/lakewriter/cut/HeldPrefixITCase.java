package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * {@link CompletenessCheck#heldPrefix} against a real outbox: the cut may raise its horizon
 * before the stream phase only up to just below the first seq the outbox has and the cut lacks;
 * a rolled-back seq (a gap) is stepped over.
 */
class HeldPrefixITCase {
  private static EmbeddedPostgresServer pg;

  @BeforeAll
  static void startPostgres() {
    pg = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    pg.close();
  }

  @Test
  void thePrefixEndsBelowTheFirstRowTheCutLacksAndStepsOverGaps() throws Exception {
    try (TestDatabase db = TestDatabase.create(pg);
        Connection c = db.connect()) {
      List<Long> rows = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        rows.add(OutboxWriter.journal(c, "t1", "a-" + i));
      }
      c.setAutoCommit(false);
      long gap = OutboxWriter.journal(c, "t1", "rolled-back");
      c.rollback();
      c.setAutoCommit(true);
      for (int i = 4; i < 8; i++) {
        rows.add(OutboxWriter.journal(c, "t1", "a-" + i));
      }
      long last = rows.get(rows.size() - 1);
      long before = rows.get(0) - 1;
      try (CompletenessCheck check =
          new CompletenessCheck(db.sourceOptions("w1", Duration.ofSeconds(1)), 3, 10)) {
        Set<Long> all = new TreeSet<>(rows);
        assertThat(check.heldPrefix(before, last, held(all), 100)).isEqualTo(last);
        assertThat(check.heldPrefix(before, last + 50, held(all), 100))
            .as("no outbox row above the last: the prefix reaches upTo")
            .isEqualTo(last + 50);
        assertThat(all).doesNotContain(gap);

        Set<Long> lacking = new TreeSet<>(all);
        lacking.remove(rows.get(5));
        assertThat(check.heldPrefix(before, last, held(lacking), 100))
            .isEqualTo(rows.get(5) - 1);
        assertThat(check.heldPrefix(rows.get(5), last, held(lacking), 100)).isEqualTo(last);

        assertThat(check.heldPrefix(before, rows.get(2), held(all), 100)).isEqualTo(rows.get(2));
        assertThat(check.heldPrefix(before, last, held(all), 3))
            .as("a page of 3 keys read, then it stops at the last key read")
            .isEqualTo(rows.get(2));
        assertThat(check.heldPrefix(before, last, held(Set.of()), 100)).isEqualTo(before);
      }
    }
  }

  private static LongPredicate held(Set<Long> seqs) {
    return seqs::contains;
  }
}
