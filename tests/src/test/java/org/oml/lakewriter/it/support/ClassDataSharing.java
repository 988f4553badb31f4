package org.oml.lakewriter.it.support;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.flink.util.FileUtils;

/**
 * A class-data-sharing archive for the {@code lakewriter} JVMs the tests start ({@link
 * CliProcess}): the classes a writer loads (Flink, Flink CDC, Kernel, Parquet, Tink, the CLI),
 * parsed and verified once per build instead of once per JVM. A writer's JVM then starts with
 * about 3 CPU-seconds less (docs/testing.md, "Shared classes in the child JVMs").
 *
 * <p>The JDK archives only classes from jars, so each non-empty directory of the test classpath
 * (the test classes) is copied into a jar of its own at the same place in the classpath: the
 * classes and resources a child finds, and in which order, stay those of the test classpath. The
 * archive is made by one {@code lakewriter demo} run with {@code -XX:ArchiveClassesAtExit}, and
 * made again when the classpath changes or one of its jars is newer than the archive.
 *
 * <p>It only ever saves time: when the archive cannot be made, the children run without it, and a
 * child whose archive does not match its classpath ignores it (the JVM's own check; its CDS logging
 * is off so that nothing reaches a child's output).
 */
final class ClassDataSharing {
  /** The directory of the archive and jars; the tests POM sets it, blank turns sharing off. */
  static final String DIR_PROPERTY = "lakewriter.test.child-jvm-cds";

  private static Setup setup;

  private ClassDataSharing() {}

  /** A child's JVM options and classpath, with or without the archive. */
  record Setup(List<String> options, String classpath) {}

  /** The options and classpath of a {@code lakewriter} child, made on first use. */
  static synchronized Setup forChildren() {
    if (setup == null) {
      setup = make();
    }
    return setup;
  }

  private static Setup make() {
    Setup without = new Setup(List.of(), ChildJvm.testClasspath());
    String dir = System.getProperty(DIR_PROPERTY, "").trim();
    if (dir.isEmpty()) {
      return without;
    }
    try {
      Path home = Files.createDirectories(Path.of(dir));
      String classpath = jarredClasspath(home);
      Path archive = home.resolve("lakewriter.jsa");
      if (!upToDate(archive, classpath) && !dump(home, archive, classpath)) {
        return without;
      }
      return new Setup(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off"), classpath);
    } catch (IOException | RuntimeException e) {
      System.err.println("lakewriter tests: child JVMs run without shared classes: " + e);
      return without;
    }
  }

  /** The test classpath with each non-empty directory replaced by a jar of its files. */
  private static String jarredClasspath(Path home) throws IOException {
    List<String> entries = new ArrayList<>();
    int n = 0;
    for (String entry : ChildJvm.testClasspath().split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (Files.isDirectory(path) && !isEmpty(path)) {
        Path jar = home.resolve("classes-" + n++ + ".jar");
        if (!Files.exists(jar) || changedAfter(path, mtime(jar))) {
          writeJar(path, jar);
        }
        entries.add(jar.toString());
      } else {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** Made from this very classpath (a new dependency version is another path) and no older. */
  private static boolean upToDate(Path archive, String classpath) throws IOException {
    Path madeFrom = classpathFile(archive);
    if (!Files.exists(archive)
        || !Files.exists(madeFrom)
        || !Files.readString(madeFrom).equals(classpath)) {
      return false;
    }
    FileTime made = mtime(archive);
    for (String entry : classpath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (Files.isRegularFile(path) && mtime(path).compareTo(made) >= 0) {
        return false;
      }
    }
    return true;
  }

  /** One {@code lakewriter demo} that writes the archive at its exit; false if it did not. */
  private static boolean dump(Path home, Path archive, String classpath) throws IOException {
    Path partial = home.resolve("lakewriter.jsa.partial");
    Files.deleteIfExists(partial);
    Path demo = home.resolve("demo");
    FileUtils.deleteDirectory(demo.toFile()); // the last dump's demo, if any
    List<String> command =
        ChildJvm.command("-Xmx1g", "-XX:ArchiveClassesAtExit=" + partial, "-cp", classpath);
    command.addAll(
        List.of(CliProcess.LAKEWRITER, "demo", "--events", "300", "--tenants", "2", "--dir"));
    command.add(demo.toString());
    Path log = home.resolve("dump.log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
        .start();
    try {
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return false;
    }
    if (p.isAlive() || p.exitValue() != 0 || !Files.exists(partial)) {
      System.err.println("lakewriter tests: no shared-class archive (see " + log + ")");
      return false;
    }
    Files.move(partial, archive, StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(classpathFile(archive), classpath);
    return true;
  }

  private static Path classpathFile(Path archive) {
    return archive.resolveSibling(archive.getFileName() + ".classpath");
  }

  private static void writeJar(Path dir, Path jar) throws IOException {
    Path partial = jar.resolveSibling(jar.getFileName() + ".partial");
    try (OutputStream out = Files.newOutputStream(partial);
        JarOutputStream jarOut = new JarOutputStream(out);
        Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        jarOut.putNextEntry(new JarEntry(dir.relativize(file).toString().replace('\\', '/')));
        Files.copy(file, jarOut);
        jarOut.closeEntry();
      }
    }
    Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING);
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.findAny().isEmpty();
    }
  }

  /** True if a file under {@code dir} changed after {@code time}. */
  private static boolean changedAfter(Path dir, FileTime time) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (mtime(f).compareTo(time) > 0) {
          return true;
        }
      }
      return false;
    }
  }

  private static FileTime mtime(Path path) throws IOException {
    return Files.getLastModifiedTime(path);
  }
}
