import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
/** Samples per 5 s bucket per thread group (writer, committer, source, cut, jit via CPU load n/a). */
public class Timeline {
  public static void main(String[] a) throws Exception {
    TreeMap<Long, Map<String,Integer>> b = new TreeMap<>();
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        RecordedThread t = e.getThread("sampledThread");
        String n = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
        String g = n.startsWith("delta-writer") ? "writer" : n.startsWith("delta-committer") ? "committer" : n.contains("batch cut") ? "cut" : n.contains("CDC source") || n.startsWith("debezium") ? "source" : n.equals("main") ? "main" : "other";
        long s = e.getStartTime().getEpochSecond() / 5 * 5;
        b.computeIfAbsent(s, k -> new TreeMap<>()).merge(g, 1, Integer::sum);
      }
    }
    b.forEach((k, v) -> System.out.println(java.time.Instant.ofEpochSecond(k) + " " + v));
  }
}
