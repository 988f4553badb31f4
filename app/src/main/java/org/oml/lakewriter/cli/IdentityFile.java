package org.oml.lakewriter.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.identity.JobIdentity;

/**
 * {@code <state.dir>/identity.properties}: the {@link JobIdentity} of the job whose checkpoints the
 * directory holds, so that {@code run} refuses, before anything starts, to resume state that
 * belongs to another database, slot, writer id or lake root. The job's own state records the same
 * identity and is the last word ({@link org.oml.lakewriter.identity.IdentityGuard}); this file
 * makes the refusal fast and readable.
 */
final class IdentityFile {
  static final String NAME = "identity.properties";

  private IdentityFile() {}

  static Optional<JobIdentity> read(Path stateDir) {
    Path file = stateDir.resolve(NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    } catch (IOException e) {
      throw new ConfigException("cannot read " + file + ": " + e, e);
    }
    return Optional.of(
        new JobIdentity(
            p.getProperty("system-identifier", "?"),
            p.getProperty("database", "?"),
            p.getProperty("slot", "?"),
            p.getProperty("writer-id", "?"),
            p.getProperty("lake-root", "?")));
  }

  /**
   * Refuses when the directory's state belongs to another identity.
   *
   * <p>Refused also with {@code --fresh}: the new job's checkpoints would mix with the other
   * writer's, and a later start would resume whichever is newest.
   *
   * @param hasRestorePoint the directory holds a completed checkpoint or savepoint
   */
  static void check(Path stateDir, JobIdentity current, boolean hasRestorePoint, boolean fresh) {
    Optional<JobIdentity> recorded = read(stateDir);
    if (recorded.isEmpty() || recorded.get().equals(current) || !hasRestorePoint) {
      return;
    }
    List<String> diff = recorded.get().differences(current);
    throw new ConfigException(
        "STATE_IDENTITY_MISMATCH: state.dir = " + stateDir + " holds the state of "
            + recorded.get() + ", but this configuration is " + current + " ("
            + String.join("; ", diff) + ", in state.dir vs configured). Resuming it would skip"
            + " rows silently. Give this configuration its own state.dir (the default,"
            + " .lakewriter/state/<writer.id>, is per writer id)"
            + ", or move that directory away" + (fresh ? "" : " to start fresh") + ".");
  }

  /** Records the identity (atomically: a temp file, then a rename). */
  static void write(Path stateDir, JobIdentity id) {
    Properties p = new Properties();
    p.setProperty("system-identifier", id.systemIdentifier());
    p.setProperty("database", id.database());
    p.setProperty("slot", id.slot());
    p.setProperty("writer-id", id.writerId());
    p.setProperty("lake-root", id.lakeRoot());
    try {
      Files.createDirectories(stateDir);
      Path tmp = Files.createTempFile(stateDir, NAME, ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        p.store(out, "the lake writer whose checkpoints this directory holds; do not edit");
      }
      Files.move(tmp, stateDir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + stateDir.resolve(NAME), e);
    }
  }
}
