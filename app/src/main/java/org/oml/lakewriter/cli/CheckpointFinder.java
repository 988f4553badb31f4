package org.oml.lakewriter.cli;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.oml.lakewriter.app.LakeWriterJob;

/**
 * Finds the newest restore point under a state directory: a completed checkpoint ({@code
 * checkpoints/<job>/chk-N/_metadata}) or a savepoint ({@code savepoints/savepoint-*}/_metadata),
 * whichever completed last, across the jobs that used the directory.
 *
 * <p>A directory counts only when its {@code _metadata} is there <em>and</em> Flink can read it
 * whole: a process killed while a checkpoint was being written leaves a {@code chk-N} without
 * {@code _metadata}, or (on a filesystem without atomic rename) a truncated one. Such a directory
 * is skipped and the next newest one is used, so a start never fails on a half-written checkpoint.
 */
final class CheckpointFinder {
  /** A completed checkpoint or savepoint, and when its metadata was written. */
  record RestorePoint(Path dir, FileTime completedAt) {
    String kind() {
      return LakeWriterJob.isSavepoint(dir) ? "savepoint" : "checkpoint";
    }

    @Override
    public String toString() {
      return kind() + " " + dir + " (completed " + completedAt + ")";
    }
  }

  private CheckpointFinder() {}

  static Optional<RestorePoint> latest(Path stateDir) {
    return candidates(stateDir).stream().filter(CheckpointFinder::readable).findFirst();
  }

  /**
   * True if {@code stateDir} holds state of Flink job {@code jobId}: its checkpoint directory
   * ({@code checkpoints/<job>}) or one of its savepoints ({@code savepoints/savepoint-<first six
   * characters of the job id>-*}). A start from this directory is that job's restart.
   */
  static boolean holdsStateOf(Path stateDir, String jobId) {
    if (Files.isDirectory(stateDir.resolve("checkpoints").resolve(jobId))) {
      return true;
    }
    String prefix = "savepoint-" + jobId.substring(0, Math.min(6, jobId.length())) + "-";
    try (java.util.stream.Stream<Path> dirs = Files.list(stateDir.resolve("savepoints"))) {
      return dirs.anyMatch(d -> d.getFileName().toString().startsWith(prefix));
    } catch (IOException e) {
      return false; // no savepoints directory
    }
  }

  /**
   * Every directory with a {@code _metadata} file, newest first. A live job may discard old
   * checkpoints while this walks (a second writer started by mistake looks here before the leader
   * lease refuses it): a file or directory that vanishes is skipped, never an error. The state
   * files under {@code shared} and {@code taskowned}, which change at every checkpoint, are not
   * walked at all.
   */
  private static List<RestorePoint> candidates(Path stateDir) {
    List<RestorePoint> points = new ArrayList<>();
    if (!Files.isDirectory(stateDir)) {
      return points;
    }
    try {
      Files.walkFileTree(
          stateDir,
          java.util.Set.of(),
          4,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
              String name = dir.getFileName().toString();
              return name.equals("shared") || name.equals("taskowned")
                  ? FileVisitResult.SKIP_SUBTREE
                  : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (file.getFileName().toString().equals("_metadata")) {
                points.add(new RestorePoint(file.getParent(), attrs.lastModifiedTime()));
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              return gone(e);
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              return e == null ? FileVisitResult.CONTINUE : gone(e);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    points.sort(Comparator.comparing(RestorePoint::completedAt).reversed());
    return points;
  }

  /** Flink discarded an old checkpoint while we looked: not a restore point, not an error. */
  private static FileVisitResult gone(IOException e) throws IOException {
    if (e instanceof NoSuchFileException) {
      return FileVisitResult.CONTINUE;
    }
    throw e;
  }

  private static boolean readable(RestorePoint point) {
    try (InputStream in = Files.newInputStream(point.dir().resolve("_metadata"))) {
      Checkpoints.loadCheckpointMetadata(
          new DataInputStream(in),
          CheckpointFinder.class.getClassLoader(),
          point.dir().toString());
      return true;
    } catch (NoSuchFileException gone) {
      return false; // discarded by a live job since the walk: not a restore point
    } catch (IOException | RuntimeException e) {
      System.err.println(
          "lakewriter: skipping " + point + ": its metadata is unreadable (" + e + ")");
      return false;
    }
  }
}
