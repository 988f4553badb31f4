package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.ArtifactKey;
import org.oml.lakewriter.delta.CandidateFiles;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.SnapshotId;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.read.TableContents;

class KernelDeltaTableClientITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);

  @TempDir Path lake;

  @Test
  void commitsWithTxnAndSkipsAtOrBelowIt() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(DeltaTableClient.NO_VERSION);
      List<DataFile> files = client.writeDataFiles(BRONZE, rows(1, 2, 3));
      assertThat(files).hasSize(1);
      assertThat(files.get(0).statsJson()).contains("\"numRecords\":3");

      assertThat(client.commit(BRONZE, 10, files)).isEqualTo(CommitOutcome.COMMITTED);
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(10);
      assertThat(client.commit(BRONZE, 10, files)).isEqualTo(CommitOutcome.ALREADY_APPLIED);
      assertThat(client.commit(BRONZE, 7, files)).isEqualTo(CommitOutcome.ALREADY_APPLIED);

      assertThat(client.commit(BRONZE, 20, client.writeDataFiles(BRONZE, rows(11, 12))))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    TableContents contents = LakeReader.open(config).contents(BRONZE).orElseThrow();
    assertThat(contents.seqs()).containsExactly(1L, 2L, 3L, 11L, 12L);
    assertThat(contents.txnVersion()).isEqualTo(20);
    assertThat(contents.fileCount()).isEqualTo(2);
    assertThat(contents.tableVersion()).isEqualTo(2); // 0 = create, 1 and 2 = the two batches
    assertThat(LakeReader.open(config).rowsAfter(BRONZE, 3)).hasSize(2);
    assertThat(LakeReader.open(config).tables()).containsExactly(BRONZE);
  }

  @Test
  void readsOnlyKeysAndAskedSeqsWithTheSnapshotTheyCameFrom() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      assertThat(client.snapshotId(silver)).isEqualTo(SnapshotId.ABSENT);
      assertThat(client.forEachSilverKey(silver, k -> {})).isEqualTo(SnapshotId.ABSENT);
      assertThat(client.seqsHeld(BRONZE, List.of(1L))).isEmpty();

      client.commit(silver, 10, client.writeDataFiles(silver, List.of(silverRow(2, "a"))));
      client.commit(
          silver,
          20,
          client.writeDataFiles(silver, List.of(silverRow(12, "b"), silverRow(13, "c"))));
      List<ArtifactKey> keys = new java.util.ArrayList<>();
      SnapshotId read = client.forEachSilverKey(silver, keys::add);
      assertThat(read).isEqualTo(new SnapshotId(2, 20)); // 0 = create, 1 and 2 = the batches
      assertThat(client.snapshotId(silver)).isEqualTo(read);
      assertThat(keys)
          .containsExactlyInAnyOrder(
              new ArtifactKey("a", 1), new ArtifactKey("b", 1), new ArtifactKey("c", 1));

      client.commit(BRONZE, 10, client.writeDataFiles(BRONZE, rows(1, 2, 3)));
      client.commit(BRONZE, 20, client.writeDataFiles(BRONZE, rows(11, 12)));
      assertThat(client.seqsHeld(BRONZE, List.of(2L, 4L, 12L, 99L)))
          .containsExactlyInAnyOrder(2L, 12L);
    }
  }

  @Test
  void statisticsCoverOnlyTheSkippingKeys() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      TableRow row =
          TableRow.builder(LakeSchemas.SILVER_MEMORIES, 5)
              .set("artifact_id", "a1")
              .set("version", 1L)
              .set("state", "active")
              .set("body", "secret-body".getBytes())
              .build();
      String stats = client.writeDataFiles(silver, List.of(row)).get(0).statsJson();
      assertThat(stats).contains("artifact_id", "version", "state", "seq");
      assertThat(stats).doesNotContain("body", "tenant_id");

      TableRow deadLetter =
          TableRow.builder(LakeSchemas.DEAD_LETTER, 6)
              .set("error_class", "INVALID_TENANT")
              .set("tenant_id", "x".repeat(5000))
              .build();
      String deadStats =
          client
              .writeDataFiles(TableId.invalidTenantDeadLetter(), List.of(deadLetter))
              .get(0)
              .statsJson();
      assertThat(deadStats).contains("error_class").doesNotContain("tenant_id", "xxxx");
    }
  }

  @Test
  void refusesACommitWhoseDataFileIsGone() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      List<DataFile> files = client.writeDataFiles(BRONZE, rows(1));
      try (Stream<Path> parquet = Files.list(lake.resolve(BRONZE.relativePath()))) {
        for (Path p : parquet.filter(p -> p.toString().endsWith(".parquet")).toList()) {
          Files.delete(p);
        }
      }
      assertThatThrownBy(() -> client.commit(BRONZE, 5, files))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("is gone");
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(DeltaTableClient.NO_VERSION);
    }
  }

  @Test
  void statisticsPruneCandidateFilesAndAFileReadsBackAsItsRows() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      // Five files with disjoint key ranges: a0..a4, b0..b4, ..., e0..e4.
      List<DataFile> files = new java.util.ArrayList<>();
      long seq = 0;
      for (String prefix : List.of("a", "b", "c", "d", "e")) {
        List<TableRow> rows = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
          rows.add(silverRow(++seq, prefix + i));
        }
        files.addAll(client.writeDataFiles(silver, rows));
        client.commit(silver, seq, files.subList(files.size() - 1, files.size()));
      }
      CandidateFiles candidates =
          client.filesThatMayHold(silver, List.of(new ArtifactKey("c3", 1)));
      assertThat(candidates.txnVersion()).isEqualTo(25);
      assertThat(candidates.files()).containsExactly(files.get(2));
      // Statistics rule files out, not rows: "c2x" sorts inside c0..c4 but is in no row.
      assertThat(client.filesThatMayHold(silver, List.of(new ArtifactKey("c2x", 1))).files())
          .containsExactly(files.get(2));
      assertThat(client.filesThatMayHold(silver, List.of(new ArtifactKey("c3", 2))).files())
          .isEmpty();
      assertThat(
              client
                  .filesThatMayHold(
                      silver, List.of(new ArtifactKey("a1", 1), new ArtifactKey("e4", 1)))
                  .files())
          .containsExactlyInAnyOrder(files.get(0), files.get(4));

      List<TableRow> read = client.readDataFile(silver, files.get(2));
      assertThat(read).extracting(TableRow::seq).containsExactly(11L, 12L, 13L, 14L, 15L);
      assertThat(read.get(0)).isEqualTo(silverRow(11, "c0"));
      assertThat(
              client.filesThatMayHold(
                  TableId.of("nobody", TableKind.SILVER_MEMORIES),
                  List.of(new ArtifactKey("a", 1))))
          .isEqualTo(new CandidateFiles(DeltaTableClient.NO_VERSION, List.of()));
    }
  }

  @Test
  void namesTheFileOfEachKeyAndWhichNamedFilesAreLive() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      assertThat(client.forEachSilverKeyInFiles(silver, Map.of(), (p, k) -> {}))
          .isEqualTo(SnapshotId.ABSENT);
      assertThat(client.liveFiles(silver, List.of("x.parquet")))
          .isEqualTo(new org.oml.lakewriter.delta.LiveFiles(SnapshotId.ABSENT, java.util.Map.of()));
      List<DataFile> first = client.writeDataFiles(silver, List.of(silverRow(2, "a")));
      client.commit(silver, 10, first);
      List<DataFile> second =
          client.writeDataFiles(silver, List.of(silverRow(12, "b"), silverRow(13, "c")));
      client.commit(silver, 20, second);

      java.util.Map<ArtifactKey, String> where = new java.util.HashMap<>();
      SnapshotId read = client.forEachSilverKeyInFiles(silver, Map.of(), (path, key) -> where.put(key, path));
      assertThat(read).isEqualTo(new SnapshotId(2, 20));
      assertThat(where)
          .containsOnly(
              java.util.Map.entry(new ArtifactKey("a", 1), first.get(0).relativePath()),
              java.util.Map.entry(new ArtifactKey("b", 1), second.get(0).relativePath()),
              java.util.Map.entry(new ArtifactKey("c", 1), second.get(0).relativePath()));

      // Only the named files are returned, with their add actions; an unknown name is not live.
      org.oml.lakewriter.delta.LiveFiles live =
          client.liveFiles(silver, List.of(second.get(0).relativePath(), "gone.parquet"));
      assertThat(live.snapshot()).isEqualTo(read);
      assertThat(live.files()).containsOnlyKeys(second.get(0).relativePath());
      DataFile named = live.files().get(second.get(0).relativePath());
      assertThat(named.sizeBytes()).isEqualTo(second.get(0).sizeBytes());
      assertThat(client.readDataFile(silver, named))
          .extracting(TableRow::seq)
          .containsExactly(12L, 13L);
      assertThat(client.liveFiles(silver, List.of()).files()).isEmpty();
    }
  }

  /**
   * The key index's read of a table goes through the column reader file by file (stop 53); a file
   * that reader does not read exactly (another writer's layout) sends the whole table to Kernel's
   * scan, which reads it: the same keys either way.
   */
  @Test
  void keysOfAFileInAForeignLayoutAreReadByKernelsScan() throws Exception {
    LakeConfig config = LakeConfig.of(lake.toUri().toString());
    TableId silver = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      List<DataFile> ours = client.writeDataFiles(silver, List.of(silverRow(2, "a")));
      client.commit(silver, 10, ours);
      java.util.Map<ArtifactKey, String> before = new java.util.HashMap<>();
      client.forEachSilverKeyInFiles(silver, Map.of(), (path, key) -> before.put(key, path));
      assertThat(before)
          .containsOnly(java.util.Map.entry(new ArtifactKey("a", 1), ours.get(0).relativePath()));

      String name = "foreign-millis.parquet";
      long size =
          ColumnParquetReaderITCase.Layout.TIMESTAMP_IN_MILLIS.write(
              org.oml.lakewriter.delta.LakeSchemas.of(TableKind.SILVER_MEMORIES),
              client.tablePath(silver) + "/" + name,
              KernelEngines.hadoopConf(config));
      client.commit(silver, 20, List.of(new DataFile(name, size, 0, null)));

      java.util.Map<ArtifactKey, String> after = new java.util.HashMap<>();
      SnapshotId read = client.forEachSilverKeyInFiles(silver, Map.of(), (path, key) -> after.put(key, path));
      assertThat(read).isEqualTo(new SnapshotId(2, 20));
      assertThat(after)
          .containsOnly(
              java.util.Map.entry(new ArtifactKey("a", 1), ours.get(0).relativePath()),
              java.util.Map.entry(new ArtifactKey("artifact_id1", 10), name),
              java.util.Map.entry(new ArtifactKey("artifact_id2", 20), name),
              java.util.Map.entry(new ArtifactKey("artifact_id3", 30), name));
    }
  }

  private static TableRow silverRow(long seq, String artifact) {
    return TableRow.builder(LakeSchemas.SILVER_MEMORIES, seq)
        .set("artifact_id", artifact)
        .set("version", 1L)
        .set("state", "active")
        .set("workarea_id", "wa-1")
        .set("event_time", 1_700_000_000_000_000L + seq)
        .set("body", ("body-" + seq).getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .build();
  }

  static List<TableRow> rows(long... seqs) {
    return java.util.Arrays.stream(seqs)
        .mapToObj(
            seq ->
                TableRow.builder(LakeSchemas.BRONZE_JOURNAL_EVENTS, seq)
                    .set("artifact_id", "a" + seq)
                    .set("version", 1L)
                    .set("kind", "journal")
                    .set("tenant_id", "acme")
                    .set("event_time", 1_700_000_000_000_000L + seq)
                    .build())
        .toList();
  }
}
