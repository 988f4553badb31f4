package org.oml.lakewriter.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.oml.lakewriter.delta.DataFile;

/**
 * The size-tiered choice of the job's compactor ({@link TableCompactor#tiered}), and what it does
 * to a growing table, planned the way {@link TableCompactor} plans (tiers, then bins) over a
 * simulated table that gets one file per checkpoint.
 */
class TieredChoiceTest {
  private static final int MIN_FILES = 4;

  @Test
  void aFileLargerThanAllTheSmallerOnesTogetherIsLeftOut() {
    List<DataFile> files = new ArrayList<>(List.of(file("big", 1_000)));
    for (int i = 0; i < 16; i++) {
      files.add(file("new-" + i, 10));
    }
    assertThat(TableCompactor.tiered(files)).hasSize(16).noneMatch(f -> f.sizeBytes() == 1_000);
  }

  @Test
  void filesNoLargerThanTheRestTogetherAreAllTaken() {
    List<DataFile> files =
        List.of(file("a", 400), file("b", 300), file("c", 100), file("d", 10), file("e", 10));
    // 400 > 300+100+10+10 = 420? No: 400 <= 420, so nothing is left out.
    assertThat(TableCompactor.tiered(files)).hasSize(5);
    List<DataFile> skewed =
        List.of(file("a", 900), file("b", 300), file("c", 100), file("d", 90), file("e", 20));
    // 900 > 510 is left out, then 300 > 210; 100 <= 110 stays, with the smaller ones.
    assertThat(TableCompactor.tiered(skewed))
        .extracting(DataFile::relativePath)
        .containsExactly("e", "d", "c");
    assertThat(TableCompactor.tiered(List.of(file("only", 5)))).isEmpty();
  }

  /**
   * 1,024 checkpoints of one equal file each, compacted whenever min-files (4) files can be taken:
   * tiered, each byte is rewritten at most log2(1024) = 10 times and the table never has more than
   * min-files − 1 + log2(1024) + 1 files; taking every small file (the compactor before tiers, and
   * {@code maintain compact}), each byte is rewritten ~170 times.
   */
  @Test
  void aGrowingTableIsRewrittenLogarithmicallyNotQuadratically() {
    Growth tiered = grow(true, 1_024);
    Growth full = grow(false, 1_024);
    long written = 1_024 * 100L;
    System.out.printf(
        "1,024 checkpoints: tiered rewrote %.1f x the bytes written, max %d files; full %.1f x,"
            + " max %d files%n",
        (double) tiered.rewritten / written,
        tiered.maxFiles,
        (double) full.rewritten / written,
        full.maxFiles);
    assertThat(tiered.rewritten).isLessThanOrEqualTo(10 * written);
    assertThat(tiered.maxFiles).isLessThanOrEqualTo(MIN_FILES - 1 + 10 + 1);
    assertThat(full.rewritten).isGreaterThan(100 * written);
    assertThat(full.maxFiles).isLessThanOrEqualTo(MIN_FILES);
  }

  private record Growth(long rewritten, int maxFiles) {}

  private static Growth grow(boolean tiered, int checkpoints) {
    List<DataFile> live = new ArrayList<>();
    long rewritten = 0;
    int maxFiles = 0;
    for (int c = 0; c < checkpoints; c++) {
      live.add(new DataFile("c" + c, 100, c, null));
      List<DataFile> candidates = tiered ? TableCompactor.tiered(live) : live;
      if (candidates.size() >= MIN_FILES) {
        for (List<DataFile> bin : TableCompactor.bins(candidates, Long.MAX_VALUE)) {
          long size = bin.stream().mapToLong(DataFile::sizeBytes).sum();
          rewritten += size;
          live.removeAll(bin);
          live.add(new DataFile("m" + c, size, c, null));
        }
      }
      maxFiles = Math.max(maxFiles, live.size());
    }
    return new Growth(rewritten, maxFiles);
  }

  private static DataFile file(String name, long size) {
    return new DataFile(name, size, 0, null);
  }
}
