package org.oml.lakewriter.it.lease;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.oml.lakewriter.embedded.EmbeddedPostgresServer;
import org.oml.lakewriter.it.support.CliProcess;
import org.oml.lakewriter.it.support.TestDatabase;

/** Options, child processes and Delta-log reading shared by the leader-lease tests. */
final class LeaseFixtures {
  private static final Pattern EPOCH = Pattern.compile("lease-epoch=(\\d+) lease-holder=([^\"\\s]+)");

  private LeaseFixtures() {}

  /** `lakewriter run` options with a short lease: 8 s, renewed every 1 s, 3 s margin. */
  static Map<String, String> options(
      TestDatabase db, Path lake, String writerId, String slot, Path stateDir) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("postgres.url", db.jdbcUrl());
    o.put("postgres.user", EmbeddedPostgresServer.USER);
    o.put("postgres.slot", slot);
    o.put("postgres.publication", TestDatabase.PUBLICATION);
    o.put("writer.id", writerId);
    o.put("lake.root", lake.toUri().toString());
    o.put("state.dir", stateDir.toString());
    o.put("horizon.tick-period", "200ms");
    o.put("checkpoint.interval", "500ms");
    o.put("lease.duration", "8s");
    o.put("lease.renew-period", "1s");
    o.put("lease.safety-margin", "3s");
    o.put("lease.wait", "60s");
    return o;
  }

  /** `lakewriter run` in its own JVM (so that it can be SIGKILLed), output to {@code log}. */
  static Process start(Map<String, String> options, Path log, String... extra) throws IOException {
    List<String> args = new ArrayList<>();
    args.add("run");
    args.addAll(List.of(extra));
    options.forEach(
        (k, v) -> {
          args.add("-D");
          args.add(k + "=" + v);
        });
    return new ProcessBuilder(CliProcess.command("768m", List.of(), CliProcess.LAKEWRITER, args))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /**
   * The lease tag of every Delta commit of every table under the lake, by table and Delta version:
   * {@code "<epoch> <holder>"}, or {@code "untagged"} for a commit without one (table creation).
   */
  static Map<String, TreeMap<Long, String>> commitTags(Path lake) throws IOException {
    Map<String, TreeMap<Long, String>> tags = new TreeMap<>();
    if (!Files.isDirectory(lake)) {
      return tags;
    }
    try (Stream<Path> files = Files.walk(lake)) {
      for (Path f :
          files
              .filter(p -> p.getParent().getFileName().toString().equals("_delta_log"))
              .filter(p -> p.getFileName().toString().matches("\\d{20}\\.json"))
              .toList()) {
        String table = lake.relativize(f.getParent().getParent()).toString();
        long version = Long.parseLong(f.getFileName().toString().substring(0, 20));
        String commitInfo =
            Files.readAllLines(f).stream()
                .filter(l -> l.startsWith("{\"commitInfo\""))
                .findFirst()
                .orElse("");
        Matcher m = EPOCH.matcher(commitInfo);
        tags.computeIfAbsent(table, t -> new TreeMap<>())
            .put(version, m.find() ? m.group(1) + " " + m.group(2) : "untagged");
      }
    }
    return tags;
  }

  /** Every tag of every commit that carries data (all but the tables' creation). */
  static List<String> dataCommitTags(Path lake) throws IOException {
    List<String> all = new ArrayList<>();
    commitTags(lake).values().forEach(v -> v.tailMap(1L).values().forEach(all::add));
    return all;
  }

  static void awaitSlotFree(TestDatabase db, String slot, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (db.scalarLong(
              "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                  + slot
                  + "'")
          == 0) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("slot " + slot + " still active");
  }
}
