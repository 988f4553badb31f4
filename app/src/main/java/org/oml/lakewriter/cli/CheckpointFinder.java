package org.oml.lakewriter.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the newest restore point under a state directory: a completed checkpoint ({@code
 * checkpoints/<job>/chk-N/_metadata}) or a savepoint ({@code savepoints/savepoint-*}/_metadata).
 * A checkpoint directory without {@code _metadata} never completed and is not a restore point.
 */
final class CheckpointFinder {
  private CheckpointFinder() {}

  static Optional<Path> latest(Path stateDir) {
    if (!Files.isDirectory(stateDir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.walk(stateDir, 4)) {
      return files
          .filter(p -> p.getFileName().toString().equals("_metadata"))
          .map(Path::getParent)
          .max(Comparator.comparing(CheckpointFinder::modified));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static FileTime modified(Path dir) {
    try {
      return Files.getLastModifiedTime(dir.resolve("_metadata"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
