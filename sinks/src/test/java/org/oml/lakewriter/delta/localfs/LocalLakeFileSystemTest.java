package org.oml.lakewriter.delta.localfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalLakeFileSystemTest {
  @TempDir Path dir;

  @Test
  void setsPermissionsWithoutAShellAndWritesNoChecksumSidecar() throws Exception {
    LocalLakeFileSystem fs = new LocalLakeFileSystem();
    fs.initialize(java.net.URI.create("file:///"), new Configuration());
    org.apache.hadoop.fs.Path file =
        new org.apache.hadoop.fs.Path(dir.resolve("a/b.parquet").toUri());
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(new byte[] {1, 2, 3});
    }
    fs.setPermission(file, new FsPermission((short) 0640));
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("a/b.parquet"))))
        .isEqualTo("rw-r-----");
    try (var files = Files.list(dir.resolve("a"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("b.parquet");
    }
  }
}
