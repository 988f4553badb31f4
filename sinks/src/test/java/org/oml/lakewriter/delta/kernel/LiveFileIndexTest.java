package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.data.Row;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.RemoveFile;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.statistics.DataFileStatistics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LiveFileIndexTest {
  @Test
  void theNextVersionDropsTheRemovedFilesAndHoldsTheAddedOnes() {
    LiveFileIndex index =
        new LiveFileIndex.Builder()
            .add("a.parquet", add("a.parquet", 10))
            .add("b.parquet", add("b.parquet", 20))
            .build();

    LiveFileIndex next =
        index
            .after(
                List.of("a.parquet"),
                List.of(LiveFileIndex.entry("c.parquet", add("c.parquet", 30))))
            .orElseThrow();

    assertThat(next.entries())
        .extracting(LiveFileIndex.Entry::relativePath)
        .containsExactly("b.parquet", "c.parquet");
    assertThat(next.get("c.parquet").size()).isEqualTo(30);
    assertThat(index.entries()).as("unchanged").hasSize(2);
  }

  @Test
  void aCommitThatRemovesAFileThisVersionDoesNotHoldCarriesNothing() {
    LiveFileIndex index =
        new LiveFileIndex.Builder().add("a.parquet", add("a.parquet", 10)).build();

    assertThat(index.after(List.of("gone.parquet"), List.of())).isEmpty();
  }

  @Test
  void aRemoveIsBuiltFromTheCopiedAddAction() {
    LiveFileIndex.Entry entry = LiveFileIndex.entry("a.parquet", add("a.parquet", 10));

    RemoveFile remove = new RemoveFile(entry.toRemoveFileRow(true, 1234L));

    assertThat(remove.getPath()).isEqualTo("a.parquet");
    assertThat(remove.getSize()).contains(10L);
    assertThat(remove.getDeletionTimestamp()).contains(1234L);
    assertThat(remove.getDataChange()).isTrue();
    assertThat(remove.getStatsJson().orElseThrow()).contains("\"numRecords\":1");
    assertThat(VectorUtils.<String, String>toJavaMap(remove.getPartitionValues().orElseThrow()))
        .isEmpty();
  }

  @Test
  void aFileWithADeletionVectorIsListedButNeverRemoved() {
    DeletionVectorDescriptor dv =
        new DeletionVectorDescriptor("u", "ab^-aqEH.-t@S}K{vb[*k^", Optional.of(4), 40, 3);

    LiveFileIndex.Entry entry =
        LiveFileIndex.entry("d.parquet", addRow("d.parquet", 10, Optional.of(dv)));

    assertThat(entry.hasDeletionVector()).isTrue();
    assertThatThrownBy(() -> entry.toRemoveFileRow(true, 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("deletion vector");
  }

  private static Row add(String path, long size) {
    return addRow(path, size, Optional.empty());
  }

  private static Row addRow(String path, long size, Optional<DeletionVectorDescriptor> dv) {
    return AddFile.createAddFileRow(
        AddFile.FULL_SCHEMA,
        path,
        VectorUtils.stringStringMapValue(Map.of()),
        size,
        1,
        true,
        dv,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.of(new DataFileStatistics(1, Map.of(), Map.of(), Map.of(), Optional.empty())));
  }
}
