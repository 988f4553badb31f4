package org.oml.lakewriter.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.oml.lakewriter.bench.DrainBenchmark.Run;

/** The Markdown table and the JSON file of a drain run. */
final class Report {
  private Report() {}

  static void write(
      DrainBenchmark.Options o,
      Map<String, Object> machine,
      Map<String, Object> load,
      List<Run> runs,
      Map<String, Object> producer,
      EncodeFloor.Result floor,
      Path work)
      throws Exception {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT,
        "### Drain: %,d events, %d tenants, %d B bodies, repeat %d%n%n", o.events, o.tenants,
        o.bodyBytes, o.repeat));
    md.append(String.format(Locale.ROOT,
        "machine: %s cores, %d GiB, %s; Flink %s, Flink CDC %s, Delta Kernel %s, PostgreSQL %s;"
            + " checkpoint %d ms, tick %d ms, batch.max-rows %d, state %s; warm-up %,d events"
            + " (unreported); load avg at start %s%n%n",
        machine.get("nproc"), ((Long) machine.get("mem_total_bytes")) >> 30, machine.get("java"),
        machine.get("flink"), machine.get("flink_cdc"), machine.get("delta_kernel"),
        machine.get("postgresql"), o.checkpointInterval.toMillis(), o.tickPeriod.toMillis(),
        o.batchMaxRows, o.stateBackend, o.warmupEvents, machine.get("load_average")));
    md.append(String.format(Locale.ROOT,
        "load: %,d rows (journal %,d, materialize %,d, retract %,d) by COPY at %,.0f rows/s;"
            + " %,d bytes of WAL per slot%n%n",
        load.get("rows"), load.get("journal"), load.get("materialize"), load.get("retract"),
        (Double) load.get("rows_per_s"), load.get("wal_bytes_per_slot")));
    md.append("| mode | what | rows/s (median) | rows/s range | wall s | first output s |"
        + " JVM CPU-s / M rows | walsender CPU-s / M rows | PG CPU-s / M rows |"
        + " peak heap MiB (sampled) | peak heap after GC MiB | peak RSS MiB | done |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    Map<String, List<Run>> byMode = new LinkedHashMap<>();
    for (Run r : runs) {
      byMode.computeIfAbsent(r.mode, k -> new ArrayList<>()).add(r);
    }
    Map<String, Object> modesJson = new LinkedHashMap<>();
    for (Map.Entry<String, List<Run>> e : byMode.entrySet()) {
      List<Run> rs = e.getValue();
      Stat rate = Stat.of(rs, Run::rowsPerSecond);
      Stat wall = Stat.of(rs, r -> r.seconds);
      Stat first = Stat.of(rs, r -> r.firstOutputSeconds);
      Stat jvm = Stat.of(rs, r -> r.perMillion(r.jvmCpu));
      Stat ws = Stat.of(rs, r -> r.perMillion(r.walsenderCpu));
      Stat pgc = Stat.of(rs, r -> r.perMillion(r.pgCpu));
      Stat heap = Stat.of(rs, r -> r.heapPeak / 1048576.0);
      Stat gc = Stat.of(rs, r -> r.heapAfterGcPeak / 1048576.0);
      Stat rss = Stat.of(rs, r -> r.rssPeak / 1048576.0);
      long done = rs.stream().filter(r -> r.done).count();
      md.append(String.format(Locale.ROOT,
          "| %s | %s | %,.0f | %s | %.1f | %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f | %d/%d |%n",
          e.getKey(), DrainModes.DESCRIPTION.get(e.getKey()), rate.median,
          rate.range("%,.0f"), wall.median, Double.isNaN(first.median) ? "-"
              : String.format(Locale.ROOT, "%.1f", first.median), jvm.median, ws.median,
          pgc.median, heap.max, gc.max, rss.max, done, rs.size()));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("description", DrainModes.DESCRIPTION.get(e.getKey()));
      m.put("rows_per_s", rate.json());
      m.put("wall_s", wall.json());
      m.put("first_output_s", first.json());
      m.put("jvm_cpu_s_per_m_rows", jvm.json());
      m.put("walsender_cpu_s_per_m_rows", ws.json());
      m.put("postgres_cpu_s_per_m_rows", pgc.json());
      m.put("peak_heap_sampled_mib", heap.json());
      m.put("peak_heap_after_gc_mib", gc.json());
      m.put("peak_rss_mib", rss.json());
      List<Object> each = new ArrayList<>();
      for (Run r : rs) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("rep", r.rep);
        x.put("done", r.done);
        x.put("error", r.error);
        x.put("rows", r.rows);
        x.put("seconds", r.seconds);
        x.put("rows_per_s", r.rowsPerSecond());
        x.put("first_output_s", r.firstOutputSeconds);
        x.put("jvm_cpu_s", r.jvmCpu);
        x.put("walsender_cpu_s", r.walsenderCpu);
        x.put("walsender_pid", r.walsenderPid);
        x.put("postgres_cpu_s", r.pgCpu);
        x.put("peak_heap_bytes", r.heapPeak);
        x.put("peak_heap_after_gc_bytes", r.heapAfterGcPeak);
        x.put("peak_rss_bytes", r.rssPeak);
        Map<String, Object> t = new LinkedHashMap<>();
        r.tables.forEach((k, v) -> t.put(k, Map.of(
            "parquet_files", v.files(), "parquet_bytes", v.bytes(),
            "log_files", v.logFiles(), "log_bytes", v.logBytes())));
        x.put("tables", t);
        each.add(x);
      }
      m.put("runs", each);
      modesJson.put(e.getKey(), m);
    }

    md.append(cpuByPart(byMode, modesJson));
    Map<String, Object> writerCpuJson = new LinkedHashMap<>();
    md.append(writerCpu(runs, o.repeat, writerCpuJson));
    Map<String, Object> floorJson = null;
    if (floor != null) {
      Stat f = floor.perOutboxRow(lastDone(runs, "B5").rows);
      floorJson = new LinkedHashMap<>();
      floorJson.put("live_rows", floor.rows());
      floorJson.put("tables", floor.tables());
      floorJson.put("cpu_us_per_outbox_row", f.json());
      md.append(String.format(Locale.ROOT,
          "%nencode floor: the last B5 lake's %,d live rows (%d tables) encoded once more, one"
              + " Parquet file per table, by the writer's own Parquet writer, no Flink, MERGE or"
              + " commit: %.1f CPU-µs per outbox row (%s, %d passes after %d warm ones)%n",
          floor.rows(), floor.tables(), f.median, f.range("%.1f"), floor.cpuSeconds().size(),
          EncodeFloor.WARM_PASSES));
    }

    // Ratios per repetition (same run, same WAL), then median and range.
    Map<String, Object> ratiosJson = new LinkedHashMap<>();
    md.append("\n| ratio | median | range | target |\n|---|---:|---:|---|\n");
    for (String[] pair : new String[][] {
        {"B5", "B1", ""}, {"B5", "B2", ">= 0.70 (aim 0.85)"}, {"B5", "B2w", ""},
        {"B5", "B4", ""}, {"B4", "B3", ""}, {"B3", "B2", ""}, {"B2w", "B1", ""}}) {
      List<Double> values = new ArrayList<>();
      for (int rep = 1; rep <= o.repeat; rep++) {
        Run a = find(runs, pair[0], rep);
        Run b = find(runs, pair[1], rep);
        if (a != null && b != null && a.done && b.done) {
          values.add(a.rowsPerSecond() / b.rowsPerSecond());
        }
      }
      if (values.isEmpty()) {
        continue;
      }
      Stat s = Stat.ofValues(values);
      String name = pair[0] + "/" + pair[1];
      md.append(String.format(Locale.ROOT, "| %s | %.2f | %s | %s |%n", name, s.median,
          s.range("%.2f"), pair[2]));
      ratiosJson.put(name, s.json());
    }
    Run b5 = lastDone(runs, "B5");
    if (producer != null) {
      double peak = (Double) producer.get("rows_per_s");
      md.append(String.format(Locale.ROOT,
          "%nproducer peak: %s clients inserting the drain mix, %s rows per transaction, as fast"
              + " as they can: %,.0f rows/s%n", producer.get("clients"), producer.get("txn_rows"),
          peak));
      List<Double> values = new ArrayList<>();
      for (Run r : runs) {
        if (r.mode.equals("B5") && r.done) {
          values.add(r.rowsPerSecond() / peak);
        }
      }
      if (!values.isEmpty()) {
        Stat s = Stat.ofValues(values);
        md.append(String.format(Locale.ROOT, "%n| B5/producer peak | %.2f | %s | >= 1.0 |%n",
            s.median, s.range("%.2f")));
        ratiosJson.put("B5/producer_peak", s.json());
      }
    }
    if (b5 != null) {
      md.append(String.format(Locale.ROOT,
          "%nB5 heap target (<= 1 GiB): peak sampled %d MiB, peak after GC %d MiB (-Xmx %d MiB)%n",
          b5.heapPeak >> 20, b5.heapAfterGcPeak >> 20, Runtime.getRuntime().maxMemory() >> 20));
    }
    for (String mode : List.of("B5", "B4")) {
      Run r = lastDone(runs, mode);
      if (r == null || r.tables.isEmpty()) {
        continue;
      }
      md.append(String.format(Locale.ROOT,
          "%n%s lake (rep %d): files and bytes per table%n%n| table | parquet files |"
              + " parquet bytes | log files | log bytes |%n|---|---:|---:|---:|---:|%n",
          mode, r.rep));
      long f = 0, b = 0, lf = 0, lb = 0;
      for (var t : r.tables.entrySet()) {
        var v = t.getValue();
        md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %d | %,d |%n", t.getKey(),
            v.files(), v.bytes(), v.logFiles(), v.logBytes()));
        f += v.files();
        b += v.bytes();
        lf += v.logFiles();
        lb += v.logBytes();
      }
      md.append(String.format(Locale.ROOT, "| **total** | %d | %,d | %d | %,d |%n", f, b, lf, lb));
    }

    Map<String, Object> json = new LinkedHashMap<>();
    json.put("benchmark", "drain");
    json.put("machine", machine);
    json.put("settings", o.toMap());
    json.put("load", load);
    json.put("modes", modesJson);
    json.put("producer_peak", producer);
    json.put("ratios", ratiosJson);
    json.put("writer_cpu_us_per_row", writerCpuJson);
    json.put("encode_floor", floorJson);
    json.put("work_dir", work.toString());
    Files.createDirectories(o.out);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path jsonFile = o.out.resolve("drain-" + stamp + ".json");
    Path mdFile = o.out.resolve("drain-" + stamp + ".md");
    Files.writeString(jsonFile, json(json, 0) + "\n");
    Files.writeString(mdFile, md);
    System.out.println();
    System.out.println(md);
    System.out.println("JSON: " + jsonFile.toAbsolutePath());
    System.out.println("Markdown: " + mdFile.toAbsolutePath());
  }

  /**
   * The JVM's CPU by what its threads do, per mode (median of the repetitions), in CPU-s per M
   * rows; {@code modesJson} gets the same under {@code cpu_s_per_m_rows_by_part}.
   */
  private static String cpuByPart(Map<String, List<Run>> byMode, Map<String, Object> modesJson) {
    StringBuilder md = new StringBuilder();
    md.append("\nJVM CPU by thread, CPU-s per M rows (median; jit: the JIT compiler, gc: the"
        + " garbage collector's threads, other: Flink's runtime, the main thread, the JVM's own)"
        + "\n\n| mode |");
    for (ThreadCpu.Part p : ThreadCpu.Part.values()) {
      md.append(' ').append(p.label()).append(" |");
    }
    md.append(" without jit and gc | JVM total |\n|---|");
    md.append("---:|".repeat(ThreadCpu.Part.values().length + 2)).append('\n');
    for (Map.Entry<String, List<Run>> e : byMode.entrySet()) {
      List<Run> rs = e.getValue();
      Map<String, Object> parts = new LinkedHashMap<>();
      md.append("| ").append(e.getKey()).append(" |");
      for (ThreadCpu.Part p : ThreadCpu.Part.values()) {
        Stat s = Stat.of(rs, r -> r.perMillion(r.cpu(p)));
        md.append(String.format(Locale.ROOT, " %.1f |", s.median));
        parts.put(p.label(), s.json());
      }
      Stat rest = Stat.of(rs, r -> r.perMillion(r.cpuWithoutJitAndGc()));
      parts.put("without_jit_and_gc", rest.json());
      md.append(String.format(Locale.ROOT, " %.1f | %.1f |%n", rest.median,
          Stat.of(rs, r -> r.perMillion(r.jvmCpu)).median));
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) modesJson.get(e.getKey());
      m.put("cpu_s_per_m_rows_by_part", parts);
    }
    return md.toString();
  }

  /**
   * The lake writer's own CPU per row, (B5 - B2) of the same repetition, with and without the JIT
   * compiler and the garbage collector, also put into {@code json}; empty if B2 or B5 did not
   * run.
   */
  private static String writerCpu(List<Run> runs, int repeat, Map<String, Object> json) {
    List<Double> all = new ArrayList<>();
    List<Double> rest = new ArrayList<>();
    for (int rep = 1; rep <= repeat; rep++) {
      Run b5 = find(runs, "B5", rep);
      Run b2 = find(runs, "B2", rep);
      if (b5 != null && b2 != null && b5.done && b2.done) {
        all.add(b5.perMillion(b5.jvmCpu) - b2.perMillion(b2.jvmCpu));
        rest.add(b5.perMillion(b5.cpuWithoutJitAndGc()) - b2.perMillion(b2.cpuWithoutJitAndGc()));
      }
    }
    if (all.isEmpty()) {
      return "";
    }
    Stat a = Stat.ofValues(all);
    Stat r = Stat.ofValues(rest);
    json.put("jvm", a.json());
    json.put("without_jit_and_gc", r.json());
    return String.format(Locale.ROOT,
        "%nwriter's own CPU, (B5 - B2) per row, same repetition: %.0f µs (%s); without the JIT"
            + " compiler and the garbage collector: %.0f µs (%s); target <= 30%n",
        a.median, a.range("%.0f"), r.median, r.range("%.0f"));
  }

  private static Run find(List<Run> runs, String mode, int rep) {
    return runs.stream().filter(r -> r.mode.equals(mode) && r.rep == rep).findFirst().orElse(null);
  }

  static Run lastDone(List<Run> runs, String mode) {
    Run last = null;
    for (Run r : runs) {
      if (r.mode.equals(mode) && r.done) {
        last = r;
      }
    }
    return last;
  }

  record Stat(double median, double min, double max) {
    static Stat of(Collection<Run> runs, ToDoubleFunction<Run> f) {
      List<Double> v = new ArrayList<>();
      runs.forEach(r -> v.add(f.applyAsDouble(r)));
      return ofValues(v);
    }

    static Stat ofValues(List<Double> values) {
      List<Double> v = values.stream().filter(d -> !Double.isNaN(d)).sorted().toList();
      if (v.isEmpty()) {
        return new Stat(Double.NaN, Double.NaN, Double.NaN);
      }
      int n = v.size();
      double median = n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
      return new Stat(median, v.get(0), v.get(n - 1));
    }

    String range(String fmt) {
      return String.format(Locale.ROOT, fmt + " – " + fmt, min, max);
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("median", median);
      m.put("min", min);
      m.put("max", max);
      return m;
    }
  }

  static String json(Object v, int indent) {
    String pad = "  ".repeat(indent + 1);
    String end = "  ".repeat(indent);
    if (v == null) {
      return "null";
    }
    if (v instanceof Double d) {
      return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.4f", d);
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    if (v instanceof Map<?, ?> m) {
      if (m.isEmpty()) {
        return "{}";
      }
      StringBuilder sb = new StringBuilder("{\n");
      int i = 0;
      for (var e : m.entrySet()) {
        sb.append(pad).append(quote(String.valueOf(e.getKey()))).append(": ")
            .append(json(e.getValue(), indent + 1)).append(++i < m.size() ? ",\n" : "\n");
      }
      return sb.append(end).append('}').toString();
    }
    if (v instanceof Collection<?> c) {
      if (c.isEmpty()) {
        return "[]";
      }
      StringBuilder sb = new StringBuilder("[\n");
      int i = 0;
      for (Object x : c) {
        sb.append(pad).append(json(x, indent + 1)).append(++i < c.size() ? ",\n" : "\n");
      }
      return sb.append(end).append(']').toString();
    }
    return quote(v.toString());
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format("\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
