package org.oml.lakewriter.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.event.Batch;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.testing.SerdeChecks;

class BatchSerializerTest {
  static final Batch STORED_V1 =
      new Batch(
          40,
          50,
          List.of(
              OutboxEvent.builder()
                  .seq(41)
                  .txId(3)
                  .tenantId("acme")
                  .kind("demote")
                  .artifactId("a")
                  .artifactVersion(2L)
                  .eventTimeMicros(1_700_000_000_000_041L)
                  .build(),
              OutboxEvent.builder()
                  .seq(45)
                  .txId(4)
                  .kind("bogus")
                  .body(new byte[] {(byte) 0xff, 0})
                  .error(new RowError(ErrorClass.UNKNOWN_KIND, "unknown kind 'bogus'"))
                  .build()));

  static final String STORED_V1_HEX =
      """
      0000000000000028000000000000003200000002000000000000002900000000
      000000030000000461636d650000000664656d6f746500000001610100000000
      00000002ffffffffffffffffffffffffffffffffffffffffffffffffffffffff
      ffffffffffffffffffffffffffffffff0100060a24181e402900ffffffffffff
      ffff000000000000002d0000000000000004ffffffff00000005626f677573ff
      ffffff00ffffffffffffffffffffffffffffffffffffffffffffffffffffffff
      ffffffff00000002ff00ffffffffffffffff00000000000c554e4b4e4f574e5f
      4b494e4400000014756e6b6e6f776e206b696e642027626f67757327
      """;

  private final BatchSerializer serializer = new BatchSerializer();

  @Test
  void roundTripsRowsInOrder() throws IOException {
    Batch batch =
        new Batch(
            100,
            400,
            List.of(
                Events.everyField(101),
                Events.nulls(150),
                Events.journal(399).envelope(Events.over64KiB()).build()));

    Batch back = SerdeChecks.direct(serializer, batch);

    assertThat(back).isEqualTo(batch);
    assertThat(back.events()).extracting(OutboxEvent::seq).containsExactly(101L, 150L, 399L);
    assertThat(back.events().get(0).body()).isEqualTo(Events.allByteValues());
    assertThat(SerdeChecks.typed(BatchSerializer.class, batch)).isEqualTo(batch);
  }

  @Test
  void roundTripsAnEmptyBatch() throws IOException {
    Batch gapOnly = new Batch(7, 9, List.of());

    assertThat(SerdeChecks.direct(serializer, gapOnly)).isEqualTo(gapOnly);
    assertThat(SerdeChecks.typed(BatchSerializer.class, gapOnly)).isEqualTo(gapOnly);
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_HEX);

    Batch back = serializer.deserialize(1, stored);

    assertThat(back).isEqualTo(STORED_V1);
    assertThat(back.events().get(1).body()).containsExactly((byte) 0xff, 0);
    // Later versions append the retries and make tx_id nullable; they read back the same batch.
    assertThat(serializer.deserialize(BatchSerializer.VERSION, serializer.serialize(STORED_V1)))
        .isEqualTo(STORED_V1);
  }

  @Test
  void refusesAnUnknownVersion() throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1);

    assertThatThrownBy(() -> serializer.deserialize(4, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 4");
  }
}
