package org.oml.lakewriter.cli;

import org.oml.lakewriter.app.ConfigException;
import org.oml.lakewriter.contract.ContractException;
import org.oml.lakewriter.deadletter.journal.DeadLetterRequeue;
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
      BenchCommand.class,
      StatusCommand.class,
      DoctorCommand.class,
      VerifyCommand.class,
      DeadLettersCommand.class,
      QuarantineCommand.class,
      MaintainCommand.class,
      HistoryCommand.class,
      CommandLine.HelpCommand.class
    })
public final class LakeWriterCli {
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /**
   * Runs a command and returns its exit code; configuration errors (exit 2) and refused requeues
   * (exit 1) print a clear message.
   */
  public static int execute(String... args) {
    CommandLine cli = new CommandLine(new LakeWriterCli());
    CommandHelp.apply(cli);
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof ConfigException || e instanceof ContractException) {
            cmd.getErr().println("lakewriter: " + e.getMessage());
            return 2;
          }
          if (e instanceof DeadLetterRequeue.RefusedException) {
            cmd.getErr().println("lakewriter: " + e.getMessage());
            return 1;
          }
          throw e;
        });
    return cli.execute(args);
  }
}
