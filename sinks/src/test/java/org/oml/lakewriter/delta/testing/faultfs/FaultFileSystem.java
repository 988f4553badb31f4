package org.oml.lakewriter.delta.testing.faultfs;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.oml.lakewriter.delta.LakeConfig;
import org.oml.lakewriter.delta.localfs.LocalLakeFileSystem;
import org.oml.lakewriter.delta.testing.faultfs.StorageFaults.Op;

/**
 * The local filesystem under the test scheme {@code faultfs:} ({@code faultfs:/tmp/lake} is {@code
 * /tmp/lake}), failing the calls that an installed {@link StorageFaults.Fault} holds. Everything
 * else is the lake's own {@link LocalLakeFileSystem}; {@code _delta_log} commits go through {@link
 * FaultLogStore}, which keeps the atomic put-if-absent of {@code AtomicLocalLogStore}.
 *
 * <p>Used by tests only, registered through {@code fs.faultfs.impl} in the lake's Hadoop options:
 * {@link #lake(java.nio.file.Path)}.
 */
public class FaultFileSystem extends LocalLakeFileSystem {
  public static final String SCHEME = "faultfs";
  private static final URI NAME = URI.create(SCHEME + ":///");

  /** A lake config for {@code dir} reached through this filesystem and {@link FaultLogStore}. */
  public static LakeConfig lake(java.nio.file.Path dir) {
    return new LakeConfig(
        SCHEME + ":" + dir.toAbsolutePath(),
        Map.of(
            "fs." + SCHEME + ".impl", FaultFileSystem.class.getName(),
            "io.delta.kernel.logStore." + SCHEME + ".impl", FaultLogStore.class.getName()));
  }

  @Override
  public URI getUri() {
    return NAME;
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  protected OutputStream createOutputStreamWithMode(
      Path f, boolean append, FsPermission permission) throws IOException {
    StorageFaults.check(Op.CREATE, f);
    return new FaultOutputStream(super.createOutputStreamWithMode(f, append, permission), f);
  }

  @Override
  protected OutputStream createOutputStream(Path f, boolean append) throws IOException {
    StorageFaults.check(Op.CREATE, f);
    return new FaultOutputStream(super.createOutputStream(f, append), f);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    StorageFaults.check(Op.OPEN, f);
    return super.open(f, bufferSize);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    StorageFaults.check(Op.LIST, f);
    return super.listStatus(f);
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    StorageFaults.check(Op.STATUS, f);
    return super.getFileStatus(f);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    StorageFaults.check(Op.RENAME, dst);
    return super.rename(src, dst);
  }

  @Override
  public boolean delete(Path p, boolean recursive) throws IOException {
    StorageFaults.check(Op.DELETE, p);
    return super.delete(p, recursive);
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    StorageFaults.check(Op.MKDIRS, f);
    return super.mkdirs(f, permission);
  }

  /** Fails a write in the middle of a file, as a disk that fills while a file grows does. */
  private static final class FaultOutputStream extends FilterOutputStream {
    private final Path path;

    FaultOutputStream(OutputStream out, Path path) {
      super(out);
      this.path = path;
    }

    @Override
    public void write(int b) throws IOException {
      StorageFaults.check(Op.WRITE, path);
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      StorageFaults.check(Op.WRITE, path);
      out.write(b, off, len);
    }
  }
}
