package org.oml.lakewriter.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Item 7 of issue 17: seqs are listed in numeric order (1, 2, 10), not text order (1, 10, 2). */
class FindingOrderTest {
  private static Finding missing(long seq) {
    return new Finding("MISSING_ROW", "acme/{bronze,dead_letter}", "seq=" + seq, "gone");
  }

  @Test
  void problemsListSeqsInNumericOrder() {
    LakeVerifier.Result result =
        new LakeVerifier.Result(
            11, 11, Map.of(),
            List.of(missing(10), missing(2), missing(11), missing(1),
                new Finding("EXTRA_ROW", "acme/silver/memories", "a-1@2", "")));
    assertThat(result.problems())
        .containsExactly(
            "EXTRA_ROW acme/silver/memories a-1@2",
            "MISSING_ROW acme/{bronze,dead_letter} seq=1: gone",
            "MISSING_ROW acme/{bronze,dead_letter} seq=2: gone",
            "MISSING_ROW acme/{bronze,dead_letter} seq=10: gone",
            "MISSING_ROW acme/{bronze,dead_letter} seq=11: gone");
  }
}
