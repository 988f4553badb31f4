package org.oml.lakewriter.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.it.support.ChildJvm;
import org.oml.lakewriter.it.support.S3ProxyExtension;

/**
 * The shaded job jar (what a session cluster runs) carries the object-store filesystems on its own:
 * S3A with the AWS SDK modules it needs, and ABFS. A JVM whose class path is the job jar plus the
 * logging jars a Flink distribution's {@code lib/} has writes and reads an {@code s3a://} object on
 * an S3-compatible server with Hadoop's {@code FsShell}. Before issue 16 the jar had neither
 * filesystem ({@code ClassNotFoundException: Class org.apache.hadoop.fs.s3a.S3AFileSystem not
 * found}).
 */
class ObjectStoreJobJarITCase {
  @TempDir static Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = S3ProxyExtension.bucket("jobjar");

  @Test
  void theJobJarAloneWritesAndReadsAnS3aObject() throws Exception {
    Path local = dir.resolve("probe.txt");
    Files.writeString(local, "from the job jar\n");
    List<String> put = new ArrayList<>(shellOptions());
    put.addAll(List.of("-put", local.toString(), "s3a://jobjar/probe.txt"));
    assertThat(fsShell(put, dir.resolve("put.log"))).as("-put exit code").isZero();
    List<String> cat = new ArrayList<>(shellOptions());
    cat.addAll(List.of("-cat", "s3a://jobjar/probe.txt"));
    Path catLog = dir.resolve("cat.log");
    assertThat(fsShell(cat, catLog)).as("-cat exit code").isZero();
    assertThat(Files.readString(catLog)).contains("from the job jar");
  }

  @Test
  void theJobJarCarriesAbfsAndTheConditionalLogStore() throws Exception {
    try (JarFile jar = new JarFile(jobJar().toFile())) {
      for (String entry :
          List.of(
              "org/apache/hadoop/fs/s3a/S3AFileSystem.class",
              "software/amazon/awssdk/services/s3/S3Client.class",
              "software/amazon/awssdk/transfer/s3/S3TransferManager.class",
              "software/amazon/awssdk/services/sts/StsClient.class",
              "org/apache/hadoop/fs/azurebfs/AzureBlobFileSystem.class",
              "org/oml/lakewriter/delta/logstore/S3ConditionalLogStore.class")) {
        assertThat(jar.getJarEntry(entry)).as(entry).isNotNull();
      }
      assertThat(jar.getJarEntry("software/amazon/awssdk/services/ec2/Ec2Client.class"))
          .as("the SDK's modules, not its 640 MB bundle")
          .isNull();
    }
  }

  private static List<String> shellOptions() {
    List<String> options = new ArrayList<>();
    S3.server().s3aOptions().forEach((k, v) -> options.add("-D" + k + "=" + v));
    return options;
  }

  /** Hadoop's FsShell in a JVM with only the job jar and the logging jars of Flink's lib/. */
  private static int fsShell(List<String> args, Path log) throws Exception {
    List<String> classpath = new ArrayList<>();
    classpath.add(jobJar().toString());
    // FsShell's main insists on a core-site.xml (quiet mode off); an empty one, as a fresh
    // Hadoop client has. Every S3A option comes from the command line.
    Path conf = Files.createDirectories(dir.resolve("hadoop-conf"));
    Files.writeString(conf.resolve("core-site.xml"), "<?xml version=\"1.0\"?>\n<configuration/>\n");
    classpath.add(conf.toString());
    Arrays.stream(ChildJvm.testClasspath().split(File.pathSeparator))
        .filter(p -> p.matches(".*/(slf4j-api|log4j-slf4j-impl|log4j-api|log4j-core)-[^/]*\\.jar"))
        .forEach(classpath::add);
    List<String> command = ChildJvm.command("-Xmx512m");
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add("org.apache.hadoop.fs.FsShell");
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("FsShell did not finish: " + Files.readString(log));
    }
    if (p.exitValue() != 0) {
      System.out.println("FsShell " + args.get(args.size() - 2) + " output:\n" + Files.readString(log, StandardCharsets.UTF_8));
    }
    return p.exitValue();
  }

  private static Path jobJar() {
    Path jar = Path.of(System.getProperty("lakewriter.job.jar", "../app/target/missing-job.jar"));
    assertThat(jar).as("the job jar (mvn -pl tests -am verify builds it)").isRegularFile();
    return jar;
  }
}
