package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.config;
import static org.oml.lakewriter.it.config.ConfigFixtures.connect;
import static org.oml.lakewriter.it.config.ConfigFixtures.freshDatabase;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;

/**
 * The data-key lookup is checked before the job starts: a missing registry table is a named
 * configuration error, not a dead letter per promotion later; a bad retry budget is refused.
 */
@ExtendWith(SharedPostgres.class)
class KeyLookupQueryITCase {
  private static final String LOOKUP = "SELECT key_id FROM oml_data_key WHERE key_id = ANY(?)";

  @TempDir Path tmp;

  @Test
  void aMissingRegistryTableNamesTheOptionAndTheTable(EmbeddedPostgresServer pg) throws Exception {
    String url = freshDatabase(pg);
    Map<String, String> options = options(url, tmp.resolve("lake"));
    assertThat(cli("init-db", options).exitCode()).isZero();
    options.put("keys.lookup-query", LOOKUP);

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("option keys.lookup-query = '" + LOOKUP + "' fails")
        .hasMessageContaining("relation \"oml_data_key\" does not exist")
        .hasMessageContaining("42P01");
    CliRun.Result run = cli("run", options);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("lakewriter: ").contains("keys.lookup-query");

    try (Connection c = connect(url);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE oml_data_key (key_id text PRIMARY KEY)");
    }
    Preflight.check(config(options), false, false);
  }

  @Test
  void aQueryWithoutItsParameterIsRefused(EmbeddedPostgresServer pg) throws Exception {
    String url = freshDatabase(pg);
    Map<String, String> options = options(url, tmp.resolve("lake"));
    assertThat(cli("init-db", options).exitCode()).isZero();
    options.put("keys.lookup-query", "SELECT 'dek-1'");

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must take one text[] parameter");
  }

  @Test
  void aRetryBudgetThatCannotWorkIsRefused() {
    Map<String, String> options = options("jdbc:postgresql://localhost:5432/oml", tmp);
    options.put("retry.initial-backoff", "5s");
    options.put("retry.max-backoff", "1s");

    assertThatThrownBy(() -> config(options))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("retry.max-backoff")
        .hasMessageContaining("back-off");
  }
}
