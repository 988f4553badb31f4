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
import org.oml.lakewriter.delta.Rewrite;
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

  /**
   * The committable whose version 2 bytes are stored in {@code delta-committable-v2.hex}: a silver
   * MERGE that replaces one file, a MERGE that replaces none (only its base is checked), findings.
   */
  static final DeltaCommittable STORED_V2 =
      new DeltaCommittable(
          57,
          90,
          List.of(
              new TableCommit(
                  TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS),
                  4,
                  List.of(new DataFile("b.parquet", 700, 1_764_000_100_000L, null))),
              new TableCommit(
                  TableId.of("acme", TableKind.SILVER_MEMORIES),
                  5,
                  List.of(
                      new DataFile("rewritten-ü.parquet", 5000, 1_764_000_100_001L, "{\"n\":3}"),
                      new DataFile("new.parquet", 2000, 1_764_000_100_002L, "{\"n\":2}")),
                  new Rewrite(
                      57,
                      List.of(
                          new DataFile(
                              "old.parquet",
                              4800,
                              1_764_000_000_500L,
                              "{\"numRecords\":3,\"minValues\":{\"artifact_id\":\"a\"}}")))),
              new TableCommit(
                  TableId.of("beta", TableKind.SILVER_MEMORIES),
                  1,
                  List.of(new DataFile("c.parquet", 900, 1_764_000_100_003L, null)),
                  new Rewrite(-1, List.of()))),
          2);

  /**
   * The committable whose version 3 bytes are stored in {@code delta-committable-v3.hex}: {@link
   * #STORED_V2} with the first seq of each table's events, one of them unchecked.
   */
  static final DeltaCommittable STORED_V3 =
      new DeltaCommittable(
          STORED_V2.frontier(),
          STORED_V2.batchEnd(),
          List.of(
              STORED_V2.tables().get(0).withFirstSeq(58),
              STORED_V2.tables().get(1).withFirstSeq(61),
              STORED_V2.tables().get(2)),
          STORED_V2.retractsWithoutRow());

  private final DeltaCommittableSerializer serializer = new DeltaCommittableSerializer();

  @Test
  void roundTrips() throws IOException {
    for (DeltaCommittable committable : List.of(STORED_V1, STORED_V2, STORED_V3)) {
      byte[] bytes = serializer.serialize(committable);
      assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(committable);
    }
  }

  /**
   * Gold tables need no new version: a table is stored by its prefix and its kind's path ({@code
   * gold/lineage}, with a slash), and only a writer that has the gold kinds writes them.
   */
  @Test
  void roundTripsGoldTables() throws IOException {
    DeltaCommittable gold =
        new DeltaCommittable(
            90,
            120,
            List.of(
                new TableCommit(
                    TableId.of("acme", TableKind.GOLD_LINEAGE),
                    2,
                    List.of(new DataFile("l.parquet", 300, 1_764_000_200_000L, "{\"n\":2}")),
                    new Rewrite(
                        90, List.of(new DataFile("old.parquet", 200, 1_764_000_100_000L, null)))),
                new TableCommit(
                    TableId.of("acme", TableKind.GOLD_WORKAREA_MEMORIES),
                    0,
                    List.of(),
                    new Rewrite(
                        90, List.of(new DataFile("m.parquet", 100, 1_764_000_100_000L, null)))),
                new TableCommit(
                    TableId.of("acme", TableKind.GOLD_WORKAREAS),
                    1,
                    List.of(new DataFile("w.parquet", 100, 1_764_000_200_001L, null)))),
            0);
    assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(gold)))
        .isEqualTo(gold);
  }

  @Test
  void readsBytesStoredByVersion1() throws IOException {
    byte[] stored = stored("/delta-committable-v1.hex");
    assertThat(serializer.deserialize(1, stored)).isEqualTo(STORED_V1);
    // Version 2 only appends: today's bytes of a version 1 committable start with its v1 bytes.
    assertThat(serializer.serialize(STORED_V1)).startsWith(stored);
  }

  @Test
  void readsBytesStoredByVersion2() throws IOException {
    byte[] stored = stored("/delta-committable-v2.hex");
    assertThat(serializer.deserialize(2, stored)).isEqualTo(STORED_V2);
    assertThat(serializer.deserialize(2, stored).tables().get(1).removes())
        .extracting(DataFile::relativePath)
        .containsExactly("old.parquet");
    assertThat(serializer.deserialize(2, stored).tables())
        .extracting(TableCommit::firstSeq)
        .containsOnly(TableCommit.UNCHECKED);
    // Version 3 only appends: today's bytes of a version 2 committable start with its v2 bytes.
    assertThat(serializer.serialize(STORED_V2)).startsWith(stored);
  }

  @Test
  void readsBytesStoredByVersion3() throws IOException {
    byte[] stored = stored("/delta-committable-v3.hex");
    assertThat(serializer.deserialize(3, stored)).isEqualTo(STORED_V3);
    assertThat(serializer.deserialize(3, stored).tables())
        .extracting(TableCommit::firstSeq)
        .containsExactly(58L, 61L, TableCommit.UNCHECKED);
    // Version 3 is what we write: the stored bytes are today's bytes.
    assertThat(serializer.serialize(STORED_V3)).isEqualTo(stored);
  }

  @Test
  void version2BytesAreNotReadAsVersion1() throws IOException {
    byte[] v2 = serializer.serialize(STORED_V2);
    assertThatThrownBy(() -> serializer.deserialize(1, v2))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("trailing bytes after a version 1");
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
    assertThat(serializer.deserialize(3, serializer.serialize(big))).isEqualTo(big);
  }

  @Test
  void refusesAnUnknownVersion() {
    assertThatThrownBy(() -> serializer.deserialize(4, new byte[0]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 4");
  }

  private static byte[] stored(String resource) throws IOException {
    try (InputStream in = DeltaCommittableSerializerTest.class.getResourceAsStream(resource)) {
      String hex = new String(in.readAllBytes(), StandardCharsets.US_ASCII).replaceAll("\\s", "");
      return HexFormat.of().parseHex(hex);
    }
  }

  /**
   * Prints the hex of {@link #STORED_V3}; run once when version 3 was introduced (the v1 and v2
   * files were printed the same way from {@link #STORED_V1} and {@link #STORED_V2} by versions 1
   * and 2).
   */
  public static void main(String[] args) throws IOException {
    String hex = HexFormat.of().formatHex(new DeltaCommittableSerializer().serialize(STORED_V3));
    for (int i = 0; i < hex.length(); i += 64) {
      System.out.println(hex.substring(i, Math.min(hex.length(), i + 64)));
    }
  }
}
