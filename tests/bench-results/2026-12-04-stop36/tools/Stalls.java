import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;

/**
 * java Stalls.java REC.jfr|- TABLE/_delta_log GAP_MS: the gaps of at least GAP_MS between consecutive
 * commits of one table (from the commitInfo timestamps), and, given a JFR recording, what the JVM's
 * threads were doing in them (execution samples by thread and by our outermost and innermost
 * frames, inside the gaps and over the whole run). With "-" instead of a recording: the gaps only.
 */
public class Stalls {
  public static void main(String[] a) throws Exception {
    Path log = Path.of(a[1]);
    long gapMs = Long.parseLong(a[2]);
    Pattern ts = Pattern.compile("\"commitInfo\":\\{\"timestamp\":(\\d+)");
    TreeMap<Long, Long> commits = new TreeMap<>();
    try (var s = Files.list(log)) {
      for (Path p : s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).toList()) {
        String txt = Files.readString(p);
        Matcher m = ts.matcher(txt);
        long v = Long.parseLong(p.getFileName().toString().substring(0, 20));
        if (m.find()) commits.put(Long.parseLong(m.group(1)), v);
      }
    }
    List<long[]> stalls = new ArrayList<>();
    Long prev = null;
    List<Long> gaps = new ArrayList<>();
    for (long t : commits.keySet()) {
      if (prev != null) {
        gaps.add(t - prev);
        if (t - prev >= gapMs) stalls.add(new long[] {prev, t});
      }
      prev = t;
    }
    Collections.sort(gaps);
    System.out.printf("commits %d, gap p50 %d p90 %d p99 %d max %d ms; stalls >= %d ms: %d%n", commits.size(),
        gaps.get(gaps.size() / 2), gaps.get(gaps.size() * 9 / 10), gaps.get(gaps.size() * 99 / 100), gaps.get(gaps.size() - 1), gapMs, stalls.size());
    long first = commits.firstKey();
    if (a[0].equals("-")) {
      for (long[] st : stalls) System.out.printf("  stall at +%.1f s, %d ms, versions %d..%d%n", (st[0] - first) / 1000.0, st[1] - st[0], commits.get(st[0]), commits.get(st[1]));
      return;
    }
    Map<Integer, Map<String, Integer>> perStall = new TreeMap<>();
    Map<String, Integer> inStall = new HashMap<>(), all = new HashMap<>();
    Map<Integer, List<String>> gcs = new TreeMap<>();
    long inMs = 0; for (long[] s : stalls) inMs += s[1] - s[0];
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        String type = e.getEventType().getName();
        long t = e.getStartTime().toEpochMilli();
        int idx = find(stalls, t);
        if (type.equals("jdk.GarbageCollection") && idx >= 0) {
          gcs.computeIfAbsent(idx, k -> new ArrayList<>()).add(e.getString("name") + " " + e.getDuration().toMillis() + "ms");
        }
        if (!type.equals("jdk.ExecutionSample")) continue;
        if (t < first) continue;
        RecordedStackTrace st = e.getStackTrace();
        if (st == null) continue;
        RecordedThread th = e.getThread("sampledThread");
        String tn = th == null || th.getJavaName() == null ? "?" : th.getJavaName().replaceAll("[0-9]+", "#");
        if (tn.length() > 30) tn = tn.substring(0, 30);
        List<String> ours = new ArrayList<>();
        for (RecordedFrame f : st.getFrames()) {
          String n = f.getMethod().getType().getName();
          if (n.startsWith("org.oml")) ours.add(n.substring(n.lastIndexOf('.') + 1) + "." + f.getMethod().getName());
        }
        // outermost few of our frames: the operation
        List<String> outer = new ArrayList<>(ours.subList(Math.max(0, ours.size() - 3), ours.size())); Collections.reverse(outer); String op = ours.isEmpty() ? "(not ours)" : String.join(" > ", outer);
        String innermost = ours.isEmpty() ? "" : ours.get(0);
        String key = tn + " | " + op + " | " + innermost;
        all.merge(key, 1, Integer::sum);
        if (idx >= 0) {
          inStall.merge(key, 1, Integer::sum);
          perStall.computeIfAbsent(idx, k -> new HashMap<>()).merge(tn + " | " + op, 1, Integer::sum);
        }
      }
    }
    System.out.printf("time in stalls %d ms of %d ms%n", inMs, commits.lastKey() - first);
    print("samples in stalls", inStall, 30);
    print("samples overall", all, 30);
    for (int i = 0; i < stalls.size(); i++) {
      long[] s = stalls.get(i);
      System.out.printf("== stall %d at +%.1f s, %d ms, versions %d..%d, gc %s%n", i, (s[0] - first) / 1000.0, s[1] - s[0], commits.get(s[0]), commits.get(s[1]), gcs.get(i));
      Map<String, Integer> m = perStall.get(i);
      if (m != null) print("  ", m, 8);
    }
  }
  static int find(List<long[]> st, long t) {
    for (int i = 0; i < st.size(); i++) if (t > st.get(i)[0] && t < st.get(i)[1]) return i;
    return -1;
  }
  static void print(String h, Map<String, Integer> m, int n) {
    int tot = m.values().stream().mapToInt(Integer::intValue).sum();
    System.out.println(h + " (" + tot + "):");
    m.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(n)
        .forEach(en -> System.out.printf("  %5d %5.1f%%  %s%n", en.getValue(), 100.0 * en.getValue() / tot, en.getKey()));
  }
}
