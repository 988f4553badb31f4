package org.oml.lakewriter.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.HorizonUpdate;
import org.oml.lakewriter.event.OutboxChange;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.testing.SerdeChecks;

class OutboxChangeSerializerTest {
  static final OutboxChange STORED_V1_EVENT =
      OutboxEvent.builder()
          .seq(7)
          .txId(900)
          .tenantId("acme")
          .kind("journal")
          .envelope("{\"d\":1}")
          .eventTimeMicros(1_700_000_000_000_007L)
          .error(new RowError(ErrorClass.UNKNOWN_KIND, "x"))
          .build();

  static final String STORED_V1_EVENT_HEX =
      """
      01000000000000000700000000000003840000000461636d65000000076a6f75
      726e616cffffffff00ffffffffffffffffffffffffffffffffffffffffffffff
      ffffffffffffffffffffffffffffffffff000000077b2264223a317d0100060a
      24181e4007000000000c554e4b4e4f574e5f4b494e440000000178
      """;

  static final OutboxChange STORED_V1_HORIZON =
      new HorizonUpdate("w1", 120, 130, 1_700_000_000_000_000L, true);

  static final String STORED_V1_HORIZON_HEX =
      "020000000277310000000000000078000000000000008200060a24181e400001";

  private final OutboxChangeSerializer serializer = new OutboxChangeSerializer();

  @Test
  void roundTripsAnEventWithEveryField() throws IOException {
    OutboxChange change = Events.everyField(11);

    assertThat(SerdeChecks.direct(serializer, change)).isEqualTo(change);
    assertThat(SerdeChecks.typed(OutboxChangeSerializer.class, change)).isEqualTo(change);
  }

  @Test
  void roundTripsAnEventWithNulls() throws IOException {
    OutboxChange change = Events.nulls(12);

    assertThat(SerdeChecks.direct(serializer, change)).isEqualTo(change);
    assertThat(SerdeChecks.typed(OutboxChangeSerializer.class, change)).isEqualTo(change);
  }

  @Test
  void roundTripsAnEventWithLongStrings() throws IOException {
    OutboxChange change = Events.journal(13).envelope(Events.over64KiB()).build();

    assertThat(SerdeChecks.direct(serializer, change)).isEqualTo(change);
  }

  @Test
  void roundTripsHorizonUpdates() throws IOException {
    OutboxChange streamed = new HorizonUpdate("writer-é", Long.MAX_VALUE, -1, 0, false);
    OutboxChange snapshot = new HorizonUpdate(null, 0, 0, Long.MIN_VALUE, true);

    assertThat(SerdeChecks.direct(serializer, streamed)).isEqualTo(streamed);
    assertThat(SerdeChecks.typed(OutboxChangeSerializer.class, streamed)).isEqualTo(streamed);
    assertThat(SerdeChecks.direct(serializer, snapshot)).isEqualTo(snapshot);
  }

  @Test
  void readsAnEventStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_EVENT_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1_EVENT);
    // Later versions append the row's retries and make tx_id nullable; same event back.
    assertThat(serializer.deserialize(OutboxChangeSerializer.VERSION, serializer.serialize(STORED_V1_EVENT)))
        .isEqualTo(STORED_V1_EVENT);
  }

  @Test
  void readsAHorizonUpdateStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_HORIZON_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1_HORIZON);
    assertThat(serializer.serialize(STORED_V1_HORIZON)).isEqualTo(stored);
  }

  @Test
  void refusesAnUnknownVersion() throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1_HORIZON);

    assertThatThrownBy(() -> serializer.deserialize(4, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 4");
  }

  @Test
  void refusesAnUnknownTag() {
    assertThatThrownBy(() -> serializer.deserialize(1, new byte[] {3}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("tag 3");
  }
}
