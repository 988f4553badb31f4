package org.oml.lakewriter.deadletter.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class JournalCommittableSerializerTest {
  private final JournalCommittableSerializer serializer = new JournalCommittableSerializer();

  static final DeadLetterRecord FULL =
      new DeadLetterRecord(
          42,
          "w1",
          "acme",
          "materialize",
          "DIGEST_MISMATCH",
          "sha256 differs",
          1,
          1_700_000_000_000_001L,
          1_700_000_000_000_002L,
          777L,
          "art",
          3L,
          "wa",
          "/p",
          "alice",
          "alice@acme",
          "bob",
          "human",
          "pd",
          "cd",
          "bs",
          12L,
          "dek",
          "{}",
          1_699_999_999_000_000L,
          5L);
  static final DeadLetterRecord SPARSE =
      new DeadLetterRecord(
          43,
          "w1",
          null,
          null,
          "UNKNOWN_KIND",
          "unknown kind 'x'",
          1,
          0,
          0,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null);

  /** Version 1 bytes of {@code [FULL, SPARSE]}, as a checkpoint of this release stores them. */
  static final String V1 =
      "00000002000000000000002a0000000277310000000461636d650000000b6d6174657269616c697a"
          + "650000000f4449474553545f4d49534d415443480000000e73686132353620646966666572730000"
          + "000100060a24181e400100060a24181e400200000000000003090000000361727401000000000000"
          + "0003000000027761000000022f7000000005616c6963650000000a616c6963654061636d65000000"
          + "03626f620000000568756d616e00000002706400000002636400000002627301000000000000000c"
          + "0000000364656b000000027b7d0100060a24180efdc0010000000000000005000000000000002b00"
          + "0000027731ffffffffffffffff0000000c554e4b4e4f574e5f4b494e4400000010756e6b6e6f776e"
          + "206b696e642027782700000001000000000000000000000000000000000000000000000000ffffff"
          + "ff00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff00ff"
          + "ffffffffffffff0000";

  @Test
  void roundTrips() throws IOException {
    JournalCommittable c = new JournalCommittable(List.of(FULL, SPARSE));
    assertThat(serializer.deserialize(2, serializer.serialize(c))).isEqualTo(c);
    JournalCommittable empty = new JournalCommittable(List.of());
    assertThat(serializer.deserialize(2, serializer.serialize(empty))).isEqualTo(empty);
  }

  @Test
  void readsStoredVersionOneBytes() throws IOException {
    // Version 1 wrote SPARSE's tx id as 0: read as present (0), as it was.
    assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1)))
        .isEqualTo(new JournalCommittable(List.of(FULL, withTxId(SPARSE, 0L))));
  }

  /** Version 2 bytes of {@code [FULL, SPARSE]}: SPARSE's NULL tx id stays absent (issue 11 item 4). */
  static final String V2 =
      "00000002000000000000002a0000000277310000000461636d650000000b6d6174657269616c697a"
          + "650000000f4449474553545f4d49534d415443480000000e73686132353620646966666572730000"
          + "000100060a24181e400100060a24181e400201000000000000030900000003617274010000000000"
          + "000003000000027761000000022f7000000005616c6963650000000a616c6963654061636d650000"
          + "0003626f620000000568756d616e0000000270640000000263640000000262730100000000000000"
          + "0c0000000364656b000000027b7d0100060a24180efdc0010000000000000005000000000000002b"
          + "000000027731ffffffffffffffff0000000c554e4b4e4f574e5f4b494e4400000010756e6b6e6f77"
          + "6e206b696e6420277827000000010000000000000000000000000000000000ffffffff00ffffffff"
          + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff00ffffffffffffff"
          + "ff0000";

  @Test
  void readsStoredVersionTwoBytes() throws IOException {
    assertThat(HexFormat.of().formatHex(serializer.serialize(new JournalCommittable(List.of(FULL, SPARSE)))))
        .isEqualTo(V2);
    assertThat(serializer.deserialize(2, HexFormat.of().parseHex(V2)))
        .isEqualTo(new JournalCommittable(List.of(FULL, SPARSE)));
    assertThat(SPARSE.txId()).isNull();
  }

  private static DeadLetterRecord withTxId(DeadLetterRecord r, Long txId) {
    return new DeadLetterRecord(
        r.seq(), r.writerId(), r.tenantId(), r.kind(), r.errorClass(), r.message(), r.attempts(),
        r.firstFailureMicros(), r.lastFailureMicros(), txId, r.artifactId(), r.artifactVersion(),
        r.workareaId(), r.pathAtWrite(), r.writerIdentity(), r.principal(), r.ratifiedBy(),
        r.provenanceClass(), r.plaintextDigest(), r.ciphertextDigest(), r.bodySha256(),
        r.bodyBytes(), r.dataKeyId(), r.envelope(), r.eventTimeMicros(), r.requeueOf());
  }

  @Test
  void refusesUnknownVersionsAndTrailingBytes() throws IOException {
    byte[] bytes = serializer.serialize(new JournalCommittable(List.of(SPARSE)));
    assertThatThrownBy(() -> serializer.deserialize(3, bytes)).hasMessageContaining("version 3");
    byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> serializer.deserialize(2, longer)).hasMessageContaining("trailing");
  }
}
