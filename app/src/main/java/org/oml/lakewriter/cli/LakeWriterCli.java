package org.oml.lakewriter.cli;

import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.contract.ContractException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code lakewriter} command line, started by the {@code ./lakewriter} launcher. */
@Command(
    name = "lakewriter",
    mixinStandardHelpOptions = true,
    version = "oml-lakewriter 0.1.0",
    description =
        "Keeps the per-tenant Delta lake in step with the PostgreSQL outbox, exactly once.",
    subcommands = {
      InitDbCommand.class,
      RunCommand.class,
      DemoCommand.class,
      StatusCommand.class,
      VerifyCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LakeWriterCli {
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs a command and returns its exit code; configuration errors print one clear line. */
  public static int execute(String... args) {
    CommandLine cli = new CommandLine(new LakeWriterCli());
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof ConfigException || e instanceof ContractException) {
            cmd.getErr().println("lakewriter: " + e.getMessage());
            return 2;
          }
          throw e;
        });
    return cli.execute(args);
  }
}
