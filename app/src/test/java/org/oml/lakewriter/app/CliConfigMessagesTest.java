package org.oml.lakewriter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17, the command line as a new user found it: option messages that name the options, their
 * configured values and the fix; "did you mean"; why a named file cannot be read.
 */
class CliConfigMessagesTest {
  private static final Function<String, String> NO_ENV = name -> null;

  @TempDir Path tmp;

  private static Map<String, String> with(String... keyValues) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("postgres.url", "jdbc:postgresql://db:5432/oml");
    options.put("lake.root", "/data/lake");
    for (int i = 0; i < keyValues.length; i += 2) {
      options.put(keyValues[i], keyValues[i + 1]);
    }
    return options;
  }

  // Item 3: no record dump; the conflicting options, their values and the fix.
  @Test
  void retryBackoffAboveItsCapNamesBothOptionsTheirValuesAndTheFix() {
    assertThatThrownBy(() -> LakeWriterConfig.of(with("retry.initial-backoff", "1m"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "option retry.initial-backoff = 1 min is longer than retry.max-backoff = 15 s")
        .hasMessageContaining(
            "lower retry.initial-backoff to 15 s or less, or raise retry.max-backoff to at least"
                + " 1 min")
        .hasMessageNotContaining("RetryBudget[")
        .hasMessageNotContaining("PT1M");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("retry.max-attempts", "0"), NO_ENV))
        .hasMessageStartingWith("option retry.max-attempts must be at least 1")
        .hasMessageNotContaining("RetryBudget[");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("retry.initial-backoff", "0s"), NO_ENV))
        .hasMessageStartingWith("option retry.initial-backoff must be positive")
        .hasMessageNotContaining("RetryBudget[");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("sink.commit-retry.initial-backoff", "10s"), NO_ENV))
        .hasMessageStartingWith(
            "option sink.commit-retry.initial-backoff = 10 s is longer than"
                + " sink.commit-retry.max-backoff = 5 s")
        .hasMessageNotContaining("CommitRetry[");
  }

  // Item 9.
  @Test
  void anUnknownKeyNearAKnownOneGetsADidYouMean() {
    assertThatThrownBy(() -> LakeWriterConfig.of(with("postgres.uri", "x"), NO_ENV))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("unknown option(s) [postgres.uri] (did you mean postgres.url?)");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("lake.roots", "x"), NO_ENV))
        .hasMessageStartingWith("unknown option(s) [lake.roots] (did you mean lake.root?)");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("batch.max-row", "5"), NO_ENV))
        .hasMessageStartingWith("unknown option(s) [batch.max-row] (did you mean batch.max-rows?)");
    assertThatThrownBy(() -> LakeWriterConfig.of(with("chekcpoint.interval", "5s"), NO_ENV))
        .hasMessageContaining("(did you mean checkpoint.interval?)");
    // Nothing near: no guess.
    assertThatThrownBy(() -> LakeWriterConfig.of(with("colour", "blue"), NO_ENV))
        .hasMessageStartingWith("unknown option(s) [colour]; known options are")
        .hasMessageNotContaining("did you mean");
    // Two typos: each with its own suggestion.
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("postgres.uri", "x", "writer.idd", "w"), NO_ENV))
        .hasMessageContaining("did you mean postgres.uri -> postgres.url, writer.idd -> writer.id?");
    assertThat(
            OptionSuggestions.closest(
                "state.dri", LakeWriterOptions.ALL.stream().map(o -> o.key()).toList()))
        .contains("state.dir");
    assertThat(OptionSuggestions.closest("x", List.of("y.z"))).isEmpty();
  }

  // Item 10.
  @Test
  void aConfigOrPasswordFileThatCannotBeReadSaysWhy() throws Exception {
    Path missing = tmp.resolve("missing.properties");
    assertThatThrownBy(() -> LakeWriterConfig.load(missing, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "cannot read the config file " + missing + ": not found (given with --config)");
    Path relative = Path.of("no-such-dir", "lakewriter.properties");
    assertThatThrownBy(() -> LakeWriterConfig.load(relative, Map.of()))
        .hasMessageContaining(
            "cannot read the config file " + relative + " (" + relative.toAbsolutePath() + "):"
                + " not found (its directory " + relative.toAbsolutePath().getParent()
                + " does not exist either)");
    Path dir = Files.createDirectories(tmp.resolve("conf.d"));
    assertThatThrownBy(() -> LakeWriterConfig.load(dir, Map.of()))
        .hasMessage("cannot read the config file " + dir + ": is a directory, not a file"
            + " (given with --config)");

    Path noPassword = tmp.resolve("pg-password");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("postgres.password-file", noPassword.toString()), NO_ENV))
        .hasMessage(
            "option postgres.password-file: cannot read the password file " + noPassword
                + ": not found");
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("postgres.password-file", dir.toString()), NO_ENV))
        .hasMessage(
            "option postgres.password-file: cannot read the password file " + dir
                + ": is a directory, not a file");
  }

  // Items 13 and 14: the options of `run` are checked like the others.
  @Test
  void runOptionsAreChecked() {
    LakeWriterConfig cfg = LakeWriterConfig.of(with(), NO_ENV);
    assertThat(cfg.get(LakeWriterOptions.SAVEPOINTS_RETAINED)).isEqualTo(3);
    assertThat(cfg.get(LakeWriterOptions.PROGRESS_INTERVAL)).hasSeconds(10);
    assertThatThrownBy(
            () -> LakeWriterConfig.of(with("state.savepoints.retained", "0"), NO_ENV))
        .hasMessageStartingWith("option state.savepoints.retained must be positive, not 0");
  }
}
