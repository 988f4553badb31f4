package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.cli.LakeWriterCli;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.CommittedFrontier;
import org.oml.lakewriter.it.support.OutboxWriter;
import org.oml.lakewriter.it.support.TestDatabase;
import picocli.CommandLine;

/**
 * Issue 16, secrets: what {@link PasswordNeverPrintedITCase} does not cover. The database password
 * (from a password file) and a lake filesystem secret never appear in the {@code --help} of any
 * command, in what {@code lakewriter run} prints or logs at INFO (to stdout and to a log file), in
 * the job's configuration and plan as Flink's REST API (what the web UI shows) returns them, or in
 * the Prometheus metrics.
 */
@ExtendWith(SharedPostgres.class)
class SecretsNeverShownITCase {
  private static final String SECRET = "Pg-Secret-Pw-3c9a71";
  private static final String S3_SECRET = "s3-Secret-Key-2b7d55";
  private static final Duration WAIT = Duration.ofSeconds(150);

  @TempDir Path tmp;
  private TestDatabase db;

  @BeforeEach
  void createDatabase(EmbeddedPostgresServer pg) throws SQLException {
    db = TestDatabase.create(pg);
  }

  @AfterEach
  void dropDatabaseSlots() throws SQLException {
    db.close();
  }

  @Test
  void theHelpOfEveryCommandShowsNoSecret() throws Exception {
    Path passwordFile = Files.writeString(tmp.resolve("pg-password"), SECRET + "\n");
    CommandLine root = new CommandLine(new LakeWriterCli());
    List<List<String>> commands = new ArrayList<>();
    collect(root, new ArrayList<>(), commands);
    assertThat(commands.size()).isGreaterThan(10);
    for (List<String> command : commands) {
      List<String> args = new ArrayList<>(command);
      args.addAll(
          List.of(
              "-D", "postgres.password-file=" + passwordFile,
              "-D", "lake.hadoop.fs.s3a.secret.key=" + S3_SECRET,
              "--help"));
      CliRun.Result r = CliRun.run(args);
      assertThat(r.out() + r.err()).as("%s --help", command).doesNotContain(SECRET, S3_SECRET);
    }
  }

