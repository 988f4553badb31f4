import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
public class Alloc {
  public static void main(String[] a) throws Exception {
    java.time.Instant from = java.time.Instant.parse(a[1]), to = java.time.Instant.parse(a[2]);
    int depth = Integer.parseInt(a[3]);
    Map<String, Long> by = new HashMap<>(); long total = 0;
    Map<String, Long> byThread = new HashMap<>();
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ObjectAllocationSample")) continue;
        if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) continue;
        long w = e.getLong("weight"); total += w;
        RecordedThread t = e.getThread("eventThread");
        String tn = t == null ? "?" : String.valueOf(t.getJavaName()).replaceAll("[0-9]+", "#");
        byThread.merge(tn.length() > 40 ? tn.substring(0, 40) : tn, w, Long::sum);
        RecordedStackTrace st = e.getStackTrace(); if (st == null) continue;
        StringBuilder k = new StringBuilder(e.getClass("objectClass").getName());
        int d = 0;
        for (RecordedFrame f : st.getFrames()) {
          String n = f.getMethod().getType().getName() + "." + f.getMethod().getName();
          k.append(" < ").append(n.replaceAll("^.*\\.([^.]+\\.[^.]+)$", "$1"));
          if (++d >= depth) break;
        }
        by.merge(k.toString(), w, Long::sum);
      }
    }
    final long tt = total; System.out.printf("total %.1f GB%n", total / 1e9);
    byThread.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(8)
      .forEach(en -> System.out.printf("  %5.1f%% thread %s%n", 100.0 * en.getValue() / tt, en.getKey()));
    by.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(25)
      .forEach(en -> System.out.printf("  %5.1f%% %s%n", 100.0 * en.getValue() / tt, en.getKey()));
  }
}
