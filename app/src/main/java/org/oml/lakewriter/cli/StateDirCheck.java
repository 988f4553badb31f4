package org.oml.lakewriter.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterOptions;

/**
 * {@code state.dir} must be a directory this process can create files in, checked before the job
 * starts: otherwise Flink fails at its first checkpoint with a page of {@code FlinkException}, long
 * after the start looked fine. The check is the one {@code lake.root} has: create the directory,
 * write a probe file, delete it.
 */
final class StateDirCheck {
  private static final String PROBE = ".lakewriter_probe_";

  private StateDirCheck() {}

  static void require(Path stateDir) {
    if (Files.exists(stateDir) && !Files.isDirectory(stateDir)) {
      throw refused(stateDir, "it is a file, not a directory");
    }
    try {
      Files.createDirectories(stateDir);
    } catch (IOException | SecurityException e) {
      throw refused(stateDir, "cannot create it (" + e + ")");
    }
    Path probe = null;
    try {
      probe = Files.createTempFile(stateDir, PROBE, ".tmp");
      Files.writeString(probe, "probe");
    } catch (IOException | SecurityException e) {
      throw refused(stateDir, "cannot create a file in it (" + e + ")");
    } finally {
      if (probe != null) {
        try {
          Files.deleteIfExists(probe);
        } catch (IOException ignored) {
          // A probe left behind is harmless; the refusal above (if any) is what matters.
        }
      }
    }
  }

  private static ConfigException refused(Path stateDir, String why) {
    return new ConfigException(
        "the state directory " + LakeWriterOptions.STATE_DIR.key() + " = " + stateDir
            + " is not usable: " + why + ". Checkpoints and savepoints go there; set "
            + LakeWriterOptions.STATE_DIR.key() + " to a writable directory.");
  }
}
