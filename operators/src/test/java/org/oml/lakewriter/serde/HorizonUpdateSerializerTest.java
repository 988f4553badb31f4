package org.oml.lakewriter.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.testing.SerdeChecks;

class HorizonUpdateSerializerTest {
  static final HorizonUpdate STORED_V1 =
      new HorizonUpdate("w1", 1_000, 1_007, 1_700_000_000_123_456L, false);

  static final String STORED_V1_HEX =
      "00000002773100000000000003e800000000000003ef00060a241820224000";

  private final HorizonUpdateSerializer serializer = new HorizonUpdateSerializer();

  @Test
  void roundTrips() throws IOException {
    HorizonUpdate update = new HorizonUpdate("writer-ü", 5, -1, Long.MAX_VALUE, true);

    assertThat(SerdeChecks.direct(serializer, update)).isEqualTo(update);
    assertThat(SerdeChecks.typed(HorizonUpdateSerializer.class, update)).isEqualTo(update);
  }

  @Test
  void roundTripsANullWriterAndALongOne() throws IOException {
    HorizonUpdate nullWriter = new HorizonUpdate(null, 0, 0, 0, false);
    HorizonUpdate longWriter = new HorizonUpdate(Events.over64KiB(), 1, 2, 3, true);

    assertThat(SerdeChecks.direct(serializer, nullWriter)).isEqualTo(nullWriter);
    assertThat(SerdeChecks.typed(HorizonUpdateSerializer.class, nullWriter)).isEqualTo(nullWriter);
    assertThat(SerdeChecks.direct(serializer, longWriter)).isEqualTo(longWriter);
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
}
