package org.oml.lakewriter.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.testing.Events.hex;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.oml.lakewriter.event.ErrorClass;
import org.oml.lakewriter.event.OutboxEvent;
import org.oml.lakewriter.event.RowError;
import org.oml.lakewriter.testing.Events;
import org.oml.lakewriter.testing.SerdeChecks;

class OutboxEventSerializerTest {
  /** Written out field by field: the stored bytes below must keep meaning exactly this. */
  static final OutboxEvent STORED_V1 =
      OutboxEvent.builder()
          .seq(42)
          .txId(7_001)
          .tenantId("acme")
          .kind("materialize")
          .artifactId("art-9")
          .artifactVersion(3L)
          .workareaId("wa-1")
          .pathAtWrite("/wörk/ä.md")
          .writerIdentity("agent:w")
          .principal("user:alice")
          .ratifiedBy("user:bob")
          .provenanceClass("human")
          .plaintextDigest("p1")
          .ciphertextDigest("c1")
          .body(new byte[] {0, 1, 0x7f, (byte) 0x80, (byte) 0xff})
          .dataKeyId("dk-1")
          .envelope("{}")
          .eventTimeMicros(1_700_000_000_123_456L)
          .requeueOf(17L)
          .error(new RowError(ErrorClass.MALFORMED_ROW, "artifact_version is String"))
          .build();

  /** {@link #STORED_V1} as version 1 wrote it. */
  static final String STORED_V1_HEX =
      """
      000000000000002a0000000000001b590000000461636d650000000b6d617465
      7269616c697a65000000056172742d390100000000000000030000000477612d
      310000000c2f77c3b6726b2fc3a42e6d64000000076167656e743a770000000a
      757365723a616c69636500000008757365723a626f620000000568756d616e00
      00000270310000000263310000000500017f80ff00000004646b2d3100000002
      7b7d0100060a24182022400100000000000000110000000d4d414c464f524d45
      445f524f570000001a61727469666163745f76657273696f6e20697320537472
      696e67
      """;

  static final OutboxEvent STORED_V1_NULLS = OutboxEvent.builder().seq(43).build();

  static final String STORED_V1_NULLS_HEX =
      """
      000000000000002b0000000000000000ffffffffffffffffffffffff00ffffff
      ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
      ffffffffffffffffff0000ffffffffffffffff
      """;

  private final OutboxEventSerializer serializer = new OutboxEventSerializer();

  @Test
  void roundTripsEveryField() throws IOException {
    OutboxEvent event = Events.everyField(9);

    assertThat(SerdeChecks.direct(serializer, event)).isEqualTo(event);
    assertThat(SerdeChecks.typed(OutboxEventSerializer.class, event)).isEqualTo(event);
  }

  @Test
  void roundTripsNullsEverywhere() throws IOException {
    OutboxEvent event = Events.nulls(5);

    OutboxEvent back = SerdeChecks.direct(serializer, event);

    assertThat(back).isEqualTo(event);
    assertThat(back.body()).isNull();
    assertThat(back.artifactVersion()).isNull();
    assertThat(back.eventTimeMicros()).isNull();
    assertThat(back.error()).isNull();
    assertThat(SerdeChecks.typed(OutboxEventSerializer.class, event)).isEqualTo(event);
  }

  @Test
  void keepsEveryByteValueOfTheBody() throws IOException {
    OutboxEvent event = Events.materialize(3, Events.allByteValues()).build();

    assertThat(SerdeChecks.direct(serializer, event).body()).isEqualTo(Events.allByteValues());
    assertThat(SerdeChecks.typed(OutboxEventSerializer.class, event).body())
        .isEqualTo(Events.allByteValues());
  }

  @Test
  void keepsAnEmptyBodyApartFromNone() throws IOException {
    OutboxEvent empty = Events.journal(3).body(new byte[0]).build();

    assertThat(SerdeChecks.direct(serializer, empty).body()).isEmpty();
  }

