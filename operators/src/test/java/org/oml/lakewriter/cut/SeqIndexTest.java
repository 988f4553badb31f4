package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SeqIndexTest {
  @Test
  void holdsDistinctSeqsInOrderWhateverTheArrivalOrder() {
    SeqIndex index = new SeqIndex();
    TreeSet<Long> model = new TreeSet<>();
    Random random = new Random(7);
    long frontier = 0;
    for (int round = 0; round < 200; round++) {
      // Mostly ascending with late and repeated seqs, as CDC delivers concurrent transactions.
      for (int i = 0; i < 300; i++) {
        long seq = frontier + 1 + (random.nextInt(10) == 0 ? random.nextInt(5_000) : i * 3L);
        assertThat(index.add(seq)).as("add %d", seq).isEqualTo(model.add(seq));
      }
      assertThat(index.size()).isEqualTo(model.size());
      for (int i = 0; i < 50; i++) {
        long probe = frontier + random.nextInt(6_000);
        assertThat(index.contains(probe)).as("contains %d", probe).isEqualTo(model.contains(probe));
      }
      long upTo = frontier + random.nextInt(2_000);
      int limit = 1 + random.nextInt(400);
      long[] range = index.range(frontier, upTo, limit);
      assertThat(range)
          .containsExactly(
              model.subSet(frontier, false, upTo, true).stream()
                  .limit(limit)
                  .mapToLong(Long::longValue)
                  .toArray());
      if (range.length > 0) {
        frontier = range[range.length - 1];
        index.removeUpTo(frontier);
        model.headSet(frontier, true).clear();
      }
      assertThat(index.size()).isEqualTo(model.size());
    }
  }

  @Test
  void aLateTransactionBelowManyHeldRowsMergesIn() {
    SeqIndex index = new SeqIndex();
    for (long seq = 10_001; seq <= 20_000; seq++) {
      index.add(seq);
    }
    for (long seq = 1; seq <= 3 * SeqIndex.SIDE; seq += 1) {
      assertThat(index.add(seq)).isTrue();
    }
    assertThat(index.add(5)).isFalse();
    assertThat(index.add(15_000)).isFalse();
    assertThat(index.size()).isEqualTo(10_000 + 3 * SeqIndex.SIDE);
    assertThat(index.range(0, Long.MAX_VALUE, 3)).containsExactly(1, 2, 3);
    index.removeUpTo(Long.MAX_VALUE);
    assertThat(index.size()).isZero();
    assertThat(index.range(0, Long.MAX_VALUE, 3)).isEmpty();
  }
}
