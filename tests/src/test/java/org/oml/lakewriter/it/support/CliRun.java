package org.oml.lakewriter.it.support;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.oml.lakewriter.cli.LakeWriterCli;

/** Runs {@code lakewriter args...} in this JVM, as the launcher would, and captures its output. */
public final class CliRun {
  /** The exit code and everything printed to stdout and stderr. */
  public record Result(int exitCode, String out, String err) {}

  /**
   * One run at a time in the JVM: System.out and System.err are swapped while it runs. A lock of
   * our own, not {@code System.class}, which the JDK itself takes (e.g. {@code System.console()})
   * from threads that a run may wait for.
   */
  public static final Object STDIO = new Object();

  private CliRun() {}

  public static Result run(List<String> args) {
    synchronized (STDIO) {
      PrintStream stdout = System.out;
      PrintStream stderr = System.err;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      System.setOut(new PrintStream(out, true, UTF_8));
      System.setErr(new PrintStream(err, true, UTF_8));
      try {
        int code = LakeWriterCli.execute(args.toArray(String[]::new));
        System.out.flush();
        System.err.flush();
        return new Result(code, out.toString(UTF_8), err.toString(UTF_8));
      } finally {
        System.setOut(stdout);
        System.setErr(stderr);
      }
    }
  }

  public static Result run(String... args) {
    return run(List.of(args));
  }

  /** {@code args...} followed by {@code -D key=value} for each option. */
  public static Result run(Map<String, String> options, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(defines(options));
    return run(all);
  }

  /** {@code -D key=value} arguments for the options. */
  public static List<String> defines(Map<String, String> options) {
    List<String> args = new ArrayList<>();
    options.forEach(
        (k, v) -> {
          args.add("-D");
          args.add(k + "=" + v);
        });
    return args;
  }
}