  @Test
  void writesStringsOver64KiB() throws IOException {
    String big = Events.over64KiB();
    OutboxEvent event = Events.journal(4).envelope(big).pathAtWrite(big + "/p").build();

    assertThat(SerdeChecks.direct(serializer, event)).isEqualTo(event);
    assertThat(SerdeChecks.typed(OutboxEventSerializer.class, event).envelope()).isEqualTo(big);
  }

  @ParameterizedTest
  @EnumSource(ErrorClass.class)
  void roundTripsEveryErrorClass(ErrorClass errorClass) throws IOException {
    OutboxEvent event = Events.journal(6).error(new RowError(errorClass, "why")).build();

    assertThat(SerdeChecks.direct(serializer, event).error())
        .isEqualTo(new RowError(errorClass, "why"));
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1);
    assertThat(STORED_V1.error().attempts()).isEqualTo(1);
    // Version 3 writes tx_id with a presence byte, then version 1's fields, then the error's
    // attempts and failure times.
    byte[] today = serializer.serialize(STORED_V1);
    assertThat(today).hasSize(stored.length + 1 + 4 + 8 + 8);
    assertThat(serializer.deserialize(OutboxEventSerializer.VERSION, today)).isEqualTo(STORED_V1);
  }

  /**
   * {@link #STORED_V1} as version 2 wrote it: version 1's bytes, then attempts 1 and unrecorded
   * (0) failure times.
   */
  static final String STORED_V2_HEX = STORED_V1_HEX + "00000001" + "0000000000000000".repeat(2);

  @Test
  void readsBytesStoredByVersion2() throws IOException {
    assertThat(serializer.deserialize(2, hex(STORED_V2_HEX))).isEqualTo(STORED_V1);
  }

  /** Issue 11 item 4: a NULL tx_id stays absent, never 0. */
  static final OutboxEvent STORED_V3_NO_TX =
      OutboxEvent.builder()
          .seq(44)
          .txId((Long) null)
          .tenantId("acme")
          .kind("journal")
          .error(new RowError(ErrorClass.MISSING_FIELD, "row lacks tx_id (NULL)"))
          .build();

  /** {@link #STORED_V3_NO_TX} as version 3 writes it. */
  static final String STORED_V3_NO_TX_HEX =
      """
      000000000000002c000000000461636d65000000076a6f75726e616cffffffff
      00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
      ffffffffffffffffffffffffff00000000000d4d495353494e475f4649454c44
      00000016726f77206c61636b732074785f696420284e554c4c29000000010000
      0000000000000000000000000000
      """;

  @Test
  void keepsANullTxIdAbsent() throws IOException {
    OutboxEvent back = SerdeChecks.direct(serializer, STORED_V3_NO_TX);

    assertThat(back.txId()).isNull();
    assertThat(back).isEqualTo(STORED_V3_NO_TX);
    assertThat(Events.hexLines(serializer.serialize(STORED_V3_NO_TX)).strip())
        .isEqualTo(STORED_V3_NO_TX_HEX.strip());
    assertThat(serializer.deserialize(3, hex(STORED_V3_NO_TX_HEX))).isEqualTo(STORED_V3_NO_TX);
  }

  @Test
  void keepsTheRetriesOfADeadLetter() throws IOException {
    RowError exhausted =
        new RowError(ErrorClass.UNKNOWN_DATA_KEY, "dk-9 unknown", 5, 1_700_000_000_000_000L, 1_700_000_003_100_000L);
    OutboxEvent event = Events.materialize(8, new byte[] {1}).error(exhausted).build();

    assertThat(SerdeChecks.direct(serializer, event).error()).isEqualTo(exhausted);
    assertThat(SerdeChecks.typed(OutboxEventSerializer.class, event).error()).isEqualTo(exhausted);
  }

  @Test
  void readsNullsStoredByVersion1() throws IOException {
    byte[] stored = hex(STORED_V1_NULLS_HEX);

    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1_NULLS);
    assertThat(SerdeChecks.direct(serializer, STORED_V1_NULLS)).isEqualTo(STORED_V1_NULLS);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 4, -1})
  void refusesAnUnknownVersion(int version) throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1);

    assertThatThrownBy(() -> serializer.deserialize(version, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version " + version);
  }
}
