package org.oml.lakewriter.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The end of every command's {@code --help}: the option keys the command cannot run without, and
 * one example line. A new user's first question is "what must I give it"; the option list alone
 * (every key optional on the command line, since they may come from {@code --config}) does not say.
 *
 * <p>Commands are looked up by their qualified name ({@code dead-letters list}). A command that
 * connects ({@link ConfigMixin}) but is not listed here gets {@code postgres.url} and a {@code
 * --config} example, so a command added later is never without them.
 */
final class CommandHelp {
  private static final String URL = "-D postgres.url=jdbc:postgresql://db:5432/oml";
  private static final String LAKE = "-D lake.root=/data/lake";

  /** Required keys (empty: none) and the example, per qualified command name. */
  private record Entry(List<String> required, String example) {}

  private static final Map<String, Entry> ENTRIES =
      Map.ofEntries(
          Map.entry(
              "lakewriter",
              new Entry(
                  List.of(),
                  "lakewriter init-db --config lakewriter.properties && lakewriter run --config"
                      + " lakewriter.properties")),
          Map.entry("init-db", new Entry(List.of("postgres.url"), "lakewriter init-db " + URL)),
          Map.entry(
              "run",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter run " + URL + " " + LAKE + " -D state.dir=/data/state")),
          Map.entry("demo", new Entry(List.of(), "lakewriter demo --events 500 --tenants 2")),
          Map.entry(
              "bench",
              new Entry(
                  List.of("postgres.url (or --embedded)"),
                  "lakewriter bench --quick --json " + URL + " (or: lakewriter bench --quick"
                      + " --json --embedded)")),
          Map.entry("status", new Entry(List.of("postgres.url"), "lakewriter status --json " + URL)),
          Map.entry(
              "verify",
              new Entry(List.of("postgres.url", "lake.root"), "lakewriter verify " + URL + " " + LAKE)),
          Map.entry(
              "maintain",
              new Entry(List.of(), "lakewriter maintain vacuum --retain 7d " + URL + " " + LAKE)),
          Map.entry(
              "maintain compact",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter maintain compact --tenant acme --table bronze " + URL + " " + LAKE)),
          Map.entry(
              "maintain checkpoint",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter maintain checkpoint --table silver " + URL + " " + LAKE)),
          Map.entry(
              "maintain vacuum",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter maintain vacuum --retain 7d --tenant acme --table silver " + URL
                      + " " + LAKE)),
          Map.entry(
              "maintain rebuild-gold",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter maintain rebuild-gold --tenant acme --check " + URL + " " + LAKE)),
          Map.entry(
              "history",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter history --tenant acme --table silver " + URL + " " + LAKE)),
          Map.entry(
              "dead-letters",
              new Entry(List.of("postgres.url"), "lakewriter dead-letters list " + URL)),
          Map.entry(
              "dead-letters list",
              new Entry(
                  List.of("postgres.url"), "lakewriter dead-letters list --tenant acme " + URL)),
          Map.entry(
              "dead-letters requeue",
              new Entry(
                  List.of("postgres.url"),
                  "lakewriter dead-letters requeue 1234 --body-file repaired.bin " + URL)),
          Map.entry(
              "dead-letters sync",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter dead-letters sync " + URL + " " + LAKE)),
          Map.entry(
              "quarantine",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter quarantine list " + URL + " " + LAKE)),
          Map.entry(
              "quarantine list",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter quarantine list --json " + URL + " " + LAKE)),
          Map.entry(
              "quarantine release",
              new Entry(
                  List.of("postgres.url", "lake.root"),
                  "lakewriter quarantine release --tenant acme " + URL + " " + LAKE)),
          Map.entry("help", new Entry(List.of(), "lakewriter help run")));

  private CommandHelp() {}

  /** Sets the footer of {@code cli} and of every subcommand under it. */
  static void apply(CommandLine cli) {
    CommandSpec spec = cli.getCommandSpec();
    String name = spec.qualifiedName(" ").replaceFirst("^lakewriter ", "");
    Entry entry = ENTRIES.get(name);
    if (entry == null) {
      boolean connects =
          spec.mixins().values().stream().anyMatch(m -> m.userObject() instanceof ConfigMixin);
      entry =
          new Entry(
              connects ? List.of("postgres.url") : List.of(),
              "lakewriter " + name + (connects ? " --config lakewriter.properties" : ""));
    }
    spec.usageMessage().footer(footer(entry));
    cli.getSubcommands().values().forEach(CommandHelp::apply);
  }

  private static String[] footer(Entry entry) {
    String required =
        entry.required().isEmpty()
            ? "Required keys: none."
            : "Required keys (in --config FILE or as -D key=value): "
                + String.join(", ", entry.required())
                + ". Every other key has a default (README, Configuration).";
    return new String[] {"", required, "", "Example:", "  " + entry.example()};
  }
}
