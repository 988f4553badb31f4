package org.oml.lakewriter.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: arguments and directories that cannot work are refused before anything starts (no
 * PostgreSQL, no job, no connection), with one line that names what is wrong.
 */
class CliArgumentsTest {
  /** A database nobody listens on: reaching it would fail differently, and slowly. */
  private static final String NOWHERE = "postgres.url=jdbc:postgresql://127.0.0.1:1/nowhere";

  @TempDir Path tmp;

  // Item 6.
  @Test
  void demoRefusesNoEventsOrNoTenantsBeforeStartingAnything() {
    for (List<String> args :
        List.of(
            List.of("demo", "--events", "0"),
            List.of("demo", "--events", "-5"),
            List.of("demo", "--tenants", "0"))) {
      long start = System.nanoTime();
      Output o = run(args);
      assertThat(o.code).as("%s: %s", args, o.err).isEqualTo(2);
      assertThat(o.err)
          .as("%s", args)
          .containsPattern("--(events|tenants) must be at least 1, not -?\\d")
          .contains("Usage: lakewriter demo");
      assertThat(o.out).as("%s", args).doesNotContain("PostgreSQL on port");
      assertThat((System.nanoTime() - start) / 1_000_000).as("%s took ms", args).isLessThan(5000);
    }
  }

  // Item 2.
  @Test
  void anUnusableStateDirIsOneLineNamingTheOptionAndThePath() throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    Output onFile = run(List.of("run", "-D", NOWHERE, "-D", "lake.root=" + tmp.resolve("lake"),
        "-D", "state.dir=" + file));
    assertThat(onFile.code).as(onFile.err).isEqualTo(2);
    assertThat(onFile.err.strip())
        .isEqualTo("lakewriter: the state directory state.dir = " + file + " is not usable: it is a"
            + " file, not a directory. Checkpoints and savepoints go there; set state.dir to a"
            + " writable directory.");

    Output below = run(List.of("run", "-D", NOWHERE, "-D", "lake.root=" + tmp.resolve("lake"),
        "-D", "state.dir=" + file.resolve("state")));
    assertThat(below.code).isEqualTo(2);
    assertThat(below.err)
        .startsWith("lakewriter: the state directory state.dir = " + file.resolve("state")
            + " is not usable: cannot create it")
        .doesNotContain("\tat ");
    assertThat(below.err.strip().lines()).hasSize(1);

    Output proc = run(List.of("run", "-D", NOWHERE, "-D", "lake.root=" + tmp.resolve("lake"),
        "-D", "state.dir=/proc"));
    assertThat(proc.code).isEqualTo(2);
    assertThat(proc.err)
        .startsWith("lakewriter: the state directory state.dir = /proc is not usable: cannot"
            + " create a file in it")
        .doesNotContain("\tat ");
    assertThat(proc.err.strip().lines()).hasSize(1);
    assertThat(Files.readString(file)).isEqualTo("x");
  }

  private record Output(int code, String out, String err) {}

  private static synchronized Output run(List<String> args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(err, true, UTF_8));
    try {
      int code = LakeWriterCli.execute(new ArrayList<>(args).toArray(String[]::new));
      return new Output(code, out.toString(UTF_8), err.toString(UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }
}
