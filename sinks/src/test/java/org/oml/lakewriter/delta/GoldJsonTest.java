package org.oml.lakewriter.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.gold.GoldJson;
import org.oml.lakewriter.delta.gold.GoldJson.RetractionEntry;

class GoldJsonTest {
  @Test
  void listsAreCompactWithFixedKeyOrder() {
    assertThat(GoldJson.paths(List.of())).isEqualTo("[]");
    assertThat(GoldJson.retractions(List.of())).isEqualTo("[]");
    assertThat(GoldJson.parseRetractions(GoldJson.retractions(List.of()))).isEmpty();
    assertThat(GoldJson.paths(List.of("/a", "/b \"q\""))).isEqualTo("[\"/a\",\"/b \\\"q\\\"\"]");
    assertThat(
            GoldJson.retractions(
                List.of(new RetractionEntry(12, "demote", 5L), new RetractionEntry(13, "erase", null))))
        .isEqualTo("[{\"seq\":12,\"kind\":\"demote\",\"time\":5},{\"seq\":13,\"kind\":\"erase\",\"time\":null}]");
  }

  @Test
  void appendKeepsFirstAppearanceOrderAndRoundTrips() {
    String paths = GoldJson.appendPath(GoldJson.appendPath("[]", "/b"), "/a");
    assertThat(GoldJson.appendPath(paths, "/b")).isEqualTo("[\"/b\",\"/a\"]");
    assertThat(GoldJson.appendPath(paths, null)).isSameAs(paths);
    String r = GoldJson.appendRetraction("[]", new RetractionEntry(7, "reassign", 99L));
    assertThat(GoldJson.parseRetractions(r)).containsExactly(new RetractionEntry(7, "reassign", 99L));
    assertThatThrownBy(() -> GoldJson.parsePaths("{")).hasMessageContaining("gold paths");
  }
}
