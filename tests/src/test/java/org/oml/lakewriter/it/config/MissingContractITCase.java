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
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.contract.ContractException;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;

/** Case 4: the database lacks the outbox contract, or only its publication. */
@ExtendWith(SharedPostgres.class)
class MissingContractITCase {
  @TempDir Path tmp;

  @Test
  void freshDatabaseSaysToRunInitDb(EmbeddedPostgresServer pg) throws Exception {
    String url = freshDatabase(pg);
    Map<String, String> options = options(url, tmp.resolve("lake"));

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ContractException.class)
        .hasMessageContaining("postgres.url = " + url)
        .hasMessageContaining("table public.oml_outbox is missing: run `lakewriter init-db`")
        .hasMessageContaining("table public.oml_lake_horizon is missing")
        .hasMessageContaining("function public.oml_lake_tick is missing")
        .hasMessageContaining("sequence public.oml_outbox_seq is missing")
        .hasMessageContaining("publication oml_lake_pub is missing")
        .hasMessageNotContaining("wal_level");

    CliRun.Result run = cli("run", options);
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("lakewriter: ").contains("run `lakewriter init-db`");

    // Doing what the message says fixes it.
    CliRun.Result initDb = cli("init-db", options);
    assertThat(initDb.exitCode()).as(initDb.err()).isZero();
    Preflight.check(config(options), false, false);
  }

  @Test
  void missingPublicationNamesThePublicationOption(EmbeddedPostgresServer pg) throws Exception {
    String url = freshDatabase(pg);
    Map<String, String> options = options(url, tmp.resolve("lake"));
    assertThat(cli("init-db", options).exitCode()).isZero();
    try (Connection c = connect(url);
        Statement st = c.createStatement()) {
      st.execute("DROP PUBLICATION oml_lake_pub");
    }

    assertThatThrownBy(() -> Preflight.check(config(options), false, false))
        .isInstanceOf(ContractException.class)
        .hasMessageContaining("postgres.publication = oml_lake_pub")
        .hasMessageContaining("publication oml_lake_pub is missing: run `lakewriter init-db`")
        .hasMessageNotContaining("table public.oml_outbox is missing");

    // A typo in postgres.publication is the same failure, naming the configured name.
    Map<String, String> typo = options(url, tmp.resolve("lake"));
    typo.put("postgres.publication", "oml_lake_pubb");
    assertThatThrownBy(() -> Preflight.check(config(typo), false, false))
        .isInstanceOf(ContractException.class)
        .hasMessageContaining("postgres.publication = oml_lake_pubb")
        .hasMessageContaining("publication oml_lake_pubb is missing");

    assertThat(cli("init-db", options).exitCode()).isZero();
    Preflight.check(config(options), false, false);
  }
}
