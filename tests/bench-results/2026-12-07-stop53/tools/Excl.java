import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
/** Like Incl, but only samples under a[2] and not under a[3]; prints inclusive counts of frames below a[2]. */
public class Excl {
  public static void main(String[] a) throws Exception {
    Pattern threads = Pattern.compile(a[1]), under = Pattern.compile(a[2]), not = Pattern.compile(a[3]);
    int top = Integer.parseInt(a[4]);
    java.time.Instant from = System.getProperty("from") == null ? null : java.time.Instant.parse(System.getProperty("from"));
    Map<String,Integer> incl = new HashMap<>(); int total = 0;
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        if (from != null && e.getStartTime().isBefore(from)) continue;
        RecordedThread t = e.getThread("sampledThread");
        String tn = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
        if (!threads.matcher(tn).find()) continue;
        RecordedStackTrace st = e.getStackTrace(); if (st == null) continue;
        List<String> names = new ArrayList<>();
        for (RecordedFrame f : st.getFrames()) names.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
        int u = -1; for (int i = 0; i < names.size(); i++) if (under.matcher(names.get(i)).find()) { u = i; }
        if (u < 0 || names.stream().anyMatch(n -> not.matcher(n).find())) continue;
        total++;
        Set<String> seen = new HashSet<>(names.subList(0, u + 1));
        for (String n : seen) incl.merge(n, 1, Integer::sum);
      }
    }
    System.out.println("samples " + total); final int tot = total;
    incl.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(top)
        .forEach(en -> System.out.printf("%6d %5.1f%% %s%n", en.getValue(), 100.0 * en.getValue() / Math.max(1, tot), en.getKey()));
  }
}
