package org.oml.lakewriter.delta.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data file stream: small writes buffered, positions and the length exact, bytes in order. */
class DataFileOutputTest {
  @TempDir Path dir;

  @Test
  void mixedWritesLandInOrderWithExactPositionsAndLength() throws Exception {
    Path file = dir.resolve("part-0.parquet");
    DataFileOutput output = output(file);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    Random random = new Random(7);
    try (PositionOutputStream out = output.create(0)) {
      assertThatThrownBy(output::length).isInstanceOf(IllegalStateException.class);
      for (int i = 0; i < 3_000; i++) {
        // Single bytes, runs that fill the buffer part-way or past its end, and writes larger
        // than the buffer, which go down whole.
        int kind = random.nextInt(4);
        if (kind == 0) {
          int b = random.nextInt(256);
          out.write(b);
          expected.write(b);
        } else {
          int len = kind == 3 ? 4_096 + random.nextInt(10_000) : random.nextInt(kind * 700);
          byte[] bytes = new byte[len + 6];
          random.nextBytes(bytes);
          out.write(bytes, 3, len);
          expected.write(bytes, 3, len);
        }
        assertThat(out.getPos()).isEqualTo(expected.size());
        if (i % 1_000 == 999) {
          out.flush();
          assertThat(Files.size(file)).isEqualTo(expected.size());
        }
      }
    }
    assertThat(output.length()).isEqualTo(expected.size());
    assertThat(Files.readAllBytes(file)).isEqualTo(expected.toByteArray());
  }

  @Test
  void aFileWithOnlyBufferedBytesIsWrittenWhole() throws Exception {
    Path file = dir.resolve("small.parquet");
    DataFileOutput output = output(file);
    try (PositionOutputStream out = output.create(0)) {
      out.write('P');
      out.write(new byte[] {'A', 'R', '1'}, 0, 3);
    }
    assertThat(output.length()).isEqualTo(4);
    assertThat(Files.readString(file)).isEqualTo("PAR1");
  }

  private static DataFileOutput output(Path file) throws Exception {
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.toUri());
    return new DataFileOutput(FileSystem.get(path.toUri(), conf), path);
  }
}
