import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
public class Jit {
  public static void main(String[] a) throws Exception {
    java.time.Instant from = java.time.Instant.parse(a[1]), to = java.time.Instant.parse(a[2]);
    Map<String, long[]> byMethod = new HashMap<>();
    Map<String, Integer> deopt = new HashMap<>();
    long total = 0; int n = 0; long[] byLevel = new long[5]; int[] nLevel = new int[5];
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        String t = e.getEventType().getName();
        if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) continue;
        if (t.equals("jdk.Compilation")) {
          long d = e.getDuration().toNanos();
          RecordedMethod m = e.getValue("method");
          String name = m.getType().getName() + "." + m.getName();
          int lvl = e.getInt("compileLevel");
          byLevel[lvl] += d; nLevel[lvl]++;
          long[] v = byMethod.computeIfAbsent(name + " L" + lvl, k -> new long[2]);
          v[0] += d; v[1]++;
          total += d; n++;
        } else if (t.equals("jdk.Deoptimization")) {
          RecordedMethod m = e.getValue("method");
          String name = m.getType().getName() + "." + m.getName() + " " + e.getString("reason") + " " + e.getString("action");
          deopt.merge(name, 1, Integer::sum);
        }
      }
    }
    System.out.printf("compilations %d, %.1f s wall in total%n", n, total / 1e9);
    for (int l = 0; l < 5; l++) System.out.printf("  level %d: %d compilations, %.1f s%n", l, nLevel[l], byLevel[l] / 1e9);
    byMethod.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue()[0], x.getValue()[0])).limit(25)
      .forEach(en -> System.out.printf("  %6.0f ms %4d x %s%n", en.getValue()[0] / 1e6, en.getValue()[1], en.getKey()));
    int dn = deopt.values().stream().mapToInt(i -> i).sum();
    System.out.println("deoptimizations " + dn);
    deopt.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(20)
      .forEach(en -> System.out.printf("  %5d %s%n", en.getValue(), en.getKey()));
  }
}
