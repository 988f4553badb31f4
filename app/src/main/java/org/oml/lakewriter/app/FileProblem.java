package org.oml.lakewriter.app;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Why a file the operator named cannot be read, in the words an operator acts on: {@code not
 * found}, {@code is a directory} or {@code not readable}, with the absolute path when a relative one
 * was given (the working directory of a supervised process is rarely the one in mind).
 */
public final class FileProblem {
  private FileProblem() {}

  /** {@code path (absolute): reason}; {@code cause} is the failure of the read, if any. */
  public static String describe(Path path, IOException cause) {
    Path absolute = path.toAbsolutePath();
    String where = path.isAbsolute() ? path.toString() : path + " (" + absolute + ")";
    return where + ": " + reason(absolute, cause);
  }

  /** The reason alone, or {@code null} when the file looks readable and no read failed. */
  public static String reason(Path path, IOException cause) {
    if (Files.isDirectory(path)) {
      return "is a directory, not a file";
    }
    if (cause instanceof NoSuchFileException || !Files.exists(path)) {
      Path parent = path.toAbsolutePath().getParent();
      return "not found"
          + (parent != null && !Files.isDirectory(parent)
              ? " (its directory " + parent + " does not exist either)"
              : "");
    }
    if (cause instanceof AccessDeniedException || !Files.isReadable(path)) {
      return "not readable (permission denied for this user)";
    }
    return cause == null ? null : "cannot be read: " + cause;
  }
}
