package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.DeltaTableClient;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.read.LakeReader;

/**
 * The compaction commit on Kernel 4.4.0 itself: what it writes into the log, what it leaves of
 * the txn version, and the Kernel behaviour that decided it carries no txn action at all.
 */
class CompactionCommitITCase {
  private static final TableId BRONZE = TableId.of("acme", TableKind.BRONZE_JOURNAL_EVENTS);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /**
   * Pins the reason a compaction commit carries no txn action: Kernel refuses a transaction whose
   * txn version for the app id is at or below the recorded one (so "the same version again" is not
   * possible), and a higher one would claim a batch that never came.
   */
  @Test
  void kernelRefusesATxnActionAtTheRecordedVersion() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      client.commit(BRONZE, 10, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(1)));
    }
    Engine engine = KernelEngines.engine(KernelEngines.hadoopConf(lake));
    String path = dir.resolve(BRONZE.relativePath()).toUri().toString();
    Snapshot snapshot = TableManager.loadSnapshot(path).build(engine);
    assertThatThrownBy(
            () ->
                snapshot
                    .buildUpdateTableTransaction("compaction", Operation.MANUAL_UPDATE)
                    .withTransactionId(DeltaTableClient.APP_ID, 10)
                    .build(engine))
        .isInstanceOf(ConcurrentTransactionException.class);
  }

  @Test
  void aCompactionCommitChangesNoDataAndLeavesTheTxnVersion() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    List<DataFile> committed = new ArrayList<>();
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (int i = 1; i <= 5; i++) {
        List<DataFile> files = client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(i));
        client.commit(BRONZE, i * 10L, files);
        committed.addAll(files);
      }
    }
    List<java.util.Map<String, Object>> before = LakeReader.open(lake).rows(BRONZE);
    long versionBefore = LakeReader.open(lake).tableVersion(BRONZE);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      assertThat(client.smallFiles(BRONZE, 1 << 20).files()).hasSize(5);
      List<TableRow> rows = new ArrayList<>();
      for (DataFile file : committed) {
        rows.addAll(client.readDataFile(BRONZE, file));
      }
      List<DataFile> adds = client.writeDataFiles(BRONZE, rows);
      assertThat(client.commitCompaction(BRONZE, committed, adds)).isTrue();
      assertThat(client.readTxnVersion(BRONZE)).isEqualTo(50);
      // A second compaction of the same (now removed) files commits nothing.
      assertThat(client.commitCompaction(BRONZE, committed, client.writeDataFiles(BRONZE, rows)))
          .isFalse();
      // Exactly-once is untouched: a replay is already applied, the next batch commits.
      assertThat(client.commit(BRONZE, 50, List.of())).isEqualTo(CommitOutcome.ALREADY_APPLIED);
      assertThat(
              client.commit(
                  BRONZE, 60, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(6))))
          .isEqualTo(CommitOutcome.COMMITTED);
    }
    LakeReader reader = LakeReader.open(lake);
    assertThat(reader.rows(BRONZE).subList(0, 5)).isEqualTo(before);
    assertThat(reader.fileCount(BRONZE)).isEqualTo(2);
    Path commit =
        dir.resolve(BRONZE.relativePath())
            .resolve("_delta_log")
            .resolve(String.format("%020d.json", versionBefore + 1));
    int adds = 0;
    int removes = 0;
    for (String line : Files.readAllLines(commit, StandardCharsets.UTF_8)) {
      JsonNode action = JSON.readTree(line);
      assertThat(action.has("txn")).as("a txn action in " + line).isFalse();
      if (action.has("add")) {
        adds++;
        assertThat(action.get("add").get("dataChange").asBoolean()).isFalse();
      }
      if (action.has("remove")) {
        removes++;
        assertThat(action.get("remove").get("dataChange").asBoolean()).isFalse();
      }
    }
    assertThat(adds).isEqualTo(1);
    assertThat(removes).isEqualTo(5);
  }

  @Test
  void aCheckpointIsWrittenAndReadable() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      for (int i = 1; i <= 3; i++) {
        client.commit(
            BRONZE, i * 10L, client.writeDataFiles(BRONZE, KernelDeltaTableClientITCase.rows(i)));
      }
      long version = client.checkpoint(BRONZE);
      assertThat(version).isEqualTo(3);
      assertThat(
              dir.resolve(BRONZE.relativePath())
                  .resolve("_delta_log")
                  .resolve(String.format("%020d.checkpoint.parquet", version)))
          .exists();
      assertThat(client.checkpoint(BRONZE)).as("again: already there").isEqualTo(3);
      assertThat(client.checkpoint(TableId.of("nobody", TableKind.BRONZE_JOURNAL_EVENTS)))
          .isEqualTo(DeltaTableClient.NO_VERSION);
    }
    assertThat(LakeReader.open(lake).rows(BRONZE)).hasSize(3);
    assertThat(LakeReader.open(lake).txnVersion(BRONZE)).isEqualTo(30);
  }
}
