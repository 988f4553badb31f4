package org.oml.lakewriter.it.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.oml.lakewriter.delta.CommitOutcome;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.kernel.KernelDeltaTableClient;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.it.support.S3ProxyExtension;
import org.oml.lakewriter.it.support.S3ProxyServer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;

/**
 * A data file read back on S3 ({@link S3ProxyServer}) as a copy-on-write reads it: the client's
 * column reader opens it with the size from the log and no status request, gets every row, and
 * names a file deleted under it as gone (the first GET's 404), as the status request did before;
 * a copy-on-write reads only the columns it changes and copies the rest through S3A.
 * And the log checkpoints the client writes on S3: uploaded under a hidden key, then copied to
 * their name (S3A's rename), none left behind, and the table reads back from them.
 */
class S3ReadBackITCase {
  private static final String BUCKET = "readback";

  @RegisterExtension
  static final S3ProxyExtension S3 = S3ProxyExtension.bucket(BUCKET).afterALocalLake();

  @Test
  void aFileIsReadBackWholeAndADeletedOneIsNamedGone() throws Exception {
    LakeConfig config = new LakeConfig("s3a://" + BUCKET + "/lake", S3.server().s3aOptions());
    TableId table = TableId.of("acme", TableKind.SILVER_MEMORIES);
    List<TableRow> rows = rows(1, 50);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      List<DataFile> files = client.writeDataFiles(table, rows);
      assertThat(files).hasSize(1);
      DataFile file = files.get(0);
      assertThat(client.readDataFile(table, file)).isEqualTo(rows);

      // A retraction's copy-on-write through S3A: the state read and changed, the columns it did
      // not read copied from the old file's chunks.
      TableSchema schema = LakeSchemas.SILVER_MEMORIES;
      List<TableRow> unread = client.readDataFile(table, file, Set.of("artifact_id", "state"));
      List<TableRow> after = new ArrayList<>(rows);
      List<TableRow> afterUnread = new ArrayList<>(unread);
      after.set(7, rows.get(7).toBuilder(schema, 99).set("state", "demoted").build());
      afterUnread.set(7, unread.get(7).toBuilder(schema, 99).set("state", "demoted").build());
      List<DataFile> rewritten =
          client.rewriteDataFile(table, file, unread, afterUnread).orElseThrow();
      assertThat(client.columnChunkRewrites()).isEqualTo(1);
      assertThat(rewritten).hasSize(1);
      assertThat(client.readDataFile(table, rewritten.get(0))).isEqualTo(after);

      String prefix = "s3a://" + BUCKET + "/";
      assertThat(client.tablePath(table)).startsWith(prefix);
      String key = client.tablePath(table).substring(prefix.length()) + "/" + file.relativePath();
      try (S3Client s3 = S3.server().client()) {
        s3.deleteObject(DeleteObjectRequest.builder().bucket(BUCKET).key(key).build());
      }
      assertThatThrownBy(() -> client.readDataFile(table, file))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("is gone");
      assertThatThrownBy(() -> client.rewriteDataFile(table, file, unread, afterUnread))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("is gone");
    } finally {
      FileSystem.closeAll();
    }
  }

  @Test
  void logCheckpointsLandWholeUnderTheirNames() throws Exception {
    LakeConfig config =
        new LakeConfig("s3a://" + BUCKET + "/checkpointed", S3.server().s3aOptions())
            .withLogCheckpointInterval(3)
            .withLogCheckpointsStaggered(false);
    TableId table = TableId.of("acme", TableKind.SILVER_MEMORIES);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(config)) {
      for (int batch = 1; batch <= 7; batch++) {
        assertThat(client.commit(table, batch, client.writeDataFiles(table, rows(batch * 10, 2))))
            .isEqualTo(CommitOutcome.COMMITTED);
      }
      String log = client.tablePath(table).substring(("s3a://" + BUCKET + "/").length());
      List<String> keys;
      try (S3Client s3 = S3.server().client()) {
        keys =
            s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(log + "/_delta_log/"))
                .contents()
                .stream()
                .map(o -> o.key().substring(o.key().lastIndexOf('/') + 1))
                .toList();
      }
      assertThat(keys)
          .contains(
              "00000000000000000003.checkpoint.parquet", "00000000000000000006.checkpoint.parquet")
          .noneMatch(k -> k.endsWith(".tmp"));
    } finally {
      FileSystem.closeAll();
    }
    assertThat(LakeReader.open(config).rows(table)).hasSize(14);
  }

  private static List<TableRow> rows(int first, int count) {
    List<TableRow> rows = new ArrayList<>();
    for (int i = first; i < first + count; i++) {
      rows.add(
          TableRow.builder(LakeSchemas.of(TableKind.SILVER_MEMORIES), i)
              .set("artifact_id", "a-" + i)
              .set("version", 1L)
              .set("state", "promoted")
              .set("tenant_id", "acme")
              .set("body", new byte[] {(byte) i, 1, 2, 3})
              .build());
    }
    return rows;
  }
}
