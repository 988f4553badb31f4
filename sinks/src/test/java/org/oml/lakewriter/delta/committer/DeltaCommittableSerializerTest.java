package org.oml.lakewriter.delta.committer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;

class DeltaCommittableSerializerTest {
  /** The committable whose version 1 bytes are stored in {@code delta-committable-v1.hex}. */
  static final DeltaCommittable STORED_V1 =
      new DeltaCommittable(
          41,
          57,
          List.of(
              new TableCommit(
                  TableId.invalidTenantDeadLetter(),
                  1,
                  List.of(new DataFile("a.parquet", 900, 1_764_000_000_000L, null))),
              new TableCommit(
                  TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS),
                  3,
                  List.of(
                      new DataFile(
                          "4f0c-ü.parquet",
                          4096,
                          1_764_000_000_123L,
                          "{\"numRecords\":3,\"minValues\":{\"seq\":42}}"))),
              new TableCommit(TableId.of("acme", TableKind.SILVER_MEMORIES), 0, List.of())));

  private final DeltaCommittableSerializer serializer = new DeltaCommittableSerializer();

  @Test
  void roundTrips() throws IOException {
    byte[] bytes = serializer.serialize(STORED_V1);
    assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(STORED_V1);
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = storedV1();
    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1);
    // Version 1 is still what we write: the stored bytes are today's bytes.
    assertThat(serializer.serialize(STORED_V1)).isEqualTo(stored);
  }

  @Test
  void longStringsAreNotCappedAt64KiB() throws IOException {
    String stats = "x".repeat(70_000);
    DeltaCommittable big =
        new DeltaCommittable(
            0,
            1,
            List.of(
                new TableCommit(
                    TableId.of("acme", TableKind.DEAD_LETTER),
                    1,
                    List.of(new DataFile("f.parquet", 1, 1, stats)))));
    assertThat(serializer.deserialize(1, serializer.serialize(big))).isEqualTo(big);
  }

  @Test
  void refusesAnUnknownVersion() {
    assertThatThrownBy(() -> serializer.deserialize(2, new byte[0]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  private static byte[] storedV1() throws IOException {
    try (InputStream in =
        DeltaCommittableSerializerTest.class.getResourceAsStream("/delta-committable-v1.hex")) {
      String hex = new String(in.readAllBytes(), StandardCharsets.US_ASCII).replaceAll("\\s", "");
      return HexFormat.of().parseHex(hex);
    }
  }

  /** Prints the hex of {@link #STORED_V1}; run once when version 1 was introduced. */
  public static void main(String[] args) throws IOException {
    String hex = HexFormat.of().formatHex(new DeltaCommittableSerializer().serialize(STORED_V1));
    for (int i = 0; i < hex.length(); i += 64) {
      System.out.println(hex.substring(i, Math.min(hex.length(), i + 64)));
    }
  }
}
