package org.oml.lakewriter.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Keeps the newest {@code state.savepoints.retained} savepoints that {@code lakewriter run} took
 * (the {@code savepoint-*} directories with a {@code _metadata} under {@code
 * <state.dir>/savepoints}) and deletes older ones. Never deleted: the restore point the next start
 * will use (whatever {@link CheckpointFinder#latest} names, even if older than the kept ones), and
 * anything else in the directory (a half-written savepoint without {@code _metadata}, a file an
 * operator put there).
 */
final class SavepointPruner {
  private SavepointPruner() {}

  /**
   * @param keep how many of the newest savepoints to keep, at least 1
   * @param protect the restore point the next start will use, never deleted
   * @return the deleted directories
   */
  static List<Path> prune(Path savepointsDir, int keep, Optional<Path> protect) {
    if (keep < 1) {
      throw new IllegalArgumentException("keep at least one savepoint, not " + keep);
    }
    List<Path> deleted = new ArrayList<>();
    List<Path> savepoints = newestFirst(savepointsDir);
    for (Path dir : savepoints.subList(Math.min(keep, savepoints.size()), savepoints.size())) {
      if (protect.isPresent() && sameDir(dir, protect.get())) {
        continue;
      }
      deleteTree(dir);
      deleted.add(dir);
    }
    return deleted;
  }

  /** The completed savepoints under the directory, newest {@code _metadata} first. */
  static List<Path> newestFirst(Path savepointsDir) {
    if (!Files.isDirectory(savepointsDir)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(savepointsDir)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("savepoint-"))
          .filter(d -> Files.isRegularFile(d.resolve("_metadata")))
          .sorted(Comparator.comparing(SavepointPruner::completedAt).reversed())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + savepointsDir, e);
    }
  }

  private static FileTime completedAt(Path dir) {
    try {
      return Files.getLastModifiedTime(dir.resolve("_metadata"));
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  private static boolean sameDir(Path a, Path b) {
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the old savepoint " + dir, e);
    }
  }
}
