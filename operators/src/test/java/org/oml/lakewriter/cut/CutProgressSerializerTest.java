package org.oml.lakewriter.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.testing.SerdeChecks;

class CutProgressSerializerTest {
  static final CutProgress STORED_V1 = new CutProgress(1_000, 1_200, 37);

  static final String STORED_V1_HEX = "00000000000003e800000000000004b00000000000000025";

  private final CutProgressSerializer serializer = new CutProgressSerializer();

  @Test
  void roundTrips() throws IOException {
    CutProgress progress = new CutProgress(5, Long.MAX_VALUE, 3);

    assertThat(SerdeChecks.direct(serializer, progress)).isEqualTo(progress);
    assertThat(SerdeChecks.typed(CutProgressSerializer.class, progress)).isEqualTo(progress);
    assertThat(SerdeChecks.direct(serializer, CutProgress.INITIAL)).isEqualTo(CutProgress.INITIAL);
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1);
    assertThat(serializer.serialize(STORED_V1)).isEqualTo(stored);
  }

  @Test
  void refusesAnUnknownVersion() throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1);

    assertThatThrownBy(() -> serializer.deserialize(2, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void progressRefusesAFrontierPastTheHorizonAndNegativeCounts() {
    assertThatThrownBy(() -> new CutProgress(11, 10, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CutProgress(0, 10, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
