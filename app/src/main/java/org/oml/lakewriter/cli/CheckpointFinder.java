package org.oml.lakewriter.cli;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.Checkpoints;

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
      return dir.getFileName().toString().startsWith("savepoint") ? "savepoint" : "checkpoint";
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

  /** Every directory with a {@code _metadata} file, newest first. */
  private static List<RestorePoint> candidates(Path stateDir) {
    List<RestorePoint> points = new ArrayList<>();
    if (!Files.isDirectory(stateDir)) {
      return points;
    }
    try (Stream<Path> files = Files.walk(stateDir, 4)) {
      files
          .filter(p -> p.getFileName().toString().equals("_metadata"))
          .forEach(
              m -> {
                try {
                  points.add(new RestorePoint(m.getParent(), Files.getLastModifiedTime(m)));
                } catch (NoSuchFileException gone) {
                  // Flink discarded an old checkpoint while we looked: not a restore point.
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    points.sort(Comparator.comparing(RestorePoint::completedAt).reversed());
    return points;
  }

  private static boolean readable(RestorePoint point) {
    try (InputStream in = Files.newInputStream(point.dir().resolve("_metadata"))) {
      Checkpoints.loadCheckpointMetadata(
          new DataInputStream(in),
          CheckpointFinder.class.getClassLoader(),
          point.dir().toString());
      return true;
    } catch (IOException | RuntimeException e) {
      System.err.println(
          "lakewriter: skipping " + point + ": its metadata is unreadable (" + e + ")");
      return false;
    }
  }
}
