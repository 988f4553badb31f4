package org.oml.lakewriter.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Item 15 of issue 17: every command's {@code --help} names its required keys and an example. */
class CommandHelpTest {
  @Test
  void everyCommandsHelpListsItsRequiredKeysAndAnExample() {
    List<List<String>> commands = new ArrayList<>();
    collect(new CommandLine(new LakeWriterCli()), new ArrayList<>(), commands);
    assertThat(commands).hasSizeGreaterThanOrEqualTo(12);
    for (List<String> command : commands) {
      if (command.equals(List.of("help"))) {
        continue; // picocli's own `help`, which has no --help option
      }
      List<String> args = new ArrayList<>(command);
      args.add("--help");
      Output help = run(args);
      assertThat(help.code).as("%s --help", command).isZero();
      assertThat(help.out)
          .as("%s --help", command)
          .containsPattern("Required keys(: none\\.| \\(in --config FILE or as -D key=value\\): )")
          .contains("Example:")
          .containsPattern("\\n  lakewriter " + String.join(" ", command).replace("-", "\\-"));
    }
    assertThat(run(List.of("run", "--help")).out)
        .contains("Required keys (in --config FILE or as -D key=value): postgres.url, lake.root.")
        .contains("  lakewriter run -D postgres.url=jdbc:postgresql://db:5432/oml");
    assertThat(run(List.of("status", "--help")).out)
        .contains("Required keys (in --config FILE or as -D key=value): postgres.url.");
    assertThat(run(List.of("demo", "--help")).out).contains("Required keys: none.");
  }

  private static void collect(CommandLine cli, List<String> path, List<List<String>> out) {
    cli.getSubcommands()
        .forEach(
            (name, sub) -> {
              List<String> here = new ArrayList<>(path);
              here.add(name);
              out.add(here);
              collect(sub, here, out);
            });
  }

  private record Output(int code, String out) {}

  private static synchronized Output run(List<String> args) {
    PrintStream stdout = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    try {
      int code = LakeWriterCli.execute(args.toArray(String[]::new));
      return new Output(code, out.toString(UTF_8));
    } finally {
      System.setOut(stdout);
    }
  }
}
