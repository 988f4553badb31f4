package org.oml.lakewriter.it.cluster;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/** The shaded job jar the reactor built, and a "next build" of it with more classes. */
final class JobJars {
  private JobJars() {}

  /** {@code app/target/oml-lakewriter-app-<version>-job.jar}, named by tests/pom.xml. */
  static Path jobJar() {
    Path jar = Path.of(System.getProperty("lakewriter.job.jar", "../app/target/missing-job.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no job jar at " + jar + ": build the app module first (mvn -pl tests -am verify runs"
              + " app's package phase before these tests)");
    }
    return jar;
  }

  /**
   * A copy of {@code jar} with the compiled classes of {@code type}'s package added: a later build
   * with a changed graph ({@code entryClass} selects its main).
   */
  static Path withPackageOf(Path jar, Class<?> type, Path target)
      throws IOException, URISyntaxException {
    Files.copy(jar, target, StandardCopyOption.REPLACE_EXISTING);
    Path classes = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    String pkg = type.getPackageName().replace('.', '/');
    try (FileSystem zip = FileSystems.newFileSystem(target, Map.<String, Object>of());
        Stream<Path> files = Files.list(classes.resolve(pkg))) {
      Path dir = Files.createDirectories(zip.getPath(pkg));
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, dir.resolve(f.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return target;
  }
}
