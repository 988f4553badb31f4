import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
public class Incl {
  // Optional window, as ISO instants: -Dfrom=2026-12-06T11:41:10Z -Dto=2026-12-06T11:41:42Z
  static final java.time.Instant FROM = instant("from"), TO = instant("to");
  static java.time.Instant instant(String key) {
    String v = System.getProperty(key);
    return v == null ? null : java.time.Instant.parse(v);
  }
  public static void main(String[] a) throws Exception {
    Pattern threads = Pattern.compile(a[1]);
    int top = Integer.parseInt(a[2]);
    Pattern under = a.length > 3 ? Pattern.compile(a[3]) : null;
    Map<String,Integer> incl = new HashMap<>(), self = new HashMap<>(), th = new HashMap<>();
    int total = 0;
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        if (FROM != null && e.getStartTime().isBefore(FROM) || TO != null && e.getStartTime().isAfter(TO)) continue;
        RecordedThread t = e.getThread("sampledThread");
        String tn = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
        if (!threads.matcher(tn).find()) continue;
        RecordedStackTrace st = e.getStackTrace(); if (st == null) continue;
        List<String> names = new ArrayList<>();
        for (RecordedFrame f : st.getFrames()) names.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
        if (under != null && names.stream().noneMatch(n -> under.matcher(n).find())) continue;
        total++;
        th.merge(tn.replaceAll("[0-9]+", "#"), 1, Integer::sum);
        self.merge(names.isEmpty() ? "?" : names.get(0), 1, Integer::sum);
        for (String n : new HashSet<>(names)) incl.merge(n, 1, Integer::sum);
      }
    }
    final int tot = total;
    System.out.println("samples " + total + " threads " + th);
    System.out.println("-- inclusive");
    incl.entrySet().stream().sorted(Map.Entry.<String,Integer>comparingByValue().reversed()).limit(top).forEach(x -> System.out.printf("%6d %5.1f%% %s%n", x.getValue(), 100.0*x.getValue()/tot, x.getKey()));
    System.out.println("-- self");
    self.entrySet().stream().sorted(Map.Entry.<String,Integer>comparingByValue().reversed()).limit(30).forEach(x -> System.out.printf("%6d %5.1f%% %s%n", x.getValue(), 100.0*x.getValue()/tot, x.getKey()));
  }
}
