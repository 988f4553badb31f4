package org.oml.lakewriter.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Scaling of drain mode (issue 6): the {@link DrainBenchmark} at several outbox sizes (default
 * 10^4, 10^5, 10^6 events over 8 tenants) and tenant counts (default 1, 64 and 512 at 10^5 events), each
 * configuration in a fresh JVM on a fresh PostgreSQL, and how the cost per row grows against the
 * smallest configuration, and B5 at each tenant count against B5 at the base tenant count (8) and
 * the same events (issue 12's rows: B5(64)/B5(8) >= 0.8, B5(512)/B5(8) >= 0.5). Cost per row is the JVM's CPU time per row (microseconds), which the
 * machine's other load disturbs less than wall time; rows/s and B5/B2 are reported next to it.
 *
 * <p>Not a test: a {@code main}, see the README's "Benchmark" section. Writes a Markdown table
 * and a JSON file, and keeps every configuration's own drain report next to them.
 */
public final class ScalingBenchmark {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private record Config(long events, int tenants) {
    String name() {
      return "e" + events + "-t" + tenants;
    }
  }

  private ScalingBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Long> events = List.of(10_000L, 100_000L, 1_000_000L);
    List<Integer> tenants = List.of(1, 8, 64, 512);
    long baseEvents = 100_000;
    int baseTenants = 8;
    String modes = "B1,B2,B5";
    String producer = "0s"; // the producer's peak is DrainBenchmark's row, not a scaling one
    int repeat = 1;
    Path out = Path.of("tests", "target", "bench");
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--events" -> events = Arrays.stream(v.split(",")).map(s -> Long.parseLong(s.replace("_", ""))).toList();
        case "--tenants" -> tenants = Arrays.stream(v.split(",")).map(Integer::parseInt).toList();
        case "--base-events" -> baseEvents = Long.parseLong(v.replace("_", ""));
        case "--base-tenants" -> baseTenants = Integer.parseInt(v);
        case "--modes" -> modes = v;
        case "--producer-duration" -> producer = v;
        case "--repeat" -> repeat = Integer.parseInt(v);
        case "--out" -> out = Path.of(v);
        case "--quick" -> {
          events = List.of(5_000L, 20_000L);
          tenants = List.of(1, 8, 64, 512);
          baseEvents = 5_000;
          i--;
        }
        default -> {
          System.err.println(
              "ScalingBenchmark [--events 10000,100000,1000000] [--tenants 1,8,64]"
                  + " [--base-events 100000] [--base-tenants 8] [--modes B1,B2,B5] [--repeat 1]"
                  + " [--producer-duration 0s] [--quick] [--out tests/target/bench]");
          System.exit(args[i].equals("--help") ? 0 : 2);
        }
      }
      i++;
    }
    List<Config> configs = new ArrayList<>();
    for (long e : events) {
      configs.add(new Config(e, baseTenants));
    }
    Config base = new Config(baseEvents, baseTenants);
    if (!configs.contains(base)) {
      configs.add(base); // the denominator of the tenant ratios
    }
    for (int t : tenants) {
      if (t != baseTenants) {
        configs.add(new Config(baseEvents, t));
      }
    }
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = out.resolve("scaling-" + stamp);
    Files.createDirectories(dir);
    Map<Config, JsonNode> reports = new LinkedHashMap<>();
    for (Config c : configs) {
      reports.put(c, drain(c, modes, repeat, producer, dir.resolve(c.name())));
    }
    String md = markdown(reports) + tenantRatios(reports, base);
    Files.writeString(dir.resolve("scaling.md"), md);
    Map<String, Object> json = json(reports, modes, repeat);
    json.put("tenant_ratios", tenantRatioValues(reports, base));
    JSON.writeValue(dir.resolve("scaling.json").toFile(), json);
    System.out.println(md);
    System.out.println("written to " + dir.toAbsolutePath());
  }

  /** Runs one configuration in its own JVM; returns its drain report. */
  private static JsonNode drain(Config c, String modes, int repeat, String producer, Path dir)
      throws Exception {
    Files.createDirectories(dir);
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-Xmx2g");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(DrainBenchmark.class.getName());
    cmd.addAll(
        List.of(
            "--events", String.valueOf(c.events()), "--tenants", String.valueOf(c.tenants()),
            "--modes", modes, "--repeat", String.valueOf(repeat), "--producer-duration", producer,
            "--out", dir.toString()));
    Path log = dir.resolve("drain.log");
    System.out.printf(Locale.ROOT, "[scaling] %s: %s%n", c.name(), String.join(" ", cmd.subList(4, cmd.size())));
    int status =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start().waitFor();
    try (Stream<String> lines = Files.lines(log)) {
      lines.filter(l -> l.startsWith("[bench")).forEach(l -> System.out.println("  " + l));
    }
    if (status != 0) {
      throw new IllegalStateException(c.name() + " failed (exit " + status + "), see " + log);
    }
    try (Stream<Path> files = Files.list(dir)) {
      Path report =
          files
              .filter(p -> p.getFileName().toString().matches("drain-.*\\.json"))
              .findFirst()
              .orElseThrow(() -> new IOException("no drain report in " + dir));
      return JSON.readTree(report.toFile());
    }
  }

  /** JVM CPU microseconds per row of {@code mode} (the median over repetitions). */
  private static double cost(JsonNode report, String mode) {
    return report.path("modes").path(mode).path("jvm_cpu_s_per_m_rows").path("median").asDouble(Double.NaN);
  }

  private static double rate(JsonNode report, String mode) {
    return report.path("modes").path(mode).path("rows_per_s").path("median").asDouble(Double.NaN);
  }

  /** Parquet files per table of the last B5 run. */
  private static double filesPerTable(JsonNode report) {
    JsonNode runs = report.path("modes").path("B5").path("runs");
    if (runs.isEmpty()) {
      return Double.NaN;
    }
    JsonNode tables = runs.get(runs.size() - 1).path("tables");
    long files = 0;
    int count = 0;
    for (Iterator<JsonNode> it = tables.elements(); it.hasNext(); ) {
      files += it.next().path("parquet_files").asLong();
      count++;
    }
    return count == 0 ? Double.NaN : (double) files / count;
  }

  private static String markdown(Map<Config, JsonNode> reports) {
    JsonNode first = reports.values().iterator().next();
    double b5Base = cost(first, "B5");
    double b2Base = cost(first, "B2");
    StringBuilder md = new StringBuilder("### Drain scaling\n\n");
    JsonNode m = first.path("machine");
    md.append(
        String.format(
            Locale.ROOT,
            "machine: %s cores, %s; Flink %s, Flink CDC %s, Delta Kernel %s, PostgreSQL %s;"
                + " batch.max-rows %s; each configuration in a fresh JVM and PostgreSQL."
                + " Cost = JVM CPU-µs per row (median), start-up included; B5 - B2 = the lake writer's own"
                + " cost beyond the CDC source (start-up mostly cancels out); growth = cost / cost"
                + " of the first row.%n%n",
            m.path("nproc").asText(), m.path("java").asText(), m.path("flink").asText(),
            m.path("flink_cdc").asText(), m.path("delta_kernel").asText(),
            m.path("postgresql").asText(), first.path("settings").path("batch_max_rows").asText()));
    double ownBase = cost(first, "B5") - b2Base;
    md.append(
        "| events | tenants | B1 rows/s | B2 rows/s | B5 rows/s | B5/B2 | B2 cost µs/row |"
            + " B5 cost µs/row | B5 - B2 µs/row | B2 growth | B5 growth | B5 - B2 growth |"
            + " B5 parquet files per table |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Config, JsonNode> e : reports.entrySet()) {
      JsonNode r = e.getValue();
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %d | %,.0f | %,.0f | %,.0f | %.2f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f"
                  + " | %.1f |%n",
              e.getKey().events(), e.getKey().tenants(), rate(r, "B1"), rate(r, "B2"),
              rate(r, "B5"), rate(r, "B5") / rate(r, "B2"), cost(r, "B2"), cost(r, "B5"),
              cost(r, "B5") - cost(r, "B2"), cost(r, "B2") / b2Base, cost(r, "B5") / b5Base,
              (cost(r, "B5") - cost(r, "B2")) / ownBase, filesPerTable(r)));
    }
    return md.toString();
  }

  /** B5 rows/s at each tenant count over B5 rows/s at the base tenant count, same events. */
  private static Map<String, Object> tenantRatioValues(Map<Config, JsonNode> reports, Config base) {
    Map<String, Object> ratios = new LinkedHashMap<>();
    JsonNode b = reports.get(base);
    for (Map.Entry<Config, JsonNode> e : reports.entrySet()) {
      Config c = e.getKey();
      if (b != null && c.events() == base.events() && c.tenants() != base.tenants()) {
        ratios.put(
            "B5(" + c.tenants() + ")/B5(" + base.tenants() + ")",
            rate(e.getValue(), "B5") / rate(b, "B5"));
      }
    }
    return ratios;
  }

  private static String tenantRatios(Map<Config, JsonNode> reports, Config base) {
    Map<String, Object> ratios = tenantRatioValues(reports, base);
    if (ratios.isEmpty()) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%nB5 across tenants at %,d events (issue 12 targets: 64 tenants >= 0.8, 512"
                    + " tenants >= 0.5)%n%n| ratio | value |%n|---|---:|%n",
                base.events()));
    ratios.forEach(
        (k, v) -> md.append(String.format(Locale.ROOT, "| %s | %.2f |%n", k, (Double) v)));
    return md.toString();
  }

  private static Map<String, Object> json(Map<Config, JsonNode> reports, String modes, int repeat) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("benchmark", "drain-scaling");
    root.put("modes", modes);
    root.put("repeat", repeat);
    root.put("machine", reports.values().iterator().next().path("machine"));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Map.Entry<Config, JsonNode> e : reports.entrySet()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("events", e.getKey().events());
      row.put("tenants", e.getKey().tenants());
      for (String mode : List.of("B1", "B2", "B5")) {
        row.put(mode + "_rows_per_s", rate(e.getValue(), mode));
        row.put(mode + "_jvm_cpu_us_per_row", cost(e.getValue(), mode));
      }
      row.put("B5_minus_B2_jvm_cpu_us_per_row", cost(e.getValue(), "B5") - cost(e.getValue(), "B2"));
      row.put("B5_parquet_files_per_table", filesPerTable(e.getValue()));
      row.put("drain_report", e.getValue());
      rows.add(row);
    }
    root.put("configurations", rows);
    return root;
  }
}
