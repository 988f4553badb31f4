package org.oml.lakewriter.delta.localfs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
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
 * <p>It also lists a directory from a name on ({@link #listStatusFrom}) with a stat of the files
 * it returns only, for the log store's listing of {@code _delta_log}.
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

  /**
   * The statuses of the entries of {@code dir} whose names sort at or after {@code fromName}, in
   * name order, the same as {@link #listStatus} returns for them; null if {@code dir} is not a
   * directory. Only those entries are stat-ed: {@link #listStatus} stats every entry, and a table's
   * {@code _delta_log} keeps 30 days of commit files while every snapshot load lists it from a
   * recent version. An entry deleted between the listing and its stat is left out, as {@link
   * #listStatus} does.
   */
  public FileStatus[] listStatusFrom(Path dir, String fromName) throws IOException {
    String[] names = pathToFile(dir).list();
    if (names == null) {
      return null;
    }
    String[] kept =
        Arrays.stream(names).filter(n -> n.compareTo(fromName) >= 0).sorted().toArray(String[]::new);
    List<FileStatus> statuses = new ArrayList<>(kept.length);
    for (String name : kept) {
      try {
        // The three-argument Path, as listStatus builds it: a name with a colon stays a name.
        statuses.add(getFileStatus(new Path(dir, new Path(null, null, name))));
      } catch (FileNotFoundException deletedSinceListed) {
        // as if listed a moment later
      }
    }
    return statuses.toArray(FileStatus[]::new);
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
