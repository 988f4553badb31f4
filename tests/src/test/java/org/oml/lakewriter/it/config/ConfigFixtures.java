package org.oml.lakewriter.it.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.cli.LakeWriterCli;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;

/** Options, a fake environment, fresh databases and a CLI run with its output captured. */
final class ConfigFixtures {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private ConfigFixtures() {}

  /** The smallest valid options: a database and a lake root. */
  static Map<String, String> options(String jdbcUrl, Path lakeRoot) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", jdbcUrl);
    options.put("lake.root", lakeRoot.toString());
    return options;
  }

  /** An environment holding only the default password variable. */
  static Function<String, String> env(String password) {
    return name -> name.equals("OML_PG_PASSWORD") ? password : null;
  }

  static LakeWriterConfig config(Map<String, String> options) {
    return LakeWriterConfig.of(options, env(null));
  }

  /** {@code -D key=value} arguments for the options. */
  static List<String> defines(Map<String, String> options) {
    List<String> args = new ArrayList<>();
    options.forEach(
        (k, v) -> {
          args.add("-D");
          args.add(k + "=" + v);
        });
    return args;
  }

  /** A database without the outbox contract. */
  static String freshDatabase(EmbeddedPostgresServer server) throws SQLException {
    String name = "oml_cfg_" + COUNTER.incrementAndGet();
    try (Connection c = server.connect();
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
    }
    return "jdbc:postgresql://localhost:" + server.port() + "/" + name;
  }

  static Connection connect(String jdbcUrl) throws SQLException {
    return DriverManager.getConnection(jdbcUrl, EmbeddedPostgresServer.USER, "");
  }

  static String scalar(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  record CliResult(int exitCode, String out, String err) {}

  /** Runs {@code lakewriter args...} in this JVM and captures what it prints. */
  static synchronized CliResult cli(List<String> args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      int code = LakeWriterCli.execute(args.toArray(String[]::new));
      System.out.flush();
      System.err.flush();
      return new CliResult(code, out.toString(UTF_8), err.toString(UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }

  static CliResult cli(String command, Map<String, String> options, String... extra) {
    List<String> args = new ArrayList<>();
    args.add(command);
    args.addAll(List.of(extra));
    args.addAll(defines(options));
    return cli(args);
  }
}
