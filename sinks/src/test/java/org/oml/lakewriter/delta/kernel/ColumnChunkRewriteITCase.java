package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.delta.DataFile;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.LakeSchemas;
import org.oml.lakewriter.delta.LakeSchemas.TableSchema;
import org.oml.lakewriter.delta.TableId;
import org.oml.lakewriter.delta.TableKind;
import org.oml.lakewriter.delta.TableRow;
import org.oml.lakewriter.delta.TableUnusableException;
import org.oml.lakewriter.delta.read.LakeReader;
import org.oml.lakewriter.delta.testing.ParquetFiles;

/**
 * A copy-on-write's new file made by copying the old file's unchanged column chunks ({@link
 * KernelDeltaTableClient#rewriteDataFile}): it holds exactly the changed rows, read back by the
 * client and by Kernel's scan ({@link LakeReader}), with the Delta statistics of the same rows
 * written whole; the chunks of unchanged columns are the old file's, the changed ones are not; and
 * columns left unread reach the new file in the copied chunks; and a file this writer did not lay
 * out, rows that are not row for row, or a changed column with values not read are not rewritten.
 */
class ColumnChunkRewriteITCase {
  private static final int ROWS = 300;

  /** What a silver retraction reads of a file's string and binary columns. */
  private static final Set<String> READS = Set.of("artifact_id", "state", "workarea_id");

  @TempDir Path dir;

  @Test
  void aRetractionsColumnsAreEncodedAgainTheOthersCopied() throws Exception {
    for (TableKind kind : List.of(TableKind.SILVER_MEMORIES, TableKind.GOLD_LINEAGE)) {
      String changed = kind == TableKind.SILVER_MEMORIES ? "state" : "retractions";
      check(kind, LakeConfig.of(dir.resolve(kind.name()).toUri().toString()), changed, 10);
    }
  }

  /**
   * An erase clears the body: the body's chunk is encoded again, not copied, and the erased
   * ciphertext is in the old file's bytes but not in the new file's.
   */
  @Test
  void anErasedBodyIsEncodedAgainWithoutTheErasedCiphertext() throws Exception {
    Checked checked =
        check(TableKind.SILVER_MEMORIES, LakeConfig.of(dir.toUri().toString()), "body", 37);
    assertThat(checked.newFooter().getBlocks().get(0).getColumns().get(0).getCodec())
        .as("the bytes are searched as written")
        .isEqualTo(CompressionCodecName.UNCOMPRESSED);
    byte[] oldBytes = Files.readAllBytes(checked.oldFile());
    byte[] newBytes = Files.readAllBytes(checked.newFile());
    int body = LakeSchemas.SILVER_MEMORIES.indexOf("body");
    int erased = 0;
    for (int i = 0; i < ROWS; i += 37) {
      byte[] ciphertext = (byte[]) checked.before().get(i).value(body);
      if (ciphertext != null && ciphertext.length >= 32) {
        assertThat(ParquetFiles.contains(oldBytes, ciphertext)).as("row %d, old file", i).isTrue();
        assertThat(ParquetFiles.contains(newBytes, ciphertext)).as("row %d, new file", i).isFalse();
        erased++;
      }
    }
    assertThat(erased).isGreaterThan(3);
  }

  /** Row groups of ~16 KiB: only the groups with a changed row have that column encoded again. */
  @Test
  void manyRowGroupsEachCopiedOrEncodedOnItsOwn() throws Exception {
    LakeConfig lake =
        new LakeConfig(dir.toUri().toString(), Map.of("parquet.block.size", "16384"));
    Checked checked = check(TableKind.SILVER_MEMORIES, lake, "state", 250);
    List<BlockMetaData> blocks = checked.oldFooter().getBlocks();
    List<BlockMetaData> rewritten = checked.newFooter().getBlocks();
    assertThat(blocks).hasSizeGreaterThan(1);
    assertThat(rewritten).hasSameSizeAs(blocks);
    int state = LakeSchemas.SILVER_MEMORIES.indexOf("state");
    long first = 0;
    int copied = 0;
    for (int b = 0; b < blocks.size(); b++) {
      long rows = blocks.get(b).getRowCount();
      boolean touched = false;
      for (long r = first; r < first + rows; r++) {
        touched |= r % 250 == 0;
      }
      ColumnChunkMetaData before = blocks.get(b).getColumns().get(state);
      ColumnChunkMetaData after = rewritten.get(b).getColumns().get(state);
      if (!touched) {
        assertThat(describe(after)).isEqualTo(describe(before));
        copied++;
      } else {
        assertThat(describe(after)).isNotEqualTo(describe(before));
      }
      first += rows;
    }
    assertThat(copied).as("row groups without a changed row").isPositive();
  }