  @Test
  void runPrintsLogsAndShowsNoSecretInItsRestApiOrMetrics() throws Exception {
    Path passwordFile = Files.writeString(tmp.resolve("pg-password"), SECRET + "\n");
    Path logFile = tmp.resolve("lakewriter-info.log");
    // The shipped CLI logging, raised to INFO (as an operator who debugs does), and a log file.
    String shipped =
        Files.readString(
            Path.of("..", "app", "src", "main", "resources", "org", "oml", "lakewriter", "cli",
                "log4j2-cli.properties"));
    Matcher layout =
        Pattern.compile("(?m)^appender\\.console\\.layout\\.pattern = (.*)$").matcher(shipped);
    assertThat(layout.find()).isTrue();
    Path log4j =
        Files.writeString(
            tmp.resolve("log4j2-info.properties"),
            shipped
                .replace("rootLogger.level = WARN", "rootLogger.level = INFO")
                .replace("logger.oml.level = WARN", "logger.oml.level = INFO")
                .replace("logger.dbz.level = ERROR", "logger.dbz.level = INFO")
                + String.join(
                    "\n",
                    "",
                    "rootLogger.appenderRef.file.ref = file",
                    "appender.file.type = File",
                    "appender.file.name = file",
                    "appender.file.fileName = " + logFile,
                    "appender.file.layout.type = PatternLayout",
                    "appender.file.layout.pattern = " + layout.group(1),
                    ""));
    int metricsPort;
    try (ServerSocket s = new ServerSocket(0)) {
      metricsPort = s.getLocalPort();
    }
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", db.jdbcUrl());
    options.put("postgres.user", EmbeddedPostgresServer.USER);
    options.put("postgres.password-file", passwordFile.toString());
    options.put("postgres.slot", db.slot());
    options.put("postgres.publication", TestDatabase.PUBLICATION);
    options.put("writer.id", "w1");
    options.put("lake.root", tmp.resolve("lake").toString());
    options.put("lake.hadoop.fs.s3a.secret.key", S3_SECRET);
    options.put("state.dir", tmp.resolve("state").toString());
    options.put("checkpoint.interval", "500ms");
    options.put("horizon.tick-period", "200ms");
    options.put("metrics.prometheus.port", String.valueOf(metricsPort));
    List<String> args = new ArrayList<>(List.of("run"));
    args.addAll(CliRun.defines(options));
    Path out = tmp.resolve("run-stdout.log");

    Process run =
        CliProcess.start(
            List.of("-Dlog4j.configurationFile=" + log4j),
            CliProcess.LAKEWRITER,
            args,
            out);
    List<String> shown = new ArrayList<>();
    try {
      CliProcess.awaitLog(run, out, "lake writer running", WAIT);
      long last;
      try (Connection c = db.connect()) {
        OutboxWriter.materialize(c, "acme", "a-1", 1, "body".getBytes());
        last = OutboxWriter.journal(c, "acme", "j-1");
      }
      CommittedFrontier.await(db, "w1", last, WAIT);
      String rest = restAddress(Files.readString(out));
      JsonNode jobs = get(rest + "/jobs/overview");
      String jobId = jobs.get("jobs").get(0).get("jid").asText();
      for (String path :
          new String[] {
            "/config",
            "/jobmanager/config",
            "/jobs/" + jobId,
            "/jobs/" + jobId + "/config",
            "/jobs/" + jobId + "/plan",
            "/jobs/" + jobId + "/jobmanager/config",
            "/jobs/" + jobId + "/checkpoints/config",
            "/taskmanagers"
          }) {
        shown.add(path + ": " + get(rest + path));
      }
      shown.add("metrics: " + text("http://localhost:" + metricsPort + "/metrics"));
    } finally {
      run.destroy(); // SIGTERM: a stop with a savepoint, which logs too
      if (!run.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    String stdout = Files.readString(out);
    String logged = Files.readString(logFile);
    assertThat(stdout).contains("lake writer running");
    assertThat(logged).contains("INFO").contains("Rest endpoint listening at");
    assertThat(shown).anyMatch(s -> s.contains("execution-config"));
    assertThat(shown).anyMatch(s -> s.contains("lakewriter_"));
    System.out.printf(
        "secrets scan: stdout %d bytes, log file %d bytes, REST and metrics %d bytes%n",
        stdout.length(), logged.length(), String.join("", shown).length());
    assertThat(stdout).doesNotContain(SECRET, S3_SECRET);
    assertThat(logged).doesNotContain(SECRET, S3_SECRET);
    for (String s : shown) {
      assertThat(s).doesNotContain(SECRET, S3_SECRET);
    }
  }

  /**
   * The demo's key-encryption key (a cleartext Tink keyset in its key directory, demo only) never
   * appears in what the demo prints or in any other file it leaves, the lake included.
   */
  @Test
  void theDemosKeyEncryptionKeyIsNeitherPrintedNorInTheLake() throws Exception {
    CliRun.Result demo =
        CliRun.run("demo", "--events", "200", "--tenants", "2", "--json", "--dir", tmp.toString());
    assertThat(demo.exitCode()).as(demo.err()).isZero();
    List<Path> files;
    try (java.util.stream.Stream<Path> walk = Files.walk(tmp)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    Path kek =
        files.stream()
            .filter(f -> f.getFileName().toString().equals("demo-kek.json"))
            .findFirst()
            .orElseThrow();
    String value = new ObjectMapper().readTree(Files.readString(kek)).at("/key/0/keyData/value").asText();
    byte[] keyProto = java.util.Base64.getDecoder().decode(value);
    byte[] rawKey = java.util.Arrays.copyOfRange(keyProto, keyProto.length - 32, keyProto.length);
    assertThat(demo.out() + demo.err()).doesNotContain(value);
    long bytes = 0;
    for (Path f : files) {
      if (f.equals(kek)) {
        continue;
      }
      byte[] content = Files.readAllBytes(f);
      bytes += content.length;
      assertThat(indexOf(content, rawKey)).as("the KEK's key bytes in %s", f).isNegative();
      assertThat(indexOf(content, value.getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
          .as("the KEK's keyset in %s", f)
          .isNegative();
    }
    System.out.printf("KEK scan: %d files, %d bytes, 0 hits%n", files.size() - 1, bytes);
    assertThat(files.stream().map(Path::toString)).anyMatch(p -> p.endsWith(".parquet"));
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static void collect(CommandLine cmd, List<String> path, List<List<String>> out) {
    out.add(path);
    for (Map.Entry<String, CommandLine> sub : cmd.getSubcommands().entrySet()) {
      if (sub.getValue().getCommandSpec().name().equals(sub.getKey())
          && !sub.getKey().equals("help")) {
        List<String> p = new ArrayList<>(path);
        p.add(sub.getKey());
        collect(sub.getValue(), p, out);
      }
    }
  }

  private static String restAddress(String log) {
    Matcher m = Pattern.compile("Rest endpoint listening at (\\S+):(\\d+)").matcher(log);
    assertThat(m.find()).as("the REST endpoint's address in the log").isTrue();
    return "http://" + m.group(1) + ":" + m.group(2);
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static String text(String url) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(url + ": " + r.body()).isLessThan(300);
    return r.body();
  }

  private static JsonNode get(String url) throws Exception {
    return new ObjectMapper().readTree(text(url));
  }
}
