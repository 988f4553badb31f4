package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * Case 7: the lake root cannot be written. The tests run as root, for whom permissions do not
 * apply, so the root lies below a regular file, which stops everyone.
 */
@ExtendWith(SharedPostgres.class)
class UnwritableLakeRootITCase {
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
  void lakeRootBelowARegularFileNamesLakeRoot() throws Exception {
    Path file = Files.writeString(tmp.resolve("not-a-directory"), "x");
    Path below = file.resolve("lake");

    Map<String, String> options = options(db.jdbcUrl(), below);
    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the lake root lake.root = " + below.toUri())
        .hasMessageContaining("is not writable");
    // The same as a file: URI, and the regular file itself as the root.
    options.put("lake.root", below.toUri().toString());
    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lake.root = " + below.toUri());
    options.put("lake.root", file.toString());
    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lake.root = " + file.toUri())
        .hasMessageContaining("is not writable");
    assertThat(Files.readString(file)).isEqualTo("x");

    options.put("lake.root", below.toString());
    CliRun.Result run = cli("run", options);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("lakewriter: the lake root lake.root = ");

    // A filesystem scheme nobody provides.
    options.put("lake.root", "nosuchfs://bucket/lake");
    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lake.root = nosuchfs://bucket/lake");

    // A writable root passes, is created, and keeps no probe behind.
    Path good = tmp.resolve("lake");
    options.put("lake.root", good.toString());
    Preflight.check(config(options), false, false);
    assertThat(good).isDirectory();
    try (Stream<Path> left = Files.list(good)) {
      assertThat(left).isEmpty();
    }
  }
}