  /**
   * A retraction read only the columns it needs: the body, digests and principals it left unread
   * reach the new file in the copied chunks, and the rows read back whole are those of a whole
   * read with the state changed.
   */
  @Test
  void columnsLeftUnreadAreCopiedIntoTheNewFile() throws Exception {
    check(TableKind.SILVER_MEMORIES, LakeConfig.of(dir.toUri().toString()), "state", 10, READS);
  }

  /**
   * An erase of a row read without its body changes the body column, whose other values this
   * rewrite does not have: nothing is written, and the caller reads the file whole. A whole write
   * of rows with values not read is refused.
   */
  @Test
  void aChangedColumnWithValuesNotReadIsNotRewritten() throws Exception {
    TableId table = TableId.of("acme", TableKind.SILVER_MEMORIES);
    TableSchema schema = LakeSchemas.SILVER_MEMORIES;
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(dir.toUri().toString()))) {
      DataFile old =
          single(client.writeDataFiles(table, ParquetWriterParityITCase.rows(schema, ROWS, 3)));
      List<TableRow> before = client.readDataFile(table, old, READS);
      assertThat(before).allMatch(TableRow::holdsNotRead);
      int body = schema.indexOf("body");
      assertThatThrownBy(() -> before.get(0).value(body))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("was not read");
      long files = Files.list(local(client, table, old).getParent()).count();
      assertThat(client.rewriteDataFile(table, old, before, change(schema, before, "body", 37)))
          .isEmpty();
      assertThat(client.columnChunkRewrites()).isZero();
      assertThat(Files.list(local(client, table, old).getParent()).count()).isEqualTo(files);
      assertThatThrownBy(() -> client.writeDataFiles(table, before))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not read from its file");
    }
  }

  @Test
  void aFileNotLaidOutByThisWriterIsNotCopied() throws Exception {
    LakeConfig lake = LakeConfig.of(dir.toUri().toString());
    TableId table = TableId.of("acme", TableKind.SILVER_MEMORIES);
    TableSchema schema = LakeSchemas.SILVER_MEMORIES;
    try (KernelDeltaTableClient kernels = new KernelDeltaTableClient(lake, false);
        KernelDeltaTableClient shared = new KernelDeltaTableClient(lake, true)) {
      DataFile old =
          single(kernels.writeDataFiles(table, ParquetWriterParityITCase.rows(schema, ROWS, 5)));
      List<TableRow> before = shared.readDataFile(table, old);
      List<TableRow> after = change(schema, before, "state", 10);
      assertThat(shared.rewriteDataFile(table, old, before, after)).isEmpty();
      assertThat(shared.columnChunkRewrites()).isZero();

      // Not row for row (a row left the file): not copied either.
      DataFile own = single(shared.writeDataFiles(table, after));
      List<TableRow> fewer = after.subList(1, after.size());
      assertThat(shared.rewriteDataFile(table, own, after, fewer)).isEmpty();
      assertThat(shared.columnChunkRewrites()).isZero();
    }
  }

  @Test
  void aFileGoneUnderTheRewriteIsNamedGone() throws Exception {
    TableId table = TableId.of("acme", TableKind.SILVER_MEMORIES);
    TableSchema schema = LakeSchemas.SILVER_MEMORIES;
    try (KernelDeltaTableClient client =
        new KernelDeltaTableClient(LakeConfig.of(dir.toUri().toString()))) {
      DataFile old =
          single(client.writeDataFiles(table, ParquetWriterParityITCase.rows(schema, 20, 1)));
      List<TableRow> before = client.readDataFile(table, old);
      Files.delete(local(client, table, old));
      assertThatThrownBy(
              () -> client.rewriteDataFile(table, old, before, change(schema, before, "state", 5)))
          .isInstanceOf(TableUnusableException.class)
          .hasMessageContaining("is gone");
    }
  }

  /**
   * Writes {@value #ROWS} rows, changes {@code column} (and the seq) of every {@code every}-th row
   * and rewrites the file; checks the new file against the same rows written whole.
   */
  private Checked check(TableKind kind, LakeConfig lake, String column, int every)
      throws Exception {
    return check(kind, lake, column, every, null);
  }

  /** As above, the old file read with only {@code read} of its string and binary columns. */
  private Checked check(
      TableKind kind, LakeConfig lake, String column, int every, Set<String> read)
      throws Exception {
    TableId table = TableId.of("acme", kind);
    TableId whole = TableId.of("whole", kind);
    TableSchema schema = LakeSchemas.of(kind);
    try (KernelDeltaTableClient client = new KernelDeltaTableClient(lake)) {
      DataFile old =
          single(client.writeDataFiles(table, ParquetWriterParityITCase.rows(schema, ROWS, 3)));
      List<TableRow> before = client.readDataFile(table, old);
      List<TableRow> after = change(schema, before, column, every);
      List<TableRow> unread =
          read == null ? before : client.readDataFile(table, old, read);
      long rewrites = client.columnChunkRewrites();
      DataFile rewritten =
          single(
              client
                  .rewriteDataFile(table, old, unread, change(schema, unread, column, every))
                  .orElseThrow());
      assertThat(client.columnChunkRewrites()).isEqualTo(rewrites + 1);
      DataFile written = single(client.writeDataFiles(whole, after));

      assertThat(client.readDataFile(table, rewritten)).isEqualTo(after);
      assertThat(rewritten.statsJson()).isEqualTo(written.statsJson());
      client.commit(table, 1_000, List.of(rewritten));
      client.commit(whole, 1_000, List.of(written));
      List<Map<String, Object>> scanned =
          ParquetWriterParityITCase.comparable(LakeReader.open(lake).rows(table));
      assertThat(scanned)
          .hasSize(ROWS)
          .isEqualTo(ParquetWriterParityITCase.comparable(LakeReader.open(lake).rows(whole)));

      // Chunk by chunk: the changed column and seq are encoded again, every other one is the
      // old file's (same codec, encodings, sizes and statistics).
      ParquetMetadata oldFooter = footer(client, table, old);
      ParquetMetadata newFooter = footer(client, table, rewritten);
      BlockMetaData oldBlock = oldFooter.getBlocks().get(0);
      BlockMetaData newBlock = newFooter.getBlocks().get(0);
      for (int col = 0; col < schema.columns().size(); col++) {
        String name = schema.columns().get(col).name();
        String was = describe(oldBlock.getColumns().get(col));
        String is = describe(newBlock.getColumns().get(col));
        if (name.equals(column) || name.equals("seq")) {
          assertThat(is).as(name).isNotEqualTo(was);
        } else {
          assertThat(is).as(name).isEqualTo(was);
        }
      }
      assertThat(newFooter.getFileMetaData().getKeyValueMetaData())
          .isEqualTo(oldFooter.getFileMetaData().getKeyValueMetaData());
      return new Checked(
          before, oldFooter, newFooter, local(client, table, old), local(client, table, rewritten));
    }
  }

  /** Every {@code every}-th row with a new {@code column} value (null for the body), a new seq. */
  private static List<TableRow> change(
      TableSchema schema, List<TableRow> rows, String column, int every) {
    List<TableRow> changed = new ArrayList<>(rows);
    for (int i = 0; i < rows.size(); i += every) {
      TableRow row = rows.get(i);
      changed.set(
          i,
          row.toBuilder(schema, row.seq() + 1)
              .set(column, column.equals("body") ? null : column + "-changed-" + i)
              .build());
    }
    return changed;
  }

  private record Checked(
      List<TableRow> before,
      ParquetMetadata oldFooter,
      ParquetMetadata newFooter,
      Path oldFile,
      Path newFile) {}

  private static Path local(KernelDeltaTableClient client, TableId table, DataFile file) {
    return Path.of(URI.create(client.tablePath(table) + "/" + file.relativePath()));
  }

  private static DataFile single(List<DataFile> files) {
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  private static ParquetMetadata footer(KernelDeltaTableClient client, TableId table, DataFile file)
      throws IOException {
    org.apache.hadoop.fs.Path path =
        new org.apache.hadoop.fs.Path(
            new org.apache.hadoop.fs.Path(client.tablePath(table)), file.relativePath());
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(path, new Configuration()))) {
      return reader.getFooter();
    }
  }

  /** What a chunk is, apart from where it lies in its file. */
  private static String describe(ColumnChunkMetaData chunk) {
    return chunk.getPath()
        + " "
        + chunk.getCodec()
        + " "
        + chunk.getEncodings()
        + " values="
        + chunk.getValueCount()
        + " size="
        + chunk.getTotalSize()
        + "/"
        + chunk.getTotalUncompressedSize()
        + " stats="
        + chunk.getStatistics();
  }
}
