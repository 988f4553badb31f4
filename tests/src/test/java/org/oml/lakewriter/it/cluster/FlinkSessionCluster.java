package org.oml.lakewriter.it.cluster;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.oml.lakewriter.it.support.ChildJvm;

/**
 * A standalone Flink 1.20 session cluster built from the Maven artifacts on the test classpath, no
 * Flink distribution: one JobManager ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers
 * ({@code TaskManagerRunner}), each in its own JVM, as {@code bin/jobmanager.sh} and {@code
 * bin/taskmanager.sh} start them.
 *
 * <p>The cluster's class path holds Flink and what Flink itself needs, nothing of the job (no
 * pgjdbc, Debezium, Delta, the project's classes): the job jar brings those, under {@code
 * classloader.resolve-order: child-first}, as on a real cluster. Every JVM gets the {@code
 * --add-opens}/{@code --add-exports} list of Flink's default {@code env.java.opts.all}, and each
 * TaskManager the memory flags that {@code BashJavaUtils GET_TM_RESOURCE_PARAMS} computes, as the
 * start scripts do. {@link #close()} kills every JVM it started.
 */
final class FlinkSessionCluster implements AutoCloseable {
  /** Flink 1.20's default {@code env.java.opts.all} (conf/config.yaml of the distribution). */
  static final List<String> JAVA_OPTS_ALL =
      List.of(
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
          "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
          "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.text=ALL-UNNAMED",
          "--add-opens=java.base/java.time=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  /** Jars of the test classpath that a Flink distribution's lib/ holds (or Flink needs). */
  private static final List<String> CLUSTER_JARS =
      List.of(
          "flink-", "log4j-", "slf4j-api", "commons-", "kryo-", "minlog-", "objenesis-",
          "chill-java", "frocksdbjni", "lz4-java", "snappy-java", "zstd-jni", "xz-", "javassist",
          "async-profiler", "snakeyaml-engine", "jsr305", "RoaringBitmap", "shims-");

  /** Of those, the job's own connectors and Flink's test jars stay out. */
  private static final List<String> NOT_CLUSTER_JARS =
      List.of(
          "flink-cdc-", "flink-connector-postgres-cdc", "flink-connector-debezium",
          "flink-test-utils", "-tests.jar");

  private final Path dir;
  private final Path confDir;
  private final String classpath;
  private final int restPort;
  private final Map<String, Process> processes = new LinkedHashMap<>();

  private FlinkSessionCluster(Path dir, Path confDir, String classpath, int restPort) {
    this.dir = dir;
    this.confDir = confDir;
    this.classpath = classpath;
    this.restPort = restPort;
  }

  /** Writes {@code config.yaml} (the base settings plus {@code conf}) and starts the JobManager. */
  static FlinkSessionCluster start(Path dir, Map<String, String> conf) throws IOException {
    Path confDir = Files.createDirectories(dir.resolve("conf"));
    Files.createDirectories(dir.resolve("log"));
    int restPort = freePort();
    Map<String, String> all = new LinkedHashMap<>();
    all.put("jobmanager.rpc.address", "localhost");
    all.put("jobmanager.rpc.port", Integer.toString(freePort()));
    all.put("jobmanager.bind-host", "localhost");
    all.put("jobmanager.memory.process.size", "1024m");
    all.put("taskmanager.host", "localhost");
    all.put("taskmanager.bind-host", "localhost");
    all.put("rest.address", "localhost");
    all.put("rest.bind-address", "localhost");
    all.put("rest.port", Integer.toString(restPort));
    all.put("web.submit.enable", "true");
    all.put("web.upload.dir", dir.resolve("web-upload").toString());
    all.put("io.tmp.dirs", Files.createDirectories(dir.resolve("tmp")).toString());
    all.put("taskmanager.numberOfTaskSlots", "1");
    // Explicit sizes that fit two TaskManagers next to the build on a small machine.
    all.put("taskmanager.memory.process.size", "1100m");
    all.put("taskmanager.memory.managed.size", "128m");
    all.put("taskmanager.memory.network.min", "64m");
    all.put("taskmanager.memory.network.max", "64m");
    all.put("classloader.resolve-order", "child-first");
    all.put("parallelism.default", "1");
    all.put("pipeline.generic-types", "false");
    all.putAll(conf);
    StringBuilder yaml = new StringBuilder("# written by FlinkSessionCluster (tests)\n");
    all.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(confDir.resolve("config.yaml"), yaml);
    Files.writeString(
        confDir.resolve("log4j.properties"),
        String.join(
            "\n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.file.ref = FileAppender",
            "appender.file.name = FileAppender",
            "appender.file.type = File",
            "appender.file.fileName = ${sys:log.file}",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-30c{1} - %m%n",
            "logger.netty.name = org.apache.flink.shaded.netty4",
            "logger.netty.level = WARN",
            ""));
    FlinkSessionCluster cluster =
        new FlinkSessionCluster(dir, confDir, clusterClasspath(), restPort);
    cluster.launch(
        "jobmanager",
        List.of("-Xmx512m"),
        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
        List.of("--configDir", confDir.toString()));
    return cluster;
  }

  /**
   * Starts a TaskManager with resource id {@code id}, with the JVM flags and {@code -D} options
   * that {@code BashJavaUtils GET_TM_RESOURCE_PARAMS} prints for the config, as {@code
   * taskmanager.sh} does.
   */
  void startTaskManager(String id) throws Exception {
    List<String> params = tmResourceParams();
    List<String> jvm = List.of(params.get(0).trim().split("\\s+"));
    List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
    args.addAll(List.of(params.get(1).trim().split("\\s+")));
    args.addAll(List.of("-D", "taskmanager.resource-id=" + id));
    launch(id, jvm, "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", args);
  }

  private List<String> tmResourceParams() throws Exception {
    Path out = dir.resolve("log/bash-java-utils.out");
    Process p =
        new ProcessBuilder(
                ChildJvm.command(
                    "-cp",
                    classpath,
                    "org.apache.flink.runtime.util.bash.BashJavaUtils",
                    "GET_TM_RESOURCE_PARAMS",
                    "--configDir",
                    confDir.toString()))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new AssertionError("BashJavaUtils failed:\n" + Files.readString(out));
    }
    String prefix = "BASH_JAVA_UTILS_EXEC_RESULT:";
    List<String> results =
        Files.readAllLines(out).stream()
            .filter(l -> l.startsWith(prefix))
            .map(l -> l.substring(prefix.length()))
            .toList();
    if (results.size() < 2) {
      throw new AssertionError("BashJavaUtils printed no resource params:\n" + Files.readString(out));
    }
    return results.subList(results.size() - 2, results.size());
  }

