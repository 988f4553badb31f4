package org.oml.lakewriter.it.config;

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
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;

/** Options, a fake environment, fresh databases and a CLI run with its output captured. */
final class ConfigFixtures {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private ConfigFixtures() {}

  /** The smallest valid options: a database and a lake root. */
  static Map<String, String> options(String jdbcUrl, Path lakeRoot) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", jdbcUrl);
    // Slot names are cluster-wide and init-db creates the slot: one per test database.
    options.put("postgres.slot", jdbcUrl.substring(jdbcUrl.lastIndexOf('/') + 1) + "_slot");
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

  /** {@code lakewriter command extra... -D options...} in this JVM, output captured. */
  static CliRun.Result cli(String command, Map<String, String> options, String... extra) {
    List<String> args = new ArrayList<>();
    args.add(command);
    args.addAll(List.of(extra));
    args.addAll(CliRun.defines(options));
    return CliRun.run(args);
  }
}
