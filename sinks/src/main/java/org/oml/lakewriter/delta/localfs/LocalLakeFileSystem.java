package org.oml.lakewriter.delta.localfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local filesystem for {@code file:} lake roots, with permissions set through {@code
 * java.nio} instead of a forked {@code chmod}.
 *
 * <p>Without Hadoop's native library (the usual case on a Flink task manager) {@code
 * RawLocalFileSystem} forks a {@code chmod} process for every file and directory it creates: two
 * per Parquet data file with the checksummed {@code LocalFileSystem}, which halved the writer's
 * throughput in the benchmark. This class keeps every other behaviour of the raw filesystem and
 * writes no {@code .crc} sidecars (Parquet and the Delta log carry their own integrity data).
 *
 * <p>Used for {@code fs.file.impl} unless the configuration names another implementation.
 */
public class LocalLakeFileSystem extends RawLocalFileSystem {
  /** The Hadoop key that selects the implementation of the {@code file} scheme. */
  public static final String CONF_KEY = "fs.file.impl";

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    try {
      Files.setPosixFilePermissions(pathToFile(p).toPath(), toPosix(permission));
    } catch (UnsupportedOperationException e) {
      // Not a POSIX filesystem (Windows): Hadoop's own way works there.
      super.setPermission(p, permission);
    }
  }

  static Set<PosixFilePermission> toPosix(FsPermission permission) {
    Set<PosixFilePermission> posix = EnumSet.noneOf(PosixFilePermission.class);
    add(
        posix,
        permission.getUserAction(),
        PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE);
    add(
        posix,
        permission.getGroupAction(),
        PosixFilePermission.GROUP_READ,
        PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_EXECUTE);
    add(
        posix,
        permission.getOtherAction(),
        PosixFilePermission.OTHERS_READ,
        PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_EXECUTE);
    return posix;
  }

  private static void add(
      Set<PosixFilePermission> posix,
      FsAction action,
      PosixFilePermission read,
      PosixFilePermission write,
      PosixFilePermission execute) {
    if (action.implies(FsAction.READ)) {
      posix.add(read);
    }
    if (action.implies(FsAction.WRITE)) {
      posix.add(write);
    }
    if (action.implies(FsAction.EXECUTE)) {
      posix.add(execute);
    }
  }
}
