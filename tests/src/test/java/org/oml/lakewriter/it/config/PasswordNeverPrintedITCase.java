package org.oml.lakewriter.it.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.oml.lakewriter.it.config.ConfigFixtures.cli;
import static org.oml.lakewriter.it.config.ConfigFixtures.env;
import static org.oml.lakewriter.it.config.ConfigFixtures.freshDatabase;
import static org.oml.lakewriter.it.config.ConfigFixtures.options;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.app.LakeWriterConfig;
import org.oml.lakewriter.app.Preflight;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliRun;
import org.oml.lakewriter.it.support.TestDatabase;

/**
 * Case 9: the password (and any other secret handed to the lake filesystem) never shows up in
 * the printed configuration, in an error message, or in what the CLI prints.
 */
@ExtendWith(SharedPostgres.class)
class PasswordNeverPrintedITCase {
  private static final String SECRET = "Sup3r-Secret-Pw-5d2f";
  private static final String S3_SECRET = "s3-Secret-Key-8e41";

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
  void passwordIsNeverPrinted(EmbeddedPostgresServer pg) throws Exception {
    Path passwordFile = Files.writeString(tmp.resolve("pg-password"), SECRET + "\n");

    // The configuration, printed, as the job logs it at submission.
    Map<String, String> options = options(db.jdbcUrl(), tmp.resolve("lake"));
    options.put("lake.hadoop.fs.s3a.secret.key", S3_SECRET);
    LakeWriterConfig fromEnv = LakeWriterConfig.of(options, env(SECRET));
    assertThat(fromEnv.password()).isEqualTo(SECRET);
    assertThat(fromEnv.hadoopProperties()).containsEntry("fs.s3a.secret.key", S3_SECRET);
    assertThat(fromEnv.toString())
        .contains("postgres.url=" + db.jdbcUrl())
        .contains("lake.hadoop.fs.s3a.secret.key=")
        .doesNotContain(SECRET)
        .doesNotContain(S3_SECRET);
    options.put("postgres.password-file", passwordFile.toString());
    LakeWriterConfig fromFile = LakeWriterConfig.of(options, env(null));
    assertThat(fromFile.password()).isEqualTo(SECRET);
    assertThat(fromFile.toString()).doesNotContain(SECRET).doesNotContain(S3_SECRET);

    // Failures, each with the secret configured.
    List<Throwable> failures = new ArrayList<>();
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    failures.add(failure(options, "postgres.url", "jdbc:postgresql://localhost:" + closed + "/x"));
    failures.add(failure(options, "postgres.url", freshDatabase(pg)));
    failures.add(failure(options, "lake.root", passwordFile.resolve("lake").toString()));
    failures.add(failure(options, "batch.max-rows", "-1"));
    failures.add(failure(options, "postgres.password", SECRET));
    assertThat(failures).allSatisfy(f -> assertThat(f).isNotNull());
    for (Throwable f : failures) {
      assertThat(stackTrace(f)).doesNotContain(SECRET).doesNotContain(S3_SECRET);
    }

    // The CLI: a working command, and the password given as an option by mistake.
    Map<String, String> cliOptions = options(db.jdbcUrl(), tmp.resolve("lake"));
    cliOptions.put("postgres.password-file", passwordFile.toString());
    cliOptions.put("lake.hadoop.fs.s3a.secret.key", S3_SECRET);
    CliRun.Result status = cli("status", cliOptions);
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out() + status.err()).doesNotContain(SECRET).doesNotContain(S3_SECRET);
    cliOptions.put("postgres.password", SECRET);
    CliRun.Result asOption = cli("status", cliOptions);
    assertThat(asOption.exitCode()).isEqualTo(2);
    assertThat(asOption.err())
        .startsWith("lakewriter: unknown option(s) [postgres.password]")
        .contains("postgres.password-env")
        .contains("postgres.password-file");
    assertThat(asOption.out() + asOption.err()).doesNotContain(SECRET);
  }

  @Test
  void passwordInTheUrlIsRejectedWithoutEchoingIt() {
    String url = db.jdbcUrl() + "?sslmode=disable&password=" + SECRET;
    Map<String, String> options = options(url, tmp.resolve("lake"));
    Throwable failure = catchThrowable(() -> LakeWriterConfig.of(options, env(null)));
    assertThat(failure)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("postgres.url")
        .hasMessageContaining("postgres.password-env")
        .hasMessageContaining("postgres.password-file");
    assertThat(stackTrace(failure)).doesNotContain(SECRET);

    CliRun.Result status = cli("status", options);
    assertThat(status.exitCode()).isEqualTo(2);
    assertThat(status.out() + status.err()).doesNotContain(SECRET);
  }

  /** What goes wrong when {@code key} is set to {@code value}: parsing, then the preflight. */
  private static Throwable failure(Map<String, String> base, String key, String value) {
    Map<String, String> options = new LinkedHashMap<>(base);
    options.put(key, value);
    Throwable thrown =
        catchThrowable(() -> Preflight.check(LakeWriterConfig.of(options, env(SECRET)), false, false));
    assertThat(thrown).as("%s=%s", key, value).isInstanceOf(RuntimeException.class);
    return thrown;
  }

  private static String stackTrace(Throwable t) {
    StringWriter s = new StringWriter();
    t.printStackTrace(new PrintWriter(s));
    return s.toString();
  }
}