  private void launch(String name, List<String> jvm, String mainClass, List<String> args)
      throws IOException {
    List<String> command = ChildJvm.command();
    command.addAll(jvm);
    command.addAll(JAVA_OPTS_ALL);
    command.add("-Dlog.file=" + log(name));
    command.add("-Dlog4j.configurationFile=file:" + confDir.resolve("log4j.properties"));
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.addAll(args);
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("log/" + name + ".out").toFile())
            .start();
    processes.put(name, p);
  }

  Path log(String name) {
    return dir.resolve("log/" + name + ".log");
  }

  Process process(String name) {
    return processes.get(name);
  }

  String restUrl() {
    return "http://localhost:" + restPort;
  }

  /** SIGKILL: no shutdown hook, no goodbye to the JobManager. */
  void kill(String name) throws InterruptedException {
    Process p = processes.get(name);
    p.destroyForcibly();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " survived SIGKILL");
    }
  }

  /** The last lines of every process's log, for a failure message. */
  String logTails(int lines) {
    StringBuilder sb = new StringBuilder();
    for (String name : processes.keySet()) {
      for (Path f : List.of(log(name), dir.resolve("log/" + name + ".out"))) {
        try {
          List<String> all = Files.exists(f) ? Files.readAllLines(f) : List.of();
          sb.append("==== ").append(f).append('\n');
          all.subList(Math.max(0, all.size() - lines), all.size())
              .forEach(l -> sb.append(l).append('\n'));
        } catch (IOException e) {
          sb.append(e).append('\n');
        }
      }
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (Process p : processes.values()) {
      p.destroyForcibly();
    }
    for (Process p : processes.values()) {
      try {
        p.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static String clusterClasspath() throws IOException {
    List<String> cp = new ArrayList<>();
    for (String entry : ChildJvm.testClasspath().split(File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      if (name.endsWith(".jar")
          && CLUSTER_JARS.stream().anyMatch(name::startsWith)
          && NOT_CLUSTER_JARS.stream().noneMatch(name::contains)) {
        cp.add(entry);
      }
    }
    Path lib = Path.of(System.getProperty("flink.cluster.lib", "target/flink-cluster-lib"));
    try (Stream<Path> jars = Files.list(lib)) {
      jars.filter(p -> p.toString().endsWith(".jar")).forEach(p -> cp.add(p.toString()));
    } catch (IOException e) {
      throw new IOException(
          "no flink-runtime-web in " + lib + " (tests/pom.xml copies it at generate-test-resources)",
          e);
    }
    return String.join(File.pathSeparator, cp);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
